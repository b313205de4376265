"""The guided lesson: a real fragmented pair, predict-then-reveal rounds, and the scale demo.

Pure functions over chunks and :class:`~scar_viz.scoring.Selection`; the Learn page renders them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking import Chunk
from scar_viz.gate import PRESETS, GateParams
from scar_viz.scoring import Decision, Selection, gate


@dataclass(frozen=True)
class Round:
    """One predict-then-reveal round: the gate's settings the student reasons about."""

    lam: float
    tau: float
    hint: str

    @property
    def params(self) -> GateParams:
        """The round's λ and τ at the default k and r."""
        return GateParams(lam=self.lam, tau=self.tau)


ROUNDS: tuple[Round, ...] = (
    Round(**PRESETS["A"], hint="Preset A: a low bar, a moderate penalty."),
    Round(
        **PRESETS["B"],
        hint="Preset B: a high bar relative to the retrieved chunk, a light penalty.",
    ),
    Round(1.5, 0.1, "A heavy penalty: only neighbours that continue the same topic survive."),
    Round(0.0, 1.0, "No penalty, and the bar equals the retrieved chunk's own relevance."),
)


@dataclass(frozen=True)
class FragmentPair:
    """Evidence cut by a boundary: ``left`` holds its first part, ``right`` the rest."""

    left: int
    right: int
    start: int
    end: int
    cut: int  # first character of the evidence that is not in ``left``


def fragment_pair(chunks: Sequence[Chunk], start: int, end: int) -> FragmentPair | None:
    """The first boundary inside the evidence ``[start, end)``, or None if one chunk holds it."""
    for a, b in zip(chunks, chunks[1:], strict=False):
        if a.start <= start < a.end < end and b.start < end:
            return FragmentPair(a.index, b.index, start, end, a.end)
    return None


def candidates(sel: Selection) -> list[int]:
    """Neighbours the gate decides on (not retrieved themselves), in document order."""
    return sorted({d.neighbour for d in sel.decisions if d.outcome != "retrieved"})


@dataclass(frozen=True)
class RoundScore:
    correct: int
    total: int
    false_admits: tuple[int, ...]  # predicted admitted, but rejected
    missed: tuple[int, ...]  # admitted, but not predicted

    @property
    def fraction(self) -> float:
        return self.correct / self.total if self.total else 1.0


def score_predictions(predicted: set[int], sel: Selection) -> RoundScore:
    """Score a student's guesses: one point per candidate whose admit/reject they got right."""
    truth = set(sel.admitted)
    pool = candidates(sel)
    correct = sum((c in predicted) == (c in truth) for c in pool)
    return RoundScore(
        correct,
        len(pool),
        tuple(sorted((predicted & set(pool)) - truth)),
        tuple(sorted(truth - predicted)),
    )


@dataclass(frozen=True)
class ScaleRow:
    chunk: int
    neighbour: int
    model1: bool
    relative2: bool
    absolute2: bool


def rescale_decision(d: Decision, alpha: float, beta: float) -> tuple[float, float, float]:
    """The decision's numbers on a model whose cosines are cos' = α + β·cos.

    Returns (S', relative bar τ·cos'(q,c), cos'(q,c)), with b' = 1 − (α + β·cos(c,n)).
    """
    cos_qn = alpha + beta * d.cos_qn
    cos_qc = alpha + beta * d.cos_qc
    penalty = 1.0 - (alpha + beta * (1.0 - d.penalty))
    score, bar, _ = gate(cos_qn, cos_qc, penalty, d.lam, d.tau)
    return float(score), float(bar), cos_qc


def scale_comparison(
    decisions: Sequence[Decision], alpha: float, beta: float
) -> tuple[list[ScaleRow], float, float]:
    """Each candidate on model 1 and on a rescaled model 2.

    Model 2 is judged twice: with SCAR's relative bar τ·cos'(q,c), and with an absolute bar
    θ = τ·cos(q,c) *fixed on model 1* (what a threshold tuned on one model becomes on another).
    Returns the rows and the share of model-1 decisions each bar keeps.
    """
    rows = []
    for d in decisions:
        if d.outcome == "retrieved":
            continue
        score2, bar2, _ = rescale_decision(d, alpha, beta)
        rows.append(
            ScaleRow(d.chunk, d.neighbour, d.passes, bool(score2 > bar2), bool(score2 > d.bar))
        )
    if not rows:
        return rows, 1.0, 1.0
    keep_rel = float(np.mean([r.model1 == r.relative2 for r in rows]))
    keep_abs = float(np.mean([r.model1 == r.absolute2 for r in rows]))
    return rows, keep_rel, keep_abs
