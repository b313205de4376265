"""Tuning λ and τ on a query set: the sweep's marks and frontier, and tune-on-one /
check-on-another.

The sweep (:func:`scar_viz.scoring.sweep.sweep`) gives recall and mean chunks over a λ×τ grid. Here:
the grid's settings as flat lists (:func:`grid_settings`), the Pareto frontier's settings
(:func:`frontier_points`), the presets and the sliders evaluated exactly
(:func:`preset_points`, :func:`point_at`), the frugal "best" mark (:func:`sweep_marks`,
:mod:`scar_viz.evaluation.best_point`), and the held-out check (:func:`tune_check`): the best
setting on a tune set applied unchanged to a check set, against the check set's own best.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scar_viz.common.errors import SettingsError
from scar_viz.evaluation.best_point import frugal_best, window_baseline
from scar_viz.scoring.params import PRESETS
from scar_viz.scoring.sweep import Candidates, SweepResult, pareto_frontier, sweep

OBJECTIVES = ("frugal", "efficiency", "recall")
"""What a tuned setting is best at; ``frugal`` (the default) is the fewest chunks whose recall
is within a point of window ±1's on the same set. Maximising efficiency lands on plain top-k
(SCAR admits nothing), maximising recall on admitting every neighbour."""
OBJECTIVE_LABELS = {
    "frugal": "fewest chunks at window ±1's recall (within a point)",
    "efficiency": "efficiency (recall / chunks; lands on plain top-k)",
    "recall": "recall (lands on admitting every neighbour)",
}
PENALTY_OFF = "the boundary penalty is off: SCAR reduces to a relative bar"


def grid_settings(grid: SweepResult) -> tuple[np.ndarray, np.ndarray]:
    """(λ, bar) of every grid point, flattened in λ-major order (the order of ``ravel()``)."""
    lam, bar = np.meshgrid(grid.lams, grid.bars, indexing="ij")
    return lam.ravel(), bar.ravel()


@dataclass(frozen=True)
class FrontierPoint:
    """A Pareto-optimal grid setting and what it costs and finds."""

    lam: float
    tau: float
    recall: float
    mean_chunks: float

    def label(self) -> str:
        return (
            f"λ = {self.lam:.2f}, τ = {self.tau:.2f} · recall {self.recall:.3f} · "
            f"{self.mean_chunks:.2f} chunks"
        )


def frontier_indices(grid: SweepResult) -> np.ndarray:
    """Flat indices of the non-dominated grid points (more recall, fewer chunks)."""
    return pareto_frontier(grid.recall, grid.mean_chunks)


def frontier_points(grid: SweepResult) -> tuple[FrontierPoint, ...]:
    """The frontier's settings, by mean chunks."""
    lams, bars = grid_settings(grid)
    recall, chunks = grid.recall.ravel(), grid.mean_chunks.ravel()
    return tuple(
        FrontierPoint(float(lams[i]), float(bars[i]), float(recall[i]), float(chunks[i]))
        for i in frontier_indices(grid)
    )


def point_at(cands: Candidates, lam: float, tau: float, mu: float = 0.0) -> tuple[float, float]:
    """(mean chunks, recall) of SCAR at exactly (λ, τ) and μ (not the nearest grid point)."""
    one = sweep(cands, [lam], [tau], mu=mu)
    return float(one.mean_chunks[0, 0]), float(one.recall[0, 0])


def preset_points(cands: Candidates, mu: float = 0.0) -> list[tuple[str, float, float]]:
    """("preset A", mean chunks, recall) for each preset (at μ), for the Pareto chart."""
    return [
        (f"preset {name}", *point_at(cands, p["lam"], p["tau"], mu)) for name, p in PRESETS.items()
    ]


@dataclass(frozen=True)
class SweepMarks:
    """What the heatmaps mark: presets and the frugal best (label → (λ, τ)).

    ``target`` is the recall the best must reach (window ±1's within ``tolerance``, or the
    user's floor with tolerance 0); ``best`` the grid indices, None when nothing reaches it.
    """

    marks: dict[str, tuple[float, float]]
    best: tuple[int, int] | None
    target: float
    tolerance: float
    window_chunks: float


def best_caption(grid: SweepResult, marks: SweepMarks, stated: bool) -> str:
    """What the best mark is, in words (``stated``: the target is the user's recall floor)."""
    wanted = (
        f"recall ≥ {marks.target:.3f}"
        if stated
        else f"recall within 1 point of window ±1's {marks.target:.3f}"
    )
    if marks.best is None:
        return f"no grid setting reaches {wanted}, so there is no best mark"
    lam, tau = marks.marks["best"]
    off = f" — λ = 0, {PENALTY_OFF}" if lam == 0 else ""
    return (
        f"best: λ = {lam:.2f}, τ = {tau:.2f}, the fewest chunks "
        f"({grid.mean_chunks[marks.best]:.2f}; window ±1: {marks.window_chunks:.2f}) with "
        f"{wanted}{off}"
    )


def sweep_marks(grid: SweepResult, cands: Candidates, floor: float | None = None) -> SweepMarks:
    """Preset marks A, B and the "best" mark: the fewest mean chunks whose recall is within
    1 point of window ±1's on the same queries, or at least ``floor`` when given."""
    base = window_baseline(cands)
    target, tolerance = (base.recall, 0.01) if floor is None else (float(floor), 0.0)
    best = frugal_best(grid, target, tolerance)
    marks = {name: (p["lam"], p["tau"]) for name, p in PRESETS.items()}
    if best is not None:
        marks["best"] = (float(grid.lams[best[0]]), float(grid.bars[best[1]]))
    return SweepMarks(marks, best, target, tolerance, base.mean_chunks)


