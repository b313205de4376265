"""The policy interface: inputs shared by every policy, the result type, the registry."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from scar_viz.chunking.chunkers import Chunk
from scar_viz.chunking.tokens import count_tokens
from scar_viz.documents.reading import Document
from scar_viz.errors import SettingsError, UserError, user_message
from scar_viz.scoring.params import DEFAULT_PARAMS, GateParams

SEPARATOR = "\n\n"
Span = tuple[int, int]


@dataclass(frozen=True)
class QueryInputs:
    """Everything a policy may use for one query on one prepared document.

    ``unit`` holds the unit-norm chunk embeddings (N, d) and ``sims`` = cos(q, c_i) (N,).
    ``params`` holds k, λ, τ and r. ``embed`` embeds extra texts with the same model (QASC's
    sentences); it may be None.
    """

    document: Document
    chunks: Sequence[Chunk]
    unit: np.ndarray
    query: str
    query_vec: np.ndarray
    sims: np.ndarray
    params: GateParams = DEFAULT_PARAMS
    embed: Callable[[list[str]], np.ndarray] | None = field(default=None, repr=False)


@dataclass(frozen=True)
class PolicyResult:
    """What one policy sends to the language model for one query, and what it costs.

    ``spans`` are merged, sorted (start, end) character ranges of the document; ``context`` is
    the text as assembled (chunk texts joined for chunk policies, span texts for span policies);
    ``tokens`` counts ``context`` with :mod:`scar_viz.chunking.tokens`; ``seconds`` is the policy's
    own query-time work (embedding the chunks is shared and not counted).
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
_KNOBS: dict[str, tuple[str, ...]] = {}


def register(name: str, knobs: Sequence[str] = ()) -> Callable[[Policy], Policy]:
    """Decorator: add a policy ``fn(inputs, **knobs) -> PolicyResult`` to :data:`POLICIES`.

    ``knobs`` names the keyword knobs of a policy that takes ``**knobs`` (QASC's come from
    :class:`~scar_viz.chunking.qasc.QascParams`); otherwise they are read off its signature.
    """

    def wrap(fn: Policy) -> Policy:
        POLICIES[name] = fn
        params = list(inspect.signature(fn).parameters.values())[1:]
        named = [p.name for p in params if p.kind is p.KEYWORD_ONLY or p.default is not p.empty]
        _KNOBS[name] = (*knobs, *named)
        return fn

    return wrap


def policy_knobs(name: str) -> tuple[str, ...]:
    """The keyword knobs policy ``name`` accepts besides its inputs (e.g. ``w`` for window)."""
    return _KNOBS[name]


def run_policy(name: str, inputs: QueryInputs, **params: object) -> PolicyResult:
    """Run policy ``name``; raises ValueError for an unknown policy or a knob it does not take."""
    if name not in POLICIES:
        raise SettingsError(f"Unknown policy '{name}'; choose one of {sorted(POLICIES)}.")
    knobs = policy_knobs(name)
    unknown = sorted(set(params) - set(knobs))
    if unknown:
        takes = ", ".join(knobs) if knobs else "no options"
        raise SettingsError(
            f"Policy '{name}' does not take {', '.join(unknown)}; it takes {takes}."
        )
    return POLICIES[name](inputs, **params)


def run_all(
    inputs: QueryInputs, settings: Mapping[str, Mapping[str, object]]
) -> dict[str, PolicyResult | str]:
    """Run every policy in ``settings`` (name -> knobs) on the same inputs, in order.

    A policy that fails with a :class:`~scar_viz.errors.UserError` (e.g. a reranker that cannot
    be loaded offline) gets its message instead of a result; the others still run.
    """
    out: dict[str, PolicyResult | str] = {}
    for name, knobs in settings.items():
        try:
            out[name] = run_policy(name, inputs, **dict(knobs))
        except UserError as exc:
            out[name] = user_message(exc)
    return out


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


def span_total(spans: Sequence[Span]) -> int:
    """Characters covered by ``spans`` (overlaps counted once)."""
    return sum(e - s for s, e in merge_spans(spans))


def intersect_spans(a: Sequence[Span], b: Sequence[Span]) -> tuple[Span, ...]:
    """Character ranges covered by both ``a`` and ``b``, merged and sorted."""
    a, b = merge_spans(a), merge_spans(b)
    out: list[Span] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return merge_spans(out)


