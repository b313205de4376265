"""The on-disk embedding cache, and embedding through it."""

from __future__ import annotations

import hashlib
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scar_viz.common.vectors import normalize
from scar_viz.embeddings.base import Embedder, EmbeddingError, Progress, batches
from scar_viz.runtime import speed
from scar_viz.runtime.cancel import ShouldStop, check
from scar_viz.runtime.sqlite_cache import SqliteCache


def text_key(text: str) -> str:
    """The cache key of a text: sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def vectors_id(embedder: Embedder) -> str:
    """The cache's model key for ``embedder``'s vectors: its ``vectors_id`` where it has one (a
    transformer in half precision keeps its vectors apart from fp32 ones), else its
    ``model_id``."""
    return getattr(embedder, "vectors_id", None) or embedder.model_id


MAX_MB_ENV = "SCAR_VIZ_EMBEDDING_CACHE_MB"
"""The environment variable that sets the embedding cache's size cap, in MiB."""
DEFAULT_MAX_BYTES = 1024 * 2**20
"""The embedding cache's size cap (1 GiB) unless :data:`MAX_MB_ENV` sets another."""
_PRUNED_TO = 0.9
"""A cache over its cap is pruned to this share of it, so pruning is not done at every write."""


def max_cache_bytes() -> int:
    """The size cap in force: :data:`MAX_MB_ENV` in MiB when it holds a whole number over 0,
    else :data:`DEFAULT_MAX_BYTES`."""
    raw = os.environ.get(MAX_MB_ENV, "").strip()
    return int(raw) * 2**20 if raw.isdecimal() and 0 < int(raw) < 2**40 else DEFAULT_MAX_BYTES


class EmbeddingCache(SqliteCache):
    """Vectors on disk (SQLite), keyed by (the model's :func:`vectors_id`, sha256 of the exact
    text embedded), held to ``max_bytes`` (default :func:`max_cache_bytes`): each row keeps
    when it was last written or read, and a write that takes the rows past the cap deletes the
    least recently used until they fill 90% of it. The file stops growing there: SQLite reuses
    the pages freed."""

    def __init__(
        self, path: str | Path | None = None, degrade: bool = False, max_bytes: int | None = None
    ) -> None:
        super().__init__(
            path,
            "embeddings.sqlite",
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key TEXT NOT NULL, "
            "dim INTEGER NOT NULL, vec BLOB NOT NULL, used INTEGER NOT NULL DEFAULT 0, "
            "PRIMARY KEY (model, key))",
            degrade,
        )
        self.max_bytes = max_cache_bytes() if max_bytes is None else max_bytes
        self._run(_add_used_column, None)

    def held_bytes(self) -> int:
        """Bytes of the file its rows take (pages in use, the free ones left out)."""
        return self._run(_live_bytes, 0)

    def get_many(self, model_id: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        unique = list(dict.fromkeys(keys))

        def read(db) -> dict[str, np.ndarray]:
            found: dict[str, np.ndarray] = {}
            for lo, hi in batches(len(unique), 500):
                part = unique[lo:hi]
                marks = ",".join("?" * len(part))
                rows = db.execute(
                    f"SELECT key, dim, vec FROM vectors WHERE model = ? AND key IN ({marks})",
                    [model_id, *part],
                )
                for key, dim, blob in rows:
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape[0] == dim:
                        found[key] = vec
                db.execute(
                    f"UPDATE vectors SET used = ? WHERE model = ? AND key IN ({marks})",
                    [_now(), model_id, *part],
                )
            return found

        return self._run(read, {})

    def put_many(self, model_id: str, items: dict[str, np.ndarray]) -> None:
        now = _now()
        rows = [
            (model_id, k, int(v.shape[0]), np.asarray(v, np.float32).tobytes(), now)
            for k, v in items.items()
        ]

        def write(db) -> None:
            db.executemany(
                "INSERT OR REPLACE INTO vectors (model, key, dim, vec, used) "
                "VALUES (?, ?, ?, ?, ?)",
                rows,
            )
            self._prune(db)

        self._run(write, None)

    def _prune(self, db) -> None:
        """Delete the least recently used rows while the rows take more than ``max_bytes``."""
        live = _live_bytes(db)
        if live <= self.max_bytes:
            return
        count = db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
        drop = math.ceil((live - _PRUNED_TO * self.max_bytes) / max(live / max(count, 1), 1))
        db.execute(
            "DELETE FROM vectors WHERE rowid IN "
            "(SELECT rowid FROM vectors ORDER BY used, rowid LIMIT ?)",
            [min(drop, count)],
        )

    def count(self, model_id: str | None = None) -> int:
        if model_id is None:
            return self._run(lambda db: db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0], 0)
        return self._run(
            lambda db: db.execute(
                "SELECT COUNT(*) FROM vectors WHERE model = ?", [model_id]
            ).fetchone()[0],
            0,
        )