def words_line(paper: tuple[SweepResult, SweepMarks], words: tuple[SweepResult, SweepMarks]) -> str:
    """One sentence comparing the best mark of the grid at μ = 0 (``paper``) with the best at
    the grid's μ > 0 (``words``), each a (grid, marks) pair on the same queries and target:
    what the question's words add to the hand-set rule (docs/method.md §8)."""
    mu = words[0].mu

    def best(grid: SweepResult, marks: SweepMarks) -> str:
        if marks.best is None:
            return "no setting reaches the target"
        lam, tau = marks.marks["best"]
        return (
            f"{grid.mean_chunks[marks.best]:.2f} chunks (recall {grid.recall[marks.best]:.3f}; "
            f"λ = {lam:.2f}, τ = {tau:.2f})"
        )

    line = (
        f"Words: the best at μ = {mu:g} takes {best(*words)}; at μ = 0, the paper's gate, "
        f"{best(*paper)}"
    )
    if paper[1].best is None or words[1].best is None:
        return line + "."
    saved = paper[0].mean_chunks[paper[1].best] - words[0].mean_chunks[words[1].best]
    verdict = (
        f"the words save {saved:.2f} chunks per query"
        if saved > 0.005
        else f"the words cost {-saved:.2f} chunks per query"
        if saved < -0.005
        else "the words change nothing"
    )
    return f"{line}: {verdict} at the same recall target."


@dataclass(frozen=True)
class GridPoint:
    """One grid setting of one query set and its metrics."""

    lam: float
    tau: float
    recall: float
    mean_chunks: float
    efficiency: float


def grid_point(grid: SweepResult, ij: tuple[int, int]) -> GridPoint:
    """The setting at grid indices ``ij`` with its metrics."""
    return GridPoint(
        float(grid.lams[ij[0]]),
        float(grid.bars[ij[1]]),
        float(grid.recall[ij]),
        float(grid.mean_chunks[ij]),
        float(grid.efficiency[ij]),
    )


@dataclass(frozen=True)
class TuneCheck:
    """The best setting on a tune set, applied to a check set.

    ``tuned`` is the tune set's best on the tune set, ``transferred`` the same setting on the
    check set, ``check_best`` the check set's own best, ``sliders_tune`` / ``sliders_check``
    the grid point nearest the sliders on each.
    """

    objective: str
    tuned: GridPoint
    transferred: GridPoint
    check_best: GridPoint
    sliders_tune: GridPoint
    sliders_check: GridPoint

    @property
    def metric(self) -> str:
        """The field the objective is read from: mean chunks for ``frugal``."""
        return "mean_chunks" if self.objective == "frugal" else self.objective

    def value(self, point: GridPoint) -> float:
        return float(getattr(point, self.metric))

    @property
    def change(self) -> float:
        """Objective on the check set minus on the tune set, same setting."""
        return self.value(self.transferred) - self.value(self.tuned)

    @property
    def gap(self) -> float:
        """What tuning on the other set costs on the check set: the check set's best minus
        the transferred setting (chunks the other way round for ``frugal``)."""
        diff = self.value(self.check_best) - self.value(self.transferred)
        return -diff if self.objective == "frugal" else diff

    def marks(self) -> dict[str, tuple[float, float]]:
        """Heatmap marks on the check set: the tuned setting and the check set's best."""
        return {
            "tuned on tune set": (self.tuned.lam, self.tuned.tau),
            "check best": (self.check_best.lam, self.check_best.tau),
        }


def _best(grid: SweepResult, objective: str, target: float | None) -> tuple[int, int]:
    if objective == "frugal":
        found = frugal_best(grid, target if target is not None else 0.0)
        return found if found is not None else grid.best("recall")
    return grid.best(objective)


def tune_check(
    tune: SweepResult,
    check: SweepResult,
    objective: str,
    lam: float,
    tau: float,
    targets: tuple[float, float] | None = None,
) -> TuneCheck:
    """Tune on ``tune`` for ``objective`` (frugal, efficiency or recall), check on ``check``
    (same grid); (λ, τ) are the sliders. ``targets`` are window ±1's recall on the tune and
    the check set (:func:`~scar_viz.evaluation.best_point.window_baseline`), which ``frugal``
    needs; without them it keeps any recall.

    Raises:
        SettingsError: for another objective or grids of different shapes.
    """
    if objective not in OBJECTIVES:
        raise SettingsError(f"Unknown objective '{objective}'; use {', '.join(OBJECTIVES)}.")
    if tune.recall.shape != check.recall.shape:
        raise SettingsError("The tune and check sweeps must use the same λ×τ grid.")
    t_tune, t_check = targets if targets is not None else (None, None)
    bt, bc = _best(tune, objective, t_tune), _best(check, objective, t_check)
    return TuneCheck(
        objective,
        grid_point(tune, bt),
        grid_point(check, bt),
        grid_point(check, bc),
        grid_point(tune, tune.nearest(lam, tau)),
        grid_point(check, check.nearest(lam, tau)),
    )
