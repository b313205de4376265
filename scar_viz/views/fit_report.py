"""What the "Fit a gate" page computes: fit a learned gate on a query set (or on the tune half
of the two-set split, so the check half stays honest), its recall-vs-chunks curve as p varies
— cross-validated when it is fitted on the whole set, as the verdict is, with the in-sample
curve beside it, labelled so — SCAR's λ×τ front and the baselines on the same queries, and
reading a picked chart point back as p.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from scar_viz.common.errors import SettingsError
from scar_viz.evaluation import candidates_for
from scar_viz.evaluation.best_point import window_baseline, window_per_query
from scar_viz.evaluation.by_file import Rows, curve_file_rows
from scar_viz.evaluation.folds import DEFAULT_FOLDS, DEFAULT_REPEATS
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.learned import (
    crossval_p_curve,
    fit_gate_on,
    p_curve_on,
)
from scar_viz.queries.gold import GoldQuery, split_alternate
from scar_viz.retrieval import DENSE, Retriever
from scar_viz.scoring.learned import DEFAULT_L2, FitError, LearnedGate, PCurve
from scar_viz.scoring.params import DEFAULT_RADIUS, PRESETS
from scar_viz.scoring.sweep import LAMS, TAUS, SweepResult, pareto_frontier, sweep

FIT_ON = {"all": "the whole query set", "tune": "the tune half (check half held out)"}
"""Where the gate is fitted: the page's choices."""
FEATURE_CHOICES = {
    "base": "five features (cosines, rank, side)",
    "lexical": "+ the question's words (lex(q,n), lex(q,c), new(q,c,n))",
}
"""The gate's feature sets (:data:`scar_viz.scoring.learned.features.FEATURE_SETS`) in words."""
CROSSVAL = f"{DEFAULT_FOLDS} folds × {DEFAULT_REPEATS} repeats"


@dataclass(frozen=True)
class Half:
    """A named part of the query set with its query vectors (rows matching ``queries``)."""

    name: str
    queries: tuple[GoldQuery, ...]
    vecs: np.ndarray

    @property
    def label(self) -> str:
        """``all 24 queries`` or ``the check half (12 queries)``."""
        n = len(self.queries)
        return f"all {n} queries" if self.name == "all" else f"the {self.name} half ({n} queries)"


def halves(queries: Sequence[GoldQuery], vecs: np.ndarray, on: str) -> tuple[Half, ...]:
    """``(all,)`` when fitting on everything; ``(tune, check)`` from :func:`split_alternate`
    otherwise, each with the matching rows of ``vecs``.

    Raises:
        ValueError: for an unknown ``on``.
    """
    if on not in FIT_ON:
        raise ValueError(f"Unknown fit set '{on}'; use one of {', '.join(FIT_ON)}.")
    vecs = np.atleast_2d(np.asarray(vecs, dtype=np.float64))
    if on == "all":
        return (Half("all", tuple(queries), vecs),)
    row = {id(q): i for i, q in enumerate(queries)}
    return tuple(
        Half(name, part, vecs[[row[id(q)] for q in part]] if part else vecs[:0])
        for name, part in zip(("tune", "check"), split_alternate(queries), strict=True)
    )


@dataclass(frozen=True)
class FitReport:
    """The fitted gate, the parts of the set (the first is the one fitted on), the gate's
    p-curve on each part, and — fitted on the whole set — its cross-validated curve
    (``crossval``; None with ``crossval_note`` saying why when it cannot be had)."""

    gate: LearnedGate
    parts: tuple[Half, ...]
    curves: dict[str, PCurve]
    crossval: PCurve | None = None
    crossval_note: str = ""

    @property
    def shown(self) -> Half:
        """The part the chart shows: the check half when there is one (honest), else all."""
        return self.parts[-1]

    @property
    def headline(self) -> tuple[str, PCurve]:
        """(label, curve) the chart leads with, never an in-sample curve when a held-out one
        exists: the check half's when fitted on the tune half; else the cross-validated one;
        else (too few queries to cross-validate) the in-sample one, labelled so."""
        if len(self.parts) > 1:
            return "learned gate on the check half (held out)", self.curves[self.shown.name]
        if self.crossval is not None:
            return f"learned gate, cross-validated ({CROSSVAL})", self.crossval
        return "learned gate, in sample (read on the queries it was fitted on)", self.curves["all"]

    @property
    def in_sample(self) -> PCurve | None:
        """The curve of the gate on the very queries it was fitted on, when the headline is
        held out (drawn beside it, labelled in sample); None otherwise."""
        if len(self.parts) == 1 and self.crossval is not None:
            return self.curves["all"]
        return None


