"""Two engines that embed texts in batches: in process (``local``) and on Ray Data (``ray``).

Both yield ``(ids, vectors, device)`` pieces as they finish (in any order; ``ids`` index the
input texts) with float32 unit rows, the values :func:`scar_viz.embeddings.embed_cached`
returns, and where they were made (``cuda:0, fp16``; empty for a model with no device). On
Ray each actor builds the model once from an :class:`EmbedderSpec` (a callable class in
``map_batches``), so a model and its key are made on the worker, never shipped from here, and
the device choice is resolved there: an actor that asked Ray for a GPU (``num_gpus``) sees
that GPU alone, as ``cuda:0``, and ``auto`` puts the model on it.
"""

from __future__ import annotations

import logging
import os
import socket
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from scar_viz.common.errors import UserError, user_message
from scar_viz.embeddings import Embedder, EmbeddingCache, Progress, embed_cached, make_embedder
from scar_viz.runtime import devices
from scar_viz.runtime.devices import CPU_BATCH, GPU_BATCH, DeviceChoice, placement_label
from scar_viz.runtime.endpoints import EMBEDDING_KEY_NAMES, server_key
from scar_viz.store import extras
from scar_viz.store.meta import StoreError

ENGINES = ("local", "ray")
LOCAL_RAY_CPUS = 2
"""CPUs of the Ray instance started here when no ``ray_address`` is given."""


INDEX_BATCH_CPU = 8 * CPU_BATCH
"""Texts per engine batch (one ``map_batches`` call, one cache write) on the CPU: 256."""

INDEX_BATCH_GPU = 4 * GPU_BATCH
"""Texts per engine batch on a GPU: 1,024, four forward passes of :data:`GPU_BATCH` ordered
by length together."""


@dataclass(frozen=True)
class EmbedderSpec:
    """How to build an embedder where it runs: the ``--model`` spec, ``--base-url`` and the
    device choice (default: the one in force where the spec is made). The key is read on the
    machine that builds it (``OPENAI_API_KEY``), never carried."""

    spec: str
    base_url: str | None = None
    device: DeviceChoice = field(default_factory=devices.current)

    def build(self) -> Embedder:
        return make_embedder(
            self.spec,
            base_url=self.base_url,
            api_key=server_key(EMBEDDING_KEY_NAMES),
            device=self.device,
        )


@dataclass(frozen=True)
class EngineOptions:
    """Where and how to embed.

    Attributes:
        engine: ``local`` (in process) or ``ray`` (Ray Data).
        ray_address: the cluster to join (``auto``, ``ray://host:10001``, ``host:6379``);
            None starts a local Ray with :data:`LOCAL_RAY_CPUS` CPUs and no dashboard.
        batch_size: texts per engine batch (None: by device, :func:`batch_for`).
        concurrency: Ray actors (each loads the model once).
        num_gpus: GPUs per Ray actor (0: CPU).
    """

    engine: str = "local"
    ray_address: str | None = None
    batch_size: int | None = None
    concurrency: int = 1
    num_gpus: float = 0.0

    def validate(self) -> None:
        if self.engine not in ENGINES:
            raise StoreError(f"Unknown engine '{self.engine}'; choose local or ray.")
        if self.batch_size is not None and self.batch_size < 1:
            raise StoreError("--batch-size must be at least 1.")
        if self.concurrency < 1:
            raise StoreError("--concurrency must be at least 1.")
        if self.num_gpus < 0:
            raise StoreError("--num-gpus cannot be negative.")

    def batch_for(self, gpu: bool) -> int:
        """Texts per engine batch: ``batch_size`` when given, else :data:`INDEX_BATCH_GPU` on a
        GPU and :data:`INDEX_BATCH_CPU` on the CPU."""
        return self.batch_size or (INDEX_BATCH_GPU if gpu else INDEX_BATCH_CPU)

    def check_device(self, choice: DeviceChoice) -> None:
        """On Ray, a device choice that the actors' GPUs (``num_gpus``) cannot meet, told here
        before any actor starts: an actor sees only the GPUs it asked Ray for.

        Raises:
            StoreError: one line saying which options to change.
        """
        if self.engine != "ray":
            return
        if self.num_gpus > 0:
            if choice.device == "cpu" or choice.device == "mps":
                raise StoreError(
                    f"--num-gpus {self.num_gpus:g} asks Ray for a CUDA GPU per actor, but "
                    f"--device is {choice.device}: give --device auto (or cuda), or --num-gpus 0."
                )
            if choice.device.startswith("cuda:") and choice.device != "cuda:0":
                raise StoreError(
                    f"--device {choice.device}: on Ray each actor sees the GPU it was given as "
                    "cuda:0; give --device auto (or cuda) and let Ray place the actors."
                )
        elif choice.device.startswith("cuda"):
            raise StoreError(
                f"--device {choice.device} on Ray needs --num-gpus (GPUs per actor, e.g. 1): "
                "an actor that asks for none sees no GPU."
            )
        elif choice.device == "auto" and choice.precision == "fp16":
            raise StoreError(
                "--precision fp16 on Ray needs --num-gpus (GPUs per actor): without a GPU the "
                "actors run on the CPU, in fp32."
            )


def embed_local(
    embedder: Embedder,
    texts: Sequence[str],
    batch_size: int,
    cache: EmbeddingCache | None = None,
    progress: Progress | None = None,
) -> Iterator[tuple[np.ndarray, np.ndarray, str]]:
    """Embed ``texts`` in process, ``batch_size`` texts (through ``cache``) at a time."""
    for lo in range(0, len(texts), batch_size):
        hi = min(len(texts), lo + batch_size)
        vectors = embed_cached(embedder, list(texts[lo:hi]), cache).vectors
        yield np.arange(lo, hi), vectors, placement_label(embedder)
        if progress:
            progress(hi, len(texts))


