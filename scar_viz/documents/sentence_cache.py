"""Sentence spans on disk, keyed by content: a document is split into sentences once, not once
per process (pysbd takes seconds on a long document; QASC and the sentence window need it).

The key is a digest of the text, the files' ranges, the splitter, the longest sentence
and the rules' version; the value is the spans as int64 pairs. :func:`cached_sentence_spans`
also seeds the in-process memo of :mod:`scar_viz.documents.sentences`, so the policies that
split the document afterwards find it split.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from scar_viz.common.spans import Span
from scar_viz.documents.sentences import DEFAULT_MAX_CHARS, part_sentence_spans, remember
from scar_viz.runtime.sqlite_cache import SqliteCache

SPLIT_RULES = 2
"""The splitting rules' version, part of every key: 2 since text in 。！？ goes by pysbd's
Japanese rules (spans stored by the rules before must not come back)."""

_SCHEMA = "CREATE TABLE IF NOT EXISTS spans (key TEXT PRIMARY KEY, data BLOB NOT NULL)"


class SentenceSpanCache(SqliteCache):
    """Sentence spans per content key in ``sentences.sqlite`` of the cache folder."""

    def __init__(self, path: str | Path | None = None, degrade: bool = False) -> None:
        super().__init__(path, "sentences.sqlite", _SCHEMA, degrade)

    def get(self, key: str) -> tuple[Span, ...] | None:
        """The spans stored under ``key``, or None."""
        row = self._run(
            lambda db: db.execute("SELECT data FROM spans WHERE key = ?", (key,)).fetchone(), None
        )
        if row is None:
            return None
        pairs = np.frombuffer(row[0], dtype=np.int64).reshape(-1, 2)
        return tuple((int(a), int(b)) for a, b in pairs)

    def put(self, key: str, spans: tuple[Span, ...]) -> None:
        """Store ``spans`` under ``key`` (replacing what was there)."""
        data = np.asarray(spans, dtype=np.int64).reshape(-1, 2).tobytes()
        self._run(
            lambda db: db.execute(
                "INSERT OR REPLACE INTO spans (key, data) VALUES (?, ?)", (key, data)
            ),
            None,
        )


def spans_key(text: str, parts: tuple[Span, ...], method: str, max_chars: int) -> str:
    """The content key of a split: the text's digest, the files' ranges, the settings and the
    rules' version (:data:`SPLIT_RULES`)."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    layout = ",".join(f"{a}-{b}" for a, b in parts)
    return f"{digest}|{layout}|{method}|{max_chars}|r{SPLIT_RULES}"


def cached_sentence_spans(
    text: str,
    cache: SentenceSpanCache | None,
    parts: tuple[Span, ...],
    method: str = "pysbd",
    max_chars: int = DEFAULT_MAX_CHARS,
) -> tuple[Span, ...]:
    """:func:`~scar_viz.documents.sentences.part_sentence_spans` of ``text`` cut at
    ``parts`` (a document's :attr:`~scar_viz.documents.reading.Document.part_bounds`), read
    from ``cache`` when it holds this content, else split and stored there; either way the
    in-process memo holds them afterwards."""
    key = spans_key(text, tuple(parts), method, max_chars)
    spans = cache.get(key) if cache is not None else None
    if spans is not None:
        remember(text, spans, tuple(parts), method, max_chars)
        return spans
    spans = part_sentence_spans(text, tuple(parts), method, max_chars)
    if cache is not None:
        cache.put(key, spans)
    return spans
