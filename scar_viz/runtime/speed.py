"""How fast each embedder has encoded text in this process (and the sentence splitter split
it: :func:`~scar_viz.documents.sentences.split_speed_key`), and what a batch of texts would
cost at that speed.

:func:`~scar_viz.embeddings.cache.embed_cached` reports every call that encoded something
(:func:`record`); a page asks :func:`estimate` before it offers a costly step, so the cost it
states is this machine's, under its present load. Characters are the measure: a batch costs
the model about its tokens, and characters follow tokens far more closely than the number of
texts (a sentence is a fifth of a chunk). Only calls of at least :data:`MIN_CHARS` characters
count; a single short query is mostly overhead and would overstate the cost.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

MIN_CHARS = 2_000
"""The smallest encode (in characters) whose speed is recorded."""

_lock = threading.Lock()
_speeds: dict[str, tuple[int, float]] = {}  # model id -> (characters, seconds), summed


@dataclass(frozen=True)
class Estimate:
    """The cost of embedding ``texts`` texts of ``chars`` characters in all: ``seconds`` at
    the speed measured in this process (None before one was measured)."""

    texts: int
    chars: int
    seconds: float | None


def record(model_id: str, chars: int, seconds: float) -> None:
    """Count an encode of ``chars`` characters that took ``seconds`` for ``model_id``."""
    if chars < MIN_CHARS or seconds <= 0:
        return
    with _lock:
        done, took = _speeds.get(model_id, (0, 0.0))
        _speeds[model_id] = (done + chars, took + seconds)


def chars_per_second(model_id: str) -> float | None:
    """The measured speed of ``model_id`` in this process (characters a second), or None."""
    with _lock:
        done, took = _speeds.get(model_id, (0, 0.0))
    return done / took if took > 0 else None


def estimate(model_id: str, texts: list[str]) -> Estimate:
    """What embedding ``texts`` would cost ``model_id`` here (see :class:`Estimate`)."""
    chars = sum(len(t) for t in texts)
    speed = chars_per_second(model_id)
    return Estimate(
        len(texts), chars, chars / speed if speed and texts else (0.0 if not texts else None)
    )


def forget() -> None:
    """Drop every measurement (tests)."""
    with _lock:
        _speeds.clear()