def subtract_spans(a: Sequence[Span], b: Sequence[Span]) -> tuple[Span, ...]:
    """Character ranges covered by ``a`` and not by ``b``, merged and sorted."""
    out: list[Span] = []
    b = merge_spans(b)
    j = 0
    for s, e in merge_spans(a):
        while j < len(b) and b[j][1] <= s:
            j += 1
        pos, k = s, j
        while k < len(b) and b[k][0] < e:
            if b[k][0] > pos:
                out.append((pos, b[k][0]))
            pos = max(pos, b[k][1])
            k += 1
        if pos < e:
            out.append((pos, e))
    return merge_spans(out)


def jaccard(a: Sequence[Span], b: Sequence[Span]) -> float:
    """Jaccard overlap over characters: |A ∩ B| / |A ∪ B| (1.0 when both are empty)."""
    union = span_total([*a, *b])
    return 1.0 if union == 0 else span_total(intersect_spans(a, b)) / union


def comparison_rows(
    results: Mapping[str, PolicyResult | str], reference: str = "scar"
) -> list[dict[str, object]]:
    """One table row per policy: spans, chunks, characters, tokens, ms, Jaccard vs ``reference``.

    ``characters`` and ``tokens`` count the assembled context (tokens: ``o200k_base``);
    ``jaccard`` is over document characters, blank when the reference failed; a failed
    policy's row carries its message.
    """
    ref = results.get(reference)
    ref_spans = ref.spans if isinstance(ref, PolicyResult) else None
    rows: list[dict[str, object]] = []
    for name, res in results.items():
        if not isinstance(res, PolicyResult):
            rows.append(
                {
                    "policy": name,
                    "spans": None,
                    "chunks": None,
                    "characters": None,
                    "tokens": None,
                    "ms": None,
                    f"jaccard vs {reference}": None,
                    "notes": f"not available: {res}",
                }
            )
            continue
        rows.append(
            {
                "policy": res.name,
                "spans": len(res.spans),
                "chunks": None if res.chunk_ids is None else len(res.chunk_ids),
                "characters": res.chars,
                "tokens": res.tokens,
                "ms": round(res.seconds * 1000, 2),
                f"jaccard vs {reference}": None
                if ref_spans is None
                else jaccard(res.spans, ref_spans),
                "notes": " ".join(res.notes),
            }
        )
    return rows


def spans_of_chunks(chunks: Sequence[Chunk], ids: Sequence[int]) -> tuple[tuple[int, int], ...]:
    return merge_spans([(chunks[i].start, chunks[i].end) for i in ids])


def _result(
    name: str,
    spans: tuple[Span, ...],
    ids: tuple[int, ...] | None,
    context: str,
    started: float,
    notes: Sequence[str],
    detail: object,
) -> PolicyResult:
    seconds = time.perf_counter() - started
    tokens = count_tokens(context)
    return PolicyResult(
        name, spans, ids, context, len(context), tokens, seconds, tuple(notes), detail
    )


def chunk_result(
    name: str,
    inputs: QueryInputs,
    ids: Sequence[int],
    started: float,
    notes: Sequence[str] = (),
    detail: object = None,
) -> PolicyResult:
    """A result from chunk indices: context = chunk texts in document order."""
    ordered = tuple(sorted(set(int(i) for i in ids)))
    context = SEPARATOR.join(inputs.chunks[i].text for i in ordered)
    spans = spans_of_chunks(inputs.chunks, ordered)
    return _result(name, spans, ordered, context, started, notes, detail)


def span_result(
    name: str,
    inputs: QueryInputs,
    spans: Sequence[tuple[int, int]],
    started: float,
    chunk_ids: Sequence[int] | None = None,
    notes: Sequence[str] = (),
    detail: object = None,
) -> PolicyResult:
    """A result from character spans: context = span texts in document order."""
    merged = merge_spans(spans)
    text = inputs.document.text
    context = SEPARATOR.join(text[s:e] for s, e in merged)
    ids = None if chunk_ids is None else tuple(sorted(set(int(i) for i in chunk_ids)))
    return _result(name, merged, ids, context, started, notes, detail)