def fit_report(
    prep,
    queries: Sequence[GoldQuery],
    vecs: np.ndarray,
    k: int,
    radius: int = DEFAULT_RADIUS,
    on: str = "all",
    l2: float = DEFAULT_L2,
    retriever: Retriever = DENSE,
    features: str = "base",
) -> FitReport:
    """Fit on ``halves(queries, vecs, on)[0]`` with ``features`` (base | lexical) and trace
    the p-curve on every part; fitted on all the queries, the curve is also cross-validated
    (:func:`~scar_viz.evaluation.learned.crossval_p_curve`) when the set allows it.

    Raises:
        FitError: when the fitting part has no positive or no negative candidate.
    """
    parts = halves(queries, vecs, on)
    runs = [LabelledRun(prep, h.queries, h.vecs, retriever) for h in parts]
    gate = fit_gate_on(runs[0], k, radius=radius, l2=l2, features=features)
    curves = {h.name: p_curve_on(run, gate, k, radius) for h, run in zip(parts, runs, strict=True)}
    crossval, note = None, ""
    if on == "all":
        try:
            crossval = crossval_p_curve(runs[0], k, radius, l2=l2, features=features)
        except (SettingsError, FitError) as exc:
            note = (
                f"Not cross-validated ({exc}); the curve is in sample: read on the queries "
                "the gate was fitted on, so better than the gate will do on new questions."
            )
    return FitReport(gate, parts, curves, crossval, note)


@dataclass(frozen=True)
class ScarFront:
    """SCAR's λ×τ sweep on one set of queries, its front, and the reference points
    (label, mean chunks, recall): presets A and B, top-k and window ±1; ``window`` holds
    window ±1's per-query (chunks, recall) on those queries."""

    grid: SweepResult
    frontier: np.ndarray
    points: tuple[tuple[str, float, float], ...]
    window: tuple[np.ndarray, np.ndarray] | None = field(default=None, compare=False, repr=False)


def scar_front(
    prep,
    queries: Sequence[GoldQuery],
    vecs: np.ndarray,
    k: int,
    radius: int = DEFAULT_RADIUS,
    progress=None,
    retriever: Retriever = DENSE,
) -> ScarFront:
    """The λ×τ sweep at (k, r) on ``queries``, its Pareto front and the baselines."""
    cands = candidates_for(LabelledRun(prep, queries, vecs, retriever), k, radius)
    grid = sweep(cands, LAMS, TAUS, progress=progress)
    points: list[tuple[str, float, float]] = []
    for name in ("A", "B"):
        one = sweep(cands, [PRESETS[name]["lam"]], [PRESETS[name]["tau"]])
        points.append((f"preset {name}", float(one.mean_chunks[0, 0]), float(one.recall[0, 0])))
    n_gold = np.maximum(cands.n_gold, 1)
    points.append(
        ("top-k", float(np.mean(cands.base_chunks)), float(np.mean(cands.base_hits / n_gold)))
    )
    win = window_baseline(cands)
    points.append(("window ±1", float(win.mean_chunks), float(win.recall)))
    front = pareto_frontier(grid.recall, grid.mean_chunks)
    return ScarFront(grid, front, tuple(points), window_per_query(cands))


def half_rows(report: FitReport, p: float) -> list[dict[str, object]]:
    """One row per curve at the grid p nearest ``p``: queries, recall, mean chunks — the part
    fitted on (in sample), the held-out part, and the cross-validated reading of the set."""
    named = [
        (h.name + (" (fitted on: in sample)" if h is report.parts[0] else " (held out)"),
         len(h.queries), report.curves[h.name])
        for h in report.parts
    ]  # fmt: skip
    if report.crossval is not None:
        named.append((f"all (cross-validated, {CROSSVAL})", len(report.parts[0].queries),
                      report.crossval))  # fmt: skip
    rows = []
    for name, n, curve in named:
        i = curve.nearest(p)
        rows.append(
            {
                "part": name,
                "queries": n,
                "p": float(curve.ps[i]),
                "recall": float(curve.recall[i]),
                "mean chunks": float(curve.mean_chunks[i]),
            }
        )
    return rows


def held_out_file_rows(report: FitReport, front: ScarFront, p: float) -> Rows:
    """Window ±1 and the learned gate (at the grid p nearest ``p``) by file, on the part the
    chart shows (:attr:`FitReport.shown`, ``front`` being SCAR's front on it) under its
    headline curve (held out where there is one); empty on a single document."""
    if front.window is None:
        return []
    return curve_file_rows(report.shown.queries, report.headline[1], p, front.window)


def curve_options(curve: PCurve) -> list[tuple[float, float, float]]:
    """(p, recall, mean chunks) of every curve point, by p (for a "set p from" select)."""
    return [(float(p), float(r), float(c)) for p, r, c in zip(curve.ps, curve.recall,
            curve.mean_chunks, strict=True)]  # fmt: skip


def picked_p(selection: Mapping | None, curve_trace: int) -> float | None:
    """The p of the first selected point on trace ``curve_trace`` (the p-curve, whose points
    carry ``customdata`` [p, index]) in a Plotly chart's selection state, else None.

    The browser may send ``customdata`` as a list or, for a typed array, as an object keyed
    "0", "1"; anything else is ignored (never raises).
    """
    points = ((selection or {}).get("selection") or {}).get("points") or []
    for point in points:
        trace = point.get("curve_number", point.get("curveNumber"))
        data = point.get("customdata")
        if trace != curve_trace or data is None:
            continue
        first = data.get("0", data.get(0)) if isinstance(data, Mapping) else data
        if isinstance(first, Sequence) and not isinstance(first, str):
            first = first[0] if len(first) else None
        try:
            return float(first)
        except (TypeError, ValueError):
            continue
    return None
