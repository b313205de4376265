"""The policy interface: inputs shared by every policy, the result type, the registry."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from scar_viz.chunking import Chunk
from scar_viz.documents import Document
from scar_viz.tokens import count_tokens

SEPARATOR = "\n\n"


@dataclass(frozen=True)
class QueryInputs:
    """Everything a policy may use for one query on one prepared document.

    ``unit`` holds the unit-norm chunk embeddings (N, d) and ``sims`` = cos(q, c_i) (N,).
    ``embed`` embeds extra texts with the same model (QASC's sentences); it may be None.
    """

    document: Document
    chunks: Sequence[Chunk]
    unit: np.ndarray
    query: str
    query_vec: np.ndarray
    sims: np.ndarray
    k: int = 5
    lam: float = 0.5
    tau: float = 0.1
    radius: int = 1
    embed: Callable[[list[str]], np.ndarray] | None = field(default=None, repr=False)


@dataclass(frozen=True)
class PolicyResult:
    """What one policy sends to the language model for one query, and what it costs.

    ``spans`` are merged, sorted (start, end) character ranges of the document; ``context`` is
    the text as assembled (chunk texts joined for chunk policies, span texts for span policies);
    ``tokens`` counts ``context`` with :mod:`scar_viz.tokens`; ``seconds`` is the policy's own
    query-time work (embedding the chunks is shared and not counted).
    """

    name: str
    spans: tuple[tuple[int, int], ...]
    chunk_ids: tuple[int, ...] | None
    context: str
    chars: int
    tokens: int
    seconds: float
    notes: tuple[str, ...] = ()
    detail: object = field(default=None, repr=False, compare=False)


Policy = Callable[..., PolicyResult]
POLICIES: dict[str, Policy] = {}


def register(name: str) -> Callable[[Policy], Policy]:
    def wrap(fn: Policy) -> Policy:
        POLICIES[name] = fn
        return fn

    return wrap


def run_policy(name: str, inputs: QueryInputs, **params: object) -> PolicyResult:
    if name not in POLICIES:
        raise ValueError(f"Unknown policy '{name}'; choose one of {sorted(POLICIES)}.")
    return POLICIES[name](inputs, **params)


def merge_spans(spans: Sequence[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """Sorted union of character ranges; touching or overlapping ranges merge."""
    merged: list[list[int]] = []
    for s, e in sorted(spans):
        if e <= s:
            continue
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return tuple((s, e) for s, e in merged)


def spans_of_chunks(chunks: Sequence[Chunk], ids: Sequence[int]) -> tuple[tuple[int, int], ...]:
    return merge_spans([(chunks[i].start, chunks[i].end) for i in ids])


def chunk_result(name: str, inputs: QueryInputs, ids: Sequence[int], started: float,
                 notes: Sequence[str] = (), detail: object = None) -> PolicyResult:
    """A result from chunk indices: context = chunk texts in document order."""
    ordered = tuple(sorted(set(int(i) for i in ids)))
    context = SEPARATOR.join(inputs.chunks[i].text for i in ordered)
    seconds = time.perf_counter() - started
    return PolicyResult(name, spans_of_chunks(inputs.chunks, ordered), ordered, context,
                        len(context), count_tokens(context), seconds, tuple(notes), detail)


def span_result(name: str, inputs: QueryInputs, spans: Sequence[tuple[int, int]],
                started: float, chunk_ids: Sequence[int] | None = None,
                notes: Sequence[str] = (), detail: object = None) -> PolicyResult:
    """A result from character spans: context = span texts in document order."""
    merged = merge_spans(spans)
    text = inputs.document.text
    context = SEPARATOR.join(text[s:e] for s, e in merged)
    seconds = time.perf_counter() - started
    ids = None if chunk_ids is None else tuple(sorted(set(int(i) for i in chunk_ids)))
    return PolicyResult(name, merged, ids, context, len(context), count_tokens(context),
                        seconds, tuple(notes), detail)
