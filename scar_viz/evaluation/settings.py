"""Settings as records: what a run ran on, and the settings file a verdict writes.

- :class:`RunSettings`: the document, its chunking, the embedder and the gate parameters travel
  together from the prepared document into an :class:`~scar_viz.evaluation.run.Evaluation`, an
  answer check and the JSON ``eval`` and ``answer`` write (:mod:`scar_viz.evaluation.run_json`).
- :class:`ChosenSettings`: what to run with — retriever, policy, k, r, λ, τ, μ, p and the
  fitted gate — as ``recommend --save`` writes it and other tools read it
  (:func:`load_settings`). The format (JSON, ``format`` ``scar-viz/settings``, version 1)::

      {"format": "scar-viz/settings", "version": 1,
       "retriever": "dense" | "bm25" | "hybrid", "k_rrf": 60.0,
       "policy": "topk" | "window1" | "scar" | "learned",
       "k": 4, "radius": 1,
       "lam": 0.5, "tau": 0.1, "mu": 0.0,     (numbers for scar, else null)
       "p": 0.05,                             (a number for learned, else null)
       "gate": {a learned-gate file's object} (for learned, else null),
       "chosen_on": {"document", "model", "chunking", "prepend", ...}}

  ``chosen_on`` says what the choice was made on (free-form, for a reader's warnings); every
  other key is read strictly: a missing or malformed field is one sentence.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from scar_viz.common.bounded_json import JsonInputError, read_json
from scar_viz.common.errors import SettingsError, UserError
from scar_viz.common.ranges import RANGES, Range
from scar_viz.pipeline import PreparedDoc
from scar_viz.retrieval import DEFAULT_K_RRF, DENSE, RETRIEVERS, Retriever
from scar_viz.scoring.learned.model import MAX_GATE_BYTES, GateFileError, LearnedGate
from scar_viz.scoring.params import DEFAULT_MU, DEFAULT_RADIUS, GateParams


@dataclass(frozen=True)
class RunSettings:
    """The setting of a run: document name, chunking label and chunk count, whether chunk
    texts were prepended with their heading, the embedder (``model`` its stable id,
    ``embedder`` its readable label), the gate parameters and the retriever
    (:mod:`scar_viz.retrieval`); for a corpus, ``documents`` lists its files' paths in corpus
    order (empty for a single document)."""

    document: str
    chunking: str
    n_chunks: int
    prepend: bool
    model: str
    embedder: str
    params: GateParams
    documents: tuple[str, ...] = ()
    retriever: Retriever = DENSE

    @classmethod
    def of(cls, prep: PreparedDoc, params: GateParams, retriever: Retriever = DENSE) -> RunSettings:
        """The setting of a run on ``prep`` with ``params`` (numbers made plain int/float)."""
        return cls(
            prep.document.name,
            prep.config.label,
            len(prep.chunks),
            prep.prepend,
            prep.embedder_id,
            prep.embedder_label,
            GateParams(
                int(params.k),
                float(params.lam),
                float(params.tau),
                int(params.radius),
                float(params.mu),
            ),
            prep.document.shown_paths,
            retriever,
        )

    def params_json(self, prepend: bool = False) -> dict[str, object]:
        """``{"k", "lam", "tau", "radius"}`` (and ``"mu"`` when μ > 0), with ``"prepend"`` when
        asked."""
        p = self.params
        out: dict[str, object] = {"k": p.k, "lam": p.lam, "tau": p.tau, "radius": p.radius}
        if p.mu:
            out["mu"] = p.mu
        return {**out, "prepend": self.prepend} if prepend else out

    def as_json(
        self, keys: Sequence[str], *, prepend: bool = False, **extra: object
    ) -> dict[str, object]:
        """The settings named by ``keys``, in that order, as JSON values.

        ``keys`` are field names (``params`` as :meth:`params_json`) or names given in ``extra``
        (a command's own settings, such as the answer model), so a command lists its header
        once, in the order it writes it. A retriever other than dense follows as
        ``"retriever"`` (:meth:`~scar_viz.retrieval.Retriever.as_json`); a dense run's header
        is as it always was.

        Raises:
            KeyError: for a key that is neither a setting nor in ``extra``.
        """
        values = {
            "document": self.document,
            "chunking": self.chunking,
            "n_chunks": self.n_chunks,
            "model": self.model,
            "embedder": self.embedder,
            "params": self.params_json(prepend),
            "documents": list(self.documents),
            **extra,
        }
        out = {key: values[key] for key in keys}
        if not self.retriever.dense:
            out["retriever"] = self.retriever.as_json()
        return out


SETTINGS_FORMAT = "scar-viz/settings"
SETTINGS_VERSION = 1
SETTINGS_POLICIES = ("topk", "window1", "scar", "learned")


MAX_SETTINGS_BYTES = 2 * MAX_GATE_BYTES
"""A settings file holds a setting and at most one gate; a larger one is refused unread."""


class SettingsFileError(UserError, ValueError):
    """A settings file that cannot be read: one sentence for the user."""


@dataclass(frozen=True)
class ChosenSettings:
    """What to run with (module docstring): ``lam``, ``tau``, ``mu`` for ``scar``; ``p`` and
    ``gate`` for ``learned``; None where a field does not apply."""

    retriever: str
    policy: str
    k: int
    radius: int
    lam: float | None
    tau: float | None
    mu: float | None
    p: float | None
    gate: LearnedGate | None = field(default=None, compare=False)
    k_rrf: float = DEFAULT_K_RRF
    chosen_on: Mapping[str, object] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.retriever not in RETRIEVERS:
            raise SettingsFileError(
                f"Unknown retriever '{self.retriever}'; use one of {', '.join(RETRIEVERS)}."
            )
        if self.policy not in SETTINGS_POLICIES:
            raise SettingsFileError(
                f"Unknown policy '{self.policy}'; use one of {', '.join(SETTINGS_POLICIES)}."
            )
        needs = {"scar": ("lam", "tau", "mu"), "learned": ("p",)}.get(self.policy, ())
        missing = [name for name in needs if getattr(self, name) is None]
        if missing:
            raise SettingsFileError(f"Policy {self.policy} needs {', '.join(missing)}.")
        if self.policy == "learned" and self.gate is None:
            raise SettingsFileError("Policy learned needs its gate.")
        if self.p is not None and not 0 < self.p < 1:
            raise SettingsFileError(f"p must lie strictly between 0 and 1; got {self.p:g}.")

    @property
    def params(self) -> GateParams:
        """k, r and (for SCAR) λ, τ, μ as :class:`GateParams` (defaults where not SCAR)."""
        d = GateParams()
        return GateParams(
            self.k,
            d.lam if self.lam is None else self.lam,
            d.tau if self.tau is None else self.tau,
            self.radius,
            DEFAULT_MU if self.mu is None else self.mu,
        )

    @property
    def retriever_setting(self) -> Retriever:
        return Retriever(self.retriever, self.k_rrf)

    def to_dict(self) -> dict[str, object]:
        return {
            "format": SETTINGS_FORMAT,
            "version": SETTINGS_VERSION,
            "retriever": self.retriever,
            "k_rrf": float(self.k_rrf),
            "policy": self.policy,
            "k": int(self.k),
            "radius": int(self.radius),
            "lam": self.lam,
            "tau": self.tau,
            "mu": self.mu,
            "p": self.p,
            "gate": None if self.gate is None else self.gate.to_dict(),
            "chosen_on": dict(self.chosen_on),
        }

    def to_json(self) -> str:
        """JSON text (floats written with ``repr``: they read back bit for bit)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: object) -> ChosenSettings:
        """Settings from :meth:`to_dict`'s shape.

        Raises:
            SettingsFileError: for anything else (one sentence).
        """
        if not isinstance(data, dict):
            raise SettingsFileError("A settings file must hold a JSON object.")
        if data.get("format") != SETTINGS_FORMAT:
            raise SettingsFileError(
                f"Not a scar-viz settings file (format {data.get('format')!r})."
            )
        if data.get("version") != SETTINGS_VERSION:
            raise SettingsFileError(
                f"Settings file version {data.get('version')!r}; this scar-viz reads version "
                f"{SETTINGS_VERSION}."
            )
        missing = [key for key in ("retriever", "policy", "k") if key not in data]
        if missing:
            raise SettingsFileError(f"The settings file lacks {', '.join(missing)}.")
        try:
            gate = None if data.get("gate") is None else LearnedGate.from_dict(data["gate"])
        except GateFileError as exc:
            raise SettingsFileError(f"The settings file's gate: {exc}") from None
        chosen_on = data.get("chosen_on") or {}
        if not isinstance(chosen_on, dict):
            raise SettingsFileError("The settings file's 'chosen_on' must be an object.")
        settings = cls(
            _text(data, "retriever"),
            _text(data, "policy"),
            _whole(data, "k"),
            _whole(data, "radius", DEFAULT_RADIUS),
            _real(data, "lam"),
            _real(data, "tau"),
            _real(data, "mu"),
            _real(data, "p"),
            gate,
            _real_or(data, "k_rrf", DEFAULT_K_RRF),
            chosen_on,
        )
        _check_ranges(settings)
        return settings

    @classmethod
    def from_json(cls, text: str | bytes) -> ChosenSettings:
        """The settings in ``text`` (read with :func:`~scar_viz.common.bounded_json.read_json`).

        Raises:
            SettingsFileError: not JSON, too large or nested too deep, or not a settings file.
        """
        try:
            data = read_json(text, max_bytes=MAX_SETTINGS_BYTES)
        except JsonInputError as exc:
            raise SettingsFileError(f"The settings file is {exc.reason}.") from None
        return cls.from_dict(data)

    def save(self, path: str | Path) -> Path:
        """Write :meth:`to_json` to ``path``.

        Raises:
            SettingsError: when the file cannot be written (one sentence).
        """
        path = Path(path)
        try:
            path.write_text(self.to_json(), encoding="utf-8")
        except OSError as exc:
            raise SettingsError(
                f"Cannot write the settings to '{path}': {exc.strerror or 'unwritable'}."
            ) from None
        return path


