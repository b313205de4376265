"""RSE, relevant segment extraction (dsRAG, MIT), docs/method.md §7; our own code from its
published description.

Each chunk c_i gets a value from its rank and its relevance in [0, 1]:

    v_i = exp(−rank_i / decay) · relevance_i − penalty            (rank_i = 0 for the best)

A segment is a run of consecutive chunks i … j; its value is Σ_{t=i}^{j} v_t. Greedily take
the segment with the largest value such that it starts and ends on a chunk with v ≥ 0, is at
most ``max_length`` chunks long, overlaps no segment already taken, and keeps the total within
``overall_max_length`` chunks; stop when the best remaining value is below ``minimum_value``.
Preset "balanced": max_length 15, overall_max_length 30, minimum_value 0.5, penalty 0.18,
decay 30. There is no boundary term: the constant penalty plays τ's part, and k is not used.
In a corpus a segment lies inside one file: dsRAG likewise drops a segment that straddles a
document split.

Relevance. With cosine only (the default) it is the min–max rescale over the document's chunks,

    relevance_i = (cos(q, c_i) − min_j cos(q, c_j)) / (max_j cos(q, c_j) − min_j cos(q, c_j))

(all 0 when every chunk scores the same), so the best chunk has relevance 1 whatever the
model's similarity scale. With a cross-encoder (``reranker``), the ``n_candidates`` best
chunks by cosine (default 50) are scored and relevance_i = σ(logit_i) = 1 / (1 + e^−logit_i),
ranks follow that score, and every other chunk gets relevance 0 (dsRAG likewise only values
the reranked results).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from scar_viz.common.edges import chunk_files
from scar_viz.policies.base import PolicyResult, QueryInputs, chunk_result, policy_entry

PRESETS: dict[str, dict[str, float]] = {
    "balanced": {
        "max_length": 15,
        "overall_max_length": 30,
        "minimum_value": 0.5,
        "penalty": 0.18,
        "decay": 30,
    },
}
"""dsRAG's "balanced" RSE preset."""

DEFAULT_RERANK_CANDIDATES = 50
_TIE = 1e-9
"""Segment values closer than this are ties (prefix sums differ from direct sums by ulps)."""


@dataclass(frozen=True)
class Segment:
    """Chunks ``start`` … ``end − 1`` and their summed value."""

    start: int
    end: int
    value: float


@dataclass(frozen=True)
class RseDetail:
    relevance: tuple[float, ...]
    values: tuple[float, ...]
    segments: tuple[Segment, ...]
    source: str


def minmax_relevance(sims: np.ndarray) -> np.ndarray:
    """relevance_i = (s_i − min s) / (max s − min s), all 0 when s is constant; shape (N,)."""
    s = np.asarray(sims, dtype=float)
    if s.size == 0:
        return s
    lo, hi = float(s.min()), float(s.max())
    return np.zeros_like(s) if hi - lo <= 1e-12 else (s - lo) / (hi - lo)


def ranks_of(scores: np.ndarray) -> np.ndarray:
    """rank_i = position of chunk i when sorted by score, best first (0-based; ties: lower
    index first); shape (N,). Scores are compared at 12 decimals, so two that differ only by
    rounding error tie (a cosine of 0 is −2e-18 under one BLAS kernel and 0 under another)."""
    order = np.argsort(-np.round(np.asarray(scores, dtype=float), 12), kind="stable")
    ranks = np.empty(len(order), dtype=float)
    ranks[order] = np.arange(len(order))
    return ranks


def chunk_values(
    relevance: np.ndarray, ranks: np.ndarray, decay: float, penalty: float
) -> np.ndarray:
    """v_i = exp(−rank_i / decay) · relevance_i − penalty, shape (N,)."""
    if decay <= 0:
        raise ValueError("The RSE decay must be above 0.")
    return np.exp(-np.asarray(ranks, float) / decay) * np.asarray(relevance, float) - penalty


def best_segments(
    values: np.ndarray,
    max_length: int,
    overall_max_length: int,
    minimum_value: float,
    *,
    doc_of: np.ndarray,
) -> tuple[Segment, ...]:
    """Greedy non-overlapping maximum-sum segments (see the module docstring), in the order
    taken. Ties go to the earlier start, then the shorter segment. With ``doc_of`` (the file
    of each chunk in a corpus, :mod:`scar_viz.common.edges`) a segment never spans two files.

    Raises:
        ValueError: when a length is below 1.
    """
    if max_length < 1 or overall_max_length < 1:
        raise ValueError("The RSE segment lengths must be at least 1 chunk.")
    v = np.asarray(values, dtype=float)
    n = len(v)
    prefix = np.concatenate([[0.0], np.cumsum(v)])
    taken = np.zeros(n, dtype=bool)
    files = chunk_files(doc_of, n)
    starts = np.arange(n)
    segments: list[Segment] = []
    total = 0
    while total < overall_max_length:
        best: tuple[float, int, int] | None = None
        longest = min(max_length, overall_max_length - total)
        # blocked[s] = True when chunk s is taken: a segment may not contain any taken chunk
        blocked = np.concatenate([[0], np.cumsum(taken)])
        for length in range(1, longest + 1):
            ends = starts + length
            ok = ends <= n
            if not ok.any():
                break
            s, e = starts[ok], ends[ok]
            sums = prefix[e] - prefix[s]
            valid = (v[s] >= 0) & (v[e - 1] >= 0) & (blocked[e] - blocked[s] == 0)
            valid &= files[s] == files[e - 1]
            if not valid.any():
                continue
            cand = np.where(valid, sums, -np.inf)
            top = float(cand.max())
            j = int(np.flatnonzero(cand >= top - _TIE)[0])  # ties: the earliest start
            if (
                best is None
                or top > best[0] + _TIE
                or (abs(top - best[0]) <= _TIE and int(s[j]) < best[1])
            ):
                best = (float(cand[j]), int(s[j]), int(e[j]))
        if best is None or best[0] < minimum_value:
            break
        value, lo, hi = best
        segments.append(Segment(lo, hi, value))
        taken[lo:hi] = True
        total += hi - lo
    return tuple(segments)