class _RayEmbed:
    """The callable class of ``map_batches``: the model is built once per actor, on the device
    the spec's choice resolves to in the actor (which names it in every batch it returns).

    An actor that cannot build its model for a reason the user can act on (a device it does
    not have, a model it cannot load) returns that sentence with each batch, for ``index`` to
    print as one line; Ray would report an error raised here as pages of both tracebacks."""

    def __init__(self, spec: EmbedderSpec) -> None:
        self.embedder: Embedder | None = None
        self.error = self.device = ""
        try:
            embedder = spec.build()
            embedder.load()
        except UserError as exc:
            self.error = user_message(exc)
            return
        self.embedder, self.device = embedder, placement_label(embedder)

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        ids = np.asarray(batch["id"])
        if self.embedder is None:
            vectors = np.zeros((len(ids), 1), dtype=np.float32)
        else:
            # the local engine's own path (no cache): the same costliest-first batches, so
            # both engines pad alike and return the same vectors
            vectors = embed_cached(self.embedder, [str(t) for t in batch["text"]], None).vectors
        return {
            "id": ids,
            "vector": vectors,
            "device": np.full(len(ids), self.device),
            "error": np.full(len(ids), self.error),
        }


REACH_SECONDS = 5.0
"""How long a cluster's address may take to answer before ``index`` says it cannot reach it."""


def check_reachable(address: str, seconds: float = REACH_SECONDS) -> None:
    """Fail fast on a cluster address nothing answers at: Ray itself retries an unreachable
    ``host:port`` for many minutes (20 connection attempts, each waiting on its own timeout).
    ``auto`` (the cluster this node belongs to) is left to Ray, which answers at once.

    Raises:
        StoreError: an address that is not ``auto``, ``host:port`` or ``ray://host:port``, or
            that refuses or does not answer a connection within ``seconds``.
    """
    if address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise StoreError(f"--ray-address '{address}' is not auto, HOST:PORT or ray://HOST:PORT.")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=seconds).close()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise StoreError(
            f"Cannot reach Ray at {address} ({reason}): is a cluster started there "
            "(ray start --head)?"
        ) from exc


@contextmanager
def ray_session(options: EngineOptions) -> Iterator[None]:
    """Ray for one run: the running Ray, else the cluster at ``options.ray_address``, else a
    local Ray (:data:`LOCAL_RAY_CPUS` CPUs, no dashboard), shut down at the end if started here.

    Raises:
        StoreError: Ray cannot be started or reached.
    """
    ray = extras.ray()
    if ray.is_initialized():
        yield
        return
    if options.ray_address:
        check_reachable(options.ray_address)
    quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # lancedb: forked workers
            if options.ray_address:
                ray.init(address=options.ray_address, **quiet)
            else:
                cpus = min(LOCAL_RAY_CPUS, os.cpu_count() or 1)
                ray.init(num_cpus=cpus, include_dashboard=False, **quiet)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise StoreError(f"Cannot start or reach Ray: {exc}") from exc
    try:
        yield
    finally:
        ray.shutdown()


def embed_ray(
    spec: EmbedderSpec,
    texts: Sequence[str],
    options: EngineOptions,
    progress: Progress | None = None,
) -> Iterator[tuple[np.ndarray, np.ndarray, str]]:
    """Embed ``texts`` with Ray Data: ``map_batches`` over :class:`_RayEmbed` actors, in a
    :func:`ray_session`; each actor asks for ``options.num_gpus`` GPUs and takes batches of
    the size for its device (:meth:`EngineOptions.batch_for`)."""
    ray = extras.ray()
    options.check_device(spec.device)
    batch_size = options.batch_for(options.num_gpus > 0)
    with ray_session(options):
        if options.num_gpus > 0 and not options.ray_address:
            _check_local_gpus(ray, options.num_gpus)
        ctx = ray.data.DataContext.get_current()
        ctx.enable_progress_bars = False
        ctx.print_on_execution_start = False
        n = len(texts)
        step = max(batch_size, -(-n // (4 * options.concurrency)))
        # from_items builds the blocks and their metadata in this process; from_arrow runs a
        # remote task per block for its metadata, 2-3.5 s of worker start-up in every run
        # (docs/scale.md)
        items = [{"id": i, "text": t} for i, t in enumerate(texts)]
        ds = ray.data.from_items(items, override_num_blocks=-(-n // step)).map_batches(
            _RayEmbed,
            fn_constructor_kwargs={"spec": spec},
            batch_size=batch_size,
            batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=options.concurrency),
            num_gpus=options.num_gpus or None,
        )
        done = 0
        for batch in ds.iter_batches(batch_size=None, batch_format="numpy"):
            failed = next((str(e) for e in batch["error"] if e), "")
            if failed:
                raise StoreError(f"A Ray actor could not embed: {failed}")
            ids = np.asarray(batch["id"], dtype=np.int64)
            where = "; ".join(sorted({str(d) for d in batch["device"]}))
            yield ids, np.asarray(batch["vector"], dtype=np.float32), where
            done += len(ids)
            if progress:
                progress(done, n)


def _check_local_gpus(ray, wanted: float) -> None:
    """A Ray on this machine without the GPUs each actor asks for would wait for them for ever
    (a cluster's autoscaler may add some; this machine will not).

    Raises:
        StoreError: one line naming the GPUs Ray sees.
    """
    have = ray.cluster_resources().get("GPU", 0)
    if have < wanted:
        raise StoreError(
            f"--num-gpus {wanted:g} asks for {wanted:g} GPU per actor, but the Ray on this "
            f"machine has {have:g}: give --num-gpus 0 (the CPU), or --ray-address of a cluster "
            "with GPUs."
        )