def _now() -> int:
    return time.time_ns() // 1000


def _live_bytes(db) -> int:
    page = db.execute("PRAGMA page_size").fetchone()[0]
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    free = db.execute("PRAGMA freelist_count").fetchone()[0]
    return (pages - free) * page


def _add_used_column(db) -> None:
    """A cache file made before rows kept their last use: the column added (0: oldest)."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(vectors)")}
    if "used" not in columns:
        db.execute("ALTER TABLE vectors ADD COLUMN used INTEGER NOT NULL DEFAULT 0")


@dataclass(frozen=True)
class EmbedResult:
    vectors: np.ndarray
    n_encoded: int
    n_cached: int
    seconds: float


def embed_cached(
    embedder: Embedder,
    texts: Sequence[str],
    cache: EmbeddingCache | None,
    progress: Progress | None = None,
    should_stop: ShouldStop | None = None,
) -> EmbedResult:
    """Embed ``texts``, encoding only those not yet in ``cache`` for this model (and
    precision: :func:`vectors_id`); ``should_stop`` is asked before each batch
    (:mod:`scar_viz.runtime.cancel`).

    Raises:
        EmbeddingError: from the embedder; vectors already encoded in this call are kept.
        Cancelled: ``should_stop`` said so (the batches encoded so far are in the cache).
    """
    t0 = time.perf_counter()
    keys = [text_key(t) for t in texts]
    model_key = vectors_id(embedder) if cache else ""
    found = cache.get_many(model_key, keys) if cache else {}
    todo = list(dict.fromkeys(k for k in keys if k not in found))
    text_of = dict(zip(keys, texts, strict=True))
    n_cached = len(texts) - sum(1 for k in keys if k not in found)
    # longest first, by what each text costs the model (tokens where the embedder can count
    # them, else characters, as SentenceTransformer.encode orders one call): a batch is padded
    # to its longest member, so batches of like length pad least
    todo = _costliest_first(embedder, todo, text_of)
    encoded, encoding = 0, 0.0  # characters encoded, seconds spent in the model
    if todo:
        step = max(32, len(todo) // 20, _gpu_batch(embedder))
        for lo, hi in batches(len(todo), step):
            check(should_stop)
            part = todo[lo:hi]
            t_batch = time.perf_counter()
            vecs = embedder.embed([text_of[k] for k in part])
            encoded += sum(len(text_of[k]) for k in part)
            encoding += time.perf_counter() - t_batch
            if vecs.shape[0] != len(part):
                raise EmbeddingError("The model returned a wrong number of embeddings.")
            fresh = dict(zip(part, vecs, strict=True))
            dims = {v.shape[0] for v in found.values()} | {v.shape[0] for v in fresh.values()}
            if len(dims) > 1:
                raise EmbeddingError(
                    f"Embeddings of different sizes for one model: {sorted(dims)}."
                )
            if cache:
                cache.put_many(model_key, fresh)
            found.update(fresh)
            if progress:
                progress(n_cached + hi, len(texts))
        speed.record(embedder.model_id, encoded, encoding)
    elif progress:
        progress(len(texts), len(texts))
    empty = np.zeros((0, 0), dtype=np.float32)
    vectors = np.stack([found[k] for k in keys]) if texts else empty
    return EmbedResult(
        normalize(vectors, np.float32), len(todo), n_cached, time.perf_counter() - t0
    )


def _costliest_first(embedder: Embedder, todo: list[str], text_of: dict[str, str]) -> list[str]:
    """``todo`` (text digests) ordered by the embedder's :meth:`lengths` of their texts, longest
    first, ties in their given order; by characters for an embedder without ``lengths``."""
    texts = [text_of[k] for k in todo]
    measure = getattr(embedder, "lengths", None)
    sizes = measure(texts) if callable(measure) and texts else [len(t) for t in texts]
    order = sorted(range(len(todo)), key=lambda i: -sizes[i])
    return [todo[i] for i in order]


def _gpu_batch(embedder: Embedder) -> int:
    """The model's batch size when it runs on a GPU (each call then fills at least one forward
    pass), else 0."""
    placement = getattr(embedder, "placement", None)
    return int(getattr(embedder, "batch_size", 0)) if placement and placement.gpu else 0
