"""How far λ and τ must move for the next gate decision to flip (shown beside the sliders).

SCAR admits n iff cos(q,n) + μ·lex(q,n) − λ·b(c,n) > τ·cos(q,c). Each decision flips where
its margin is 0: at λ* = (cos(q,n) + μ·lex − τ·cos(q,c)) / b (b > 0) and at
τ* = (cos(q,n) + μ·lex − λ·b) / cos(q,c) (cos(q,c) > 0). The nearest λ* and τ* on each side
of the current setting, inside the sliders' range, are the moves that change something.
(With r > 1 a flip can also uncover or hide candidates farther out; the decisions counted here
are those the gate examined at the current setting.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scar_viz.scoring.scar import Decision


@dataclass(frozen=True)
class Flip:
    """The nearest setting (``at``) where one decision (``chunk`` → ``neighbour``) turns."""

    at: float
    chunk: int
    neighbour: int
    admits: bool
    """Whether the neighbour is admitted past the flip."""


@dataclass(frozen=True)
class Flips:
    """The nearest flips below and above the current λ and τ (None: none in range)."""

    lam: float
    tau: float
    lam_down: Flip | None
    lam_up: Flip | None
    tau_down: Flip | None
    tau_up: Flip | None

    def sentence(self) -> str:
        """One line: how far each slider must move for the next decision to flip."""
        parts = []
        for name, now, flips in (
            ("λ", self.lam, (self.lam_down, self.lam_up)),
            ("τ", self.tau, (self.tau_down, self.tau_up)),
        ):
            moves = [_move(name, now, f) for f in flips if f is not None]
            parts.append(" or ".join(moves) if moves else f"no move of {name} in range does")
        return "Next decision to flip: " + "; ".join(parts) + "."


def _move(name: str, now: float, flip: Flip) -> str:
    verb = "admits" if flip.admits else "rejects"
    return (
        f"{name} {'above' if flip.at > now else 'below'} {flip.at:.3f} "
        f"({flip.at - now:+.3f}) {verb} chunk {flip.neighbour} (next to {flip.chunk})"
    )


def next_flips(
    decisions: Sequence[Decision],
    lam: float,
    tau: float,
    lam_range: tuple[float, float] = (0.0, 2.0),
    tau_range: tuple[float, float] = (0.0, 1.5),
) -> Flips:
    """The nearest λ and τ on each side of (``lam``, ``tau``) where a decision of
    ``decisions`` (a gate's, at that setting) changes outcome, inside the ranges given."""
    lam_at: list[tuple[float, Decision]] = []
    tau_at: list[tuple[float, Decision]] = []
    for d in decisions:
        if d.outcome == "retrieved":
            continue
        lift = d.cos_qn + d.lexical_term
        if d.penalty > 0:
            lam_at.append(((lift - tau * d.cos_qc) / d.penalty, d))
        if d.cos_qc > 0:
            tau_at.append(((lift - lam * d.penalty) / d.cos_qc, d))

    def nearest(points, now: float, lo: float, hi: float, up: bool) -> Flip | None:
        inside = [(x, d) for x, d in points if lo <= x <= hi and (x > now if up else x < now)]
        if not inside:
            return None
        x, d = min(inside, key=lambda p: abs(p[0] - now))
        # a larger λ or τ only ever rejects; a smaller one only admits
        return Flip(float(x), d.chunk, d.neighbour, admits=not up)

    return Flips(
        lam,
        tau,
        nearest(lam_at, lam, *lam_range, up=False),
        nearest(lam_at, lam, *lam_range, up=True),
        nearest(tau_at, tau, *tau_range, up=False),
        nearest(tau_at, tau, *tau_range, up=True),
    )