def load_settings(path: str | Path) -> ChosenSettings:
    """Read a settings file (:meth:`ChosenSettings.save`'s).

    Raises:
        SettingsFileError: when it is missing, unreadable or not a settings file.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "unreadable"
        raise SettingsFileError(f"Cannot read settings file '{path}': {reason}.") from None
    try:
        return ChosenSettings.from_json(text)
    except SettingsFileError as exc:
        raise SettingsFileError(f"'{path}': {exc}") from None


MAX_K = 1_000
"""Most chunks a settings file may retrieve (the command line's ``--k`` is not held to the
app's 20; a settings file is held to this, so a hostile one cannot ask for millions)."""
MAX_RADIUS = 16
"""Most neighbours a side a settings file may reach (``radius`` 10**9 ran over 120 s)."""


def _check_ranges(settings: ChosenSettings) -> None:
    """Hold a settings file's numbers to the ranges a link's are held to (:data:`RANGES`:
    λ, τ, μ, p, k_rrf), and k and the radius to :data:`MAX_K` and :data:`MAX_RADIUS`.

    Raises:
        SettingsFileError: the first number out of its range, and the range.
    """
    wide = {"k": Range("k", int, 1, MAX_K), "radius": Range("radius", int, 0, MAX_RADIUS)}
    values = {
        "k": settings.k,
        "radius": settings.radius,
        "lam": settings.lam,
        "tau": settings.tau,
        "mu": settings.mu,
        "p": settings.p,
        "rrf_k": settings.k_rrf,
    }
    for key, value in values.items():
        allowed = wide.get(key) or RANGES[key]
        if value is not None and not allowed.holds(value):
            raise SettingsFileError(
                f"The settings file's {allowed.describe(value)} is out of range."
            )


def _text(data: dict, key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise SettingsFileError(f"The settings file's '{key}' must be a string.")
    return value


def _whole(data: dict, key: str, default: int | None = None) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SettingsFileError(f"The settings file's '{key}' must be a whole number.")
    return value


def _real_or(data: dict, key: str, default: float) -> float:
    value = _real(data, key)
    return default if value is None else value


def _real(data: dict, key: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise SettingsFileError(f"The settings file's '{key}' must be a number or null.")
    return float(value)
