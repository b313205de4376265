"""Compare: does each policy's context hold the known evidence, and how many runs is it?

A policy's context is a set of character spans of the document. :func:`evidence_coverage`
measures the share of the evidence's non-whitespace characters inside those spans (full,
partial or none); :func:`text_runs` counts spans as a reader sees them, merging spans that
only whitespace separates (stripped chunks leave the blank line between them out of every
chunk, so seven adjacent chunks in three runs are three spans, not five).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.common.fmt import EMPTY_CELL, cell, percent
from scar_viz.common.spans import Span

FULL, PARTIAL, NONE = "full", "partial", "none"


def text_runs(spans: Sequence[Span], text: str) -> tuple[Span, ...]:
    """Sorted union of ``spans`` where ranges that overlap, touch, or are separated only by
    whitespace in ``text`` merge into one run (the gap joins the run)."""
    runs: list[list[int]] = []
    for s, e in sorted(spans):
        if e <= s:
            continue
        if runs and (s <= runs[-1][1] or not text[runs[-1][1] : s].strip()):
            runs[-1][1] = max(runs[-1][1], e)
        else:
            runs.append([s, e])
    return tuple((s, e) for s, e in runs)


def span_count(spans: Sequence[Span], text: str) -> int:
    """How many separate passages ``spans`` are to a reader (see :func:`text_runs`)."""
    return len(text_runs(spans, text))


@dataclass(frozen=True)
class EvidenceCover:
    """How much of the evidence a context holds: ``covered`` of ``total`` non-whitespace
    characters; ``status`` is ``full``, ``partial`` or ``none``."""

    covered: int
    total: int

    @property
    def share(self) -> float:
        return self.covered / self.total if self.total else 0.0

    @property
    def status(self) -> str:
        if self.total and self.covered == self.total:
            return FULL
        return PARTIAL if self.covered else NONE

    @property
    def label(self) -> str:
        """``full``, ``partial (62%)`` or ``none`` — never rounded up to 100% when partial."""
        if self.status != PARTIAL:
            return self.status
        floor = math.floor(self.share * 100) / 100
        return f"{PARTIAL} ({percent(floor) if floor > 0 else '<1%'})"


def _mask(text: str, spans: Sequence[Span]) -> np.ndarray:
    mask = np.zeros(len(text) + 1, dtype=np.int64)
    for s, e in spans:
        s, e = max(0, s), min(len(text), e)
        if e > s:
            mask[s] += 1
            mask[e] -= 1
    return np.cumsum(mask[:-1]) > 0


def evidence_coverage(spans: Sequence[Span], evidence: Sequence[Span], text: str) -> EvidenceCover:
    """Share of the evidence's non-whitespace characters that lie inside ``spans``.

    Args:
        spans: the policy's context as (start, end) character ranges of ``text``.
        evidence: the known evidence spans (e.g. a labelled query's), possibly several.
    """
    wanted = _mask(text, evidence)
    if not wanted.any():
        return EvidenceCover(0, 0)
    idx = np.flatnonzero(wanted)
    wanted[idx[np.array([text[i].isspace() for i in idx], dtype=bool)]] = False
    held = wanted & _mask(text, spans)
    return EvidenceCover(int(held.sum()), int(wanted.sum()))


def coverage_cells(
    results: Mapping[str, object], evidence: Sequence[Span], text: str
) -> dict[str, str]:
    """Policy name -> what its row shows in a "holds the evidence" column: ``full``,
    ``partial (NN%)``, ``none``, or :data:`~scar_viz.common.fmt.EMPTY_CELL` for a policy that failed
    (a result without ``spans``)."""
    out: dict[str, str] = {}
    for name, res in results.items():
        spans = getattr(res, "spans", None)
        out[name] = EMPTY_CELL if spans is None else evidence_coverage(spans, evidence, text).label
    return out


def display_rows(rows: Sequence[Mapping[str, object]], digits: int = 3) -> list[dict[str, object]]:
    """Table rows for the page: every ``None``/NaN becomes "—", floats rounded to ``digits``."""
    return [{k: cell(v, digits) for k, v in row.items()} for row in rows]
