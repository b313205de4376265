"""The guided lesson: a real fragmented pair, predict-then-reveal rounds, and the scale demo.

Pure functions over chunks and :class:`~scar_viz.scoring.Selection`; the Learn page renders them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking import Chunk
from scar_viz.gate import DEFAULT_K, DEFAULT_LAM, DEFAULT_TAU, PRESETS, GateParams
from scar_viz.scoring import Decision, Selection, gate, select_from_sims
from scar_viz.vectors import normalize


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


# --- step 4: why the bar is relative ----------------------------------------------------------

SCALE_ALPHA = 0.0
"""Step 4's default offset α of model 2 (the relative bar is invariant only at α = 0)."""
SCALE_BETA = 0.5
"""Step 4's default spread β of model 2: its similarities are half as spread out."""


@dataclass(frozen=True)
class ScaleDemoRow:
    """One decision on model 1 and on model 2 (S' and the relative bar τ·cos'(q,c))."""

    chunk: int
    neighbour: int
    score1: float
    bar1: float
    score2: float
    bar2: float
    model1: bool
    relative2: bool
    absolute2: bool


@dataclass(frozen=True)
class ScaleDemo:
    """Model 2's decisions under SCAR's relative bar and under an absolute bar ``theta``.

    ``keep_rel`` / ``keep_abs``: the share of model 1's decisions each bar keeps on model 2;
    ``changed_rel`` / ``changed_abs``: the rows whose decision changed.
    """

    rows: tuple[ScaleDemoRow, ...]
    theta: float
    alpha: float
    beta: float

    @property
    def changed_rel(self) -> tuple[ScaleDemoRow, ...]:
        return tuple(r for r in self.rows if r.relative2 != r.model1)

    @property
    def changed_abs(self) -> tuple[ScaleDemoRow, ...]:
        return tuple(r for r in self.rows if r.absolute2 != r.model1)

    @property
    def keep_rel(self) -> float:
        return 1.0 - len(self.changed_rel) / len(self.rows) if self.rows else 1.0

    @property
    def keep_abs(self) -> float:
        return 1.0 - len(self.changed_abs) / len(self.rows) if self.rows else 1.0


def tune_absolute_bar(decisions: Sequence[Decision]) -> float:
    """The absolute bar θ tuned on model 1: the one number that reproduces model 1's
    decisions best (admit iff S > θ); of equally good θ, the middle of the widest gap
    between consecutive scores. 0.0 when there is no candidate."""
    rows = [d for d in decisions if d.outcome != "retrieved"]
    if not rows:
        return 0.0
    s = np.array(sorted({d.score for d in rows}))
    cuts = np.concatenate(([s[0] - 0.05], (s[1:] + s[:-1]) / 2, [s[-1] + 0.05]))
    gaps = np.concatenate(([0.1], s[1:] - s[:-1], [0.1]))
    scores = np.array([d.score for d in rows])
    passes = np.array([d.passes for d in rows])
    agree = np.array([np.sum((scores > t) == passes) for t in cuts])
    best = np.flatnonzero(agree == agree.max())
    return float(cuts[best[np.argmax(gaps[best])]])


def scale_demo(
    decisions: Sequence[Decision],
    alpha: float = SCALE_ALPHA,
    beta: float = SCALE_BETA,
    theta: float | None = None,
) -> ScaleDemo:
    """Each candidate on model 1 and on model 2, whose similarities are cos' = α + β·cos.

    The penalty is rescaled consistently: read b(c,n) = cos(c,c) − cos(c,n), so
    b' = cos'(c,c) − cos'(c,n) = β·b. Then

        S' = cos'(q,n) − λ·b' = α + β·S,      bar' = τ·cos'(q,c) = τ·α + β·bar,
        S' − bar' = β·(S − bar) + α·(1 − τ).

    **The relative bar is invariant to the spread**: with α = 0 and any β > 0 every decision
    is model 1's. It is *not* invariant to an offset: α shifts every margin by α·(1 − τ)
    (unless τ = 1), so with α ≠ 0 both bars can change decisions. The absolute bar θ (tuned
    on model 1 by :func:`tune_absolute_bar` unless given) admits iff S' > θ: a change of
    spread alone moves scores across it.

    Raises:
        ValueError: when β ≤ 0 (a model whose similarities are not increasing in cos).
    """
    if beta <= 0:
        raise ValueError("The spread β must be positive.")
    cand = [d for d in decisions if d.outcome != "retrieved"]
    theta = tune_absolute_bar(cand) if theta is None else float(theta)
    rows = []
    for d in cand:
        score2 = alpha + beta * d.score
        bar2 = d.tau * alpha + beta * d.bar
        # the relative decision from the margin, so a pure rescale cannot flip it by rounding
        relative = bool(beta * d.margin + alpha * (1.0 - d.tau) > 0)
        rows.append(
            ScaleDemoRow(
                d.chunk,
                d.neighbour,
                d.score,
                d.bar,
                score2,
                bar2,
                d.passes,
                relative,
                bool(score2 > theta),
            )
        )
    return ScaleDemo(tuple(rows), theta, float(alpha), float(beta))


def pooled_decisions(
    unit: np.ndarray,
    query_vectors: np.ndarray,
    lam: float = DEFAULT_LAM,
    tau: float = DEFAULT_TAU,
    k: int = DEFAULT_K,
) -> tuple[Decision, ...]:
    """Step 4's numbers: every gate decision (r = 1) for each query vector (rows of
    ``query_vectors``, e.g. the sample's labelled questions) on ``unit`` chunk vectors, at
    (λ, τ) — by default preset A."""
    out: list[Decision] = []
    for v in np.atleast_2d(query_vectors):
        sims = unit @ normalize(np.asarray(v, dtype=np.float64))
        sel = select_from_sims(sims, unit, GateParams(k, lam, tau, 1))
        out.extend(d for d in sel.decisions if d.outcome != "retrieved")
    return tuple(out)
