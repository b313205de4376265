"""Retrieval metrics over labelled queries (docs/method.md §4) and why gold chunks were missed.

    Recall@K          = |selected ∩ gold| / |gold|, averaged over queries
    mean unique chunks = |selected|, averaged over queries
    chunk efficiency   = Recall@K / mean unique chunks
    mean tokens        = tokens of the assembled context (o200k_base), averaged over queries

Span policies without chunk ids (QASC) are scored by character coverage: a gold chunk counts
by the fraction of its non-whitespace characters that the policy's spans cover, and its chunk
count is its context length in chunk equivalents (characters / mean chunk length).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.common.edges import same_file
from scar_viz.common.errors import SettingsError
from scar_viz.scoring.params import DEFAULT_RADIUS
from scar_viz.scoring.scar import Decision

NEVER_REACHED = "never reached"
SUBSETS = ("all", "fragmented", "atomic", "scattered")
"""``all`` and the three query types of :func:`scar_viz.queries.gold.query_type`."""


@dataclass(frozen=True)
class Miss:
    """A gold chunk the policy did not select: ``reason`` is short, ``detail`` a sentence."""

    chunk: int
    reason: str
    detail: str


@dataclass(frozen=True)
class QueryOutcome:
    """One policy on one query. ``chunks`` is |selected| (chunk equivalents for spans);
    ``type`` is the query's type (fragmented, atomic or scattered) under the chunking."""

    query_id: str
    type: str
    gold: tuple[int, ...]
    selected: tuple[int, ...] | None
    recall: float
    chunks: float
    tokens: int
    misses: tuple[Miss, ...]

    @property
    def fragmented(self) -> bool:
        return self.type == "fragmented"


@dataclass(frozen=True)
class Summary:
    """Means over ``n`` queries; every value is 0.0 when ``n`` is 0."""

    n: int
    recall: float
    mean_chunks: float
    efficiency: float
    mean_tokens: float

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)


def chunk_recall(gold: Sequence[int], selected: Iterable[int]) -> float:
    """|selected ∩ gold| / |gold|.

    Raises:
        ValueError: when ``gold`` is empty.
    """
    gold_set = set(gold)
    if not gold_set:
        raise SettingsError("A query needs at least one gold chunk to have a recall.")
    return len(gold_set & set(selected)) / len(gold_set)


def _nonspace(text: str, start: int, end: int) -> np.ndarray:
    return np.array([start + i for i, ch in enumerate(text[start:end]) if not ch.isspace()])


def chunk_coverage(text: str, chunk: Chunk, spans: Sequence[tuple[int, int]]) -> float:
    """Fraction of ``chunk``'s non-whitespace characters that lie in some span (1.0 if none)."""
    positions = _nonspace(text, chunk.start, chunk.end)
    if not len(positions):
        return 1.0
    inside = np.zeros(len(positions), dtype=bool)
    for s, e in spans:
        inside |= (positions >= s) & (positions < e)
    return float(inside.mean())


def coverage_recall(
    text: str, chunks: Sequence[Chunk], gold: Sequence[int], spans: Sequence[tuple[int, int]]
) -> tuple[float, dict[int, float]]:
    """(mean over gold chunks of their coverage by ``spans``, coverage per gold chunk)."""
    if not gold:
        raise SettingsError("A query needs at least one gold chunk to have a recall.")
    per = {g: chunk_coverage(text, chunks[g], spans) for g in gold}
    return float(np.mean(list(per.values()))), per


def chunk_equivalents(chars: int, chunks: Sequence[Chunk]) -> float:
    """``chars`` in units of the mean chunk length."""
    mean_len = float(np.mean([c.end - c.start for c in chunks])) if chunks else 1.0
    return chars / mean_len if mean_len else 0.0


def miss_reasons(
    gold: Sequence[int],
    selected: Iterable[int],
    retrieved: Sequence[int],
    decisions: Sequence[Decision] = (),
    radius: int = DEFAULT_RADIUS,
    expands: bool = False,
    *,
    doc_of: np.ndarray,
) -> tuple[Miss, ...]:
    """Why each gold chunk outside ``selected`` was missed.

    ``never reached``: not retrieved and farther than ``max(1, radius)`` from every retrieved
    chunk of its file (``doc_of``, the file of each chunk; all zeros for one file), so
    no neighbour expansion could add it. Otherwise, from the gate's decisions on it:
    ``blocked by relevance`` (cos(q,n) alone is not above the bar τ·cos(q,c)) or ``blocked by
    penalty`` (λ·b(c,n) pulls S under the bar); ``not examined`` when a nearer neighbour on
    that side was rejected first; ``not expanded`` for a policy that does not look at
    neighbours (``expands`` False); ``dropped`` when retrieved but left out (reranking).
    """
    chosen = set(selected)
    reach = max(1, int(radius))
    misses = []
    for g in sorted(set(gold) - chosen):
        if g in retrieved:
            misses.append(
                Miss(g, "dropped", f"Chunk {g} is in the top-k but this policy left it out.")
            )
            continue
        near = sorted(c for c in retrieved if 0 < abs(c - g) <= reach and same_file(doc_of, c, g))
        if not near:
            misses.append(
                Miss(
                    g,
                    NEVER_REACHED,
                    f"Chunk {g} is not retrieved and no retrieved chunk lies within {reach} of it.",
                )
            )
            continue
        rejected = [d for d in decisions if d.neighbour == g and d.outcome == "rejected"]
        if rejected:
            terms = sorted({d.blocked_by for d in rejected})
            detail = "; ".join(
                f"from chunk {d.chunk}: S = {d.score:.3f} ≤ bar {d.bar:.3f} ({d.blocked_by})"
                for d in rejected
            )
            misses.append(Miss(g, "blocked by " + " & ".join(terms), detail))
        elif expands:
            misses.append(
                Miss(
                    g,
                    "not examined",
                    f"Chunk {g} is within {reach} of retrieved "
                    f"chunk(s) {near}, but a nearer neighbour was rejected first.",
                )
            )
        else:
            misses.append(
                Miss(
                    g,
                    "not expanded",
                    f"Chunk {g} neighbours retrieved chunk(s) "
                    f"{near}; this policy does not add neighbours.",
                )
            )
    return tuple(misses)


def coverage_misses(coverage: dict[int, float]) -> tuple[Miss, ...]:
    """Misses of a span policy: gold chunks not fully covered, with the covered share."""
    return tuple(
        Miss(
            g,
            "not covered" if c == 0 else "partly covered",
            f"{100 * c:.0f}% of chunk {g}'s non-whitespace characters are in the context.",
        )
        for g, c in sorted(coverage.items())
        if c < 1.0
    )


def summarise(outcomes: Sequence[QueryOutcome]) -> Summary:
    """Means over ``outcomes``; efficiency = mean recall / mean chunks."""
    if not outcomes:
        return Summary(0, 0.0, 0.0, 0.0, 0.0)
    recall = float(np.mean([o.recall for o in outcomes]))
    chunks = float(np.mean([o.chunks for o in outcomes]))
    tokens = float(np.mean([o.tokens for o in outcomes]))
    return Summary(len(outcomes), recall, chunks, recall / chunks if chunks else 0.0, tokens)


def summarise_subsets(outcomes: Sequence[QueryOutcome]) -> dict[str, Summary]:
    """``all``, ``fragmented``, ``atomic`` and ``scattered`` summaries (every key, even when
    a subset is empty: its ``n`` is 0)."""
    out = {"all": summarise(outcomes)}
    for kind in SUBSETS[1:]:
        out[kind] = summarise([o for o in outcomes if o.type == kind])
    return out