def _rerank_relevance(
    inputs: QueryInputs, reranker: str, n_candidates: int, path: str = ""
) -> tuple[np.ndarray, np.ndarray]:
    import torch

    from scar_viz.policies.rerank import RerankerError, load_reranker

    model = load_reranker(reranker, path)
    cands = inputs.top(max(1, int(n_candidates)))
    pairs = [(inputs.query, inputs.chunks[i].text) for i in cands]
    try:
        logits = np.asarray(
            model.predict(pairs, activation_fn=torch.nn.Identity(), show_progress_bar=False),
            dtype=float,
        ).reshape(len(pairs), -1)[:, -1]
    except Exception as exc:  # tokenizer or model errors from a user-supplied folder
        raise RerankerError(f"The reranker '{reranker}' failed ({type(exc).__name__}).") from exc
    relevance = np.zeros(len(inputs.chunks))
    relevance[cands] = 1.0 / (1.0 + np.exp(-logits))
    score = np.full(len(inputs.chunks), -np.inf)
    score[cands] = logits
    return relevance, ranks_of(score)


def rse_policy(
    inputs: QueryInputs,
    preset: str = "balanced",
    max_length: int | None = None,
    overall_max_length: int | None = None,
    minimum_value: float | None = None,
    penalty: float | None = None,
    decay_rate: float | None = None,
    reranker: str = "",
    n_candidates: int | None = None,
    reranker_path: str = "",
) -> PolicyResult:
    """RSE over the chunks; knobs left None come from ``preset``; a ``reranker`` (name or
    folder) switches relevance to the cross-encoder's σ(logit), loaded from ``reranker_path``
    when the caller resolved one. ``detail`` is an RseDetail.

    Raises:
        ValueError: for an unknown preset or out-of-range knobs.
        RerankerError: when the reranker cannot be loaded.
    """
    t0 = time.perf_counter()
    if preset not in PRESETS:
        raise ValueError(f"Unknown RSE preset '{preset}'; choose from {', '.join(PRESETS)}.")
    p = PRESETS[preset]
    pick = {
        "max_length": max_length,
        "overall_max_length": overall_max_length,
        "minimum_value": minimum_value,
        "penalty": penalty,
        "decay": decay_rate,
    }
    knobs = {k: (p[k] if v is None else v) for k, v in pick.items()}
    if reranker:
        relevance, ranks = _rerank_relevance(
            inputs, reranker, n_candidates or DEFAULT_RERANK_CANDIDATES, reranker_path
        )
        source = f"σ(cross-encoder logit), {reranker}"
    else:
        relevance, ranks = minmax_relevance(inputs.rank), ranks_of(inputs.rank)
        source = "min–max rescaled " + (
            "cosine" if inputs.ranking is None else f"{inputs.retriever} score"
        )
    values = chunk_values(relevance, ranks, float(knobs["decay"]), float(knobs["penalty"]))
    segments = best_segments(
        values,
        int(knobs["max_length"]),
        int(knobs["overall_max_length"]),
        float(knobs["minimum_value"]),
        doc_of=inputs.doc_of,
    )
    ids = [i for seg in segments for i in range(seg.start, seg.end)]
    notes = [
        f"relevance: {source}; {len(segments)} segment(s) "
        + ", ".join(f"{s.start}–{s.end - 1} (Σv = {s.value:.2f})" for s in segments)
        + f"; max {int(knobs['max_length'])} each, {int(knobs['overall_max_length'])} in all, "
        f"Σv ≥ {knobs['minimum_value']:g} (RSE does not use k)."
    ]
    if not segments:
        notes.append("No segment reaches the minimum value: RSE sends nothing for this query.")
    detail = RseDetail(
        tuple(float(x) for x in relevance), tuple(float(x) for x in values), segments, source
    )
    return chunk_result("rse", inputs, ids, t0, notes=notes, detail=detail)


POLICY = policy_entry("rse", rse_policy, uses_k=False)
