"""Model transfer: does a gate setting carry over to another embedding model?

SCAR's bar is relative (τ·cos(q,c)): it scales with the model's similarities. An absolute bar
θ tuned on model 1 does not (:func:`bar_transfer`). :func:`similarity_samples` gives each
model's similarity scales for histograms (a seeded random subsample of the query × chunk
similarities, so large documents stay cheap).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from scar_viz.common.edges import file_edges
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.scoring.scar import top_k
from scar_viz.scoring.sweep import THETAS, Candidates, SweepResult, match_chunks, sweep

MAX_SIMILARITIES = 20_000
"""At most this many query × chunk similarities go into the 'all chunks' histogram."""

SIMILARITY_KINDS = (
    "cos(q,c), all chunks",
    "cos(q,c), top-k",
    "cos(c, c+1), adjacent chunks",
)


def similarity_samples(
    run: LabelledRun, k: int, max_points: int = MAX_SIMILARITIES, seed: int = 0
) -> dict[str, np.ndarray]:
    """{kind: values} for :data:`SIMILARITY_KINDS` on a labelled run: every cos(q,c) (a seeded
    subsample of ``max_points`` when there are more), the top-k cos(q,c) of each query, and
    cos(c, c+1) = 1 − b of each adjacent pair (in a corpus, of each pair inside one file)."""
    prep = run.prep
    sims = run.vecs @ prep.unit.T
    top = np.concatenate([row[top_k(row, k)] for row in sims]) if len(sims) else np.zeros(0)
    flat = sims.ravel()
    if len(flat) > max_points:
        flat = np.random.default_rng(seed).choice(flat, max_points, replace=False)
    edges = file_edges(prep.doc_of, len(prep.chunks))
    adjacent = 1.0 - np.asarray(prep.penalties)[~edges]
    return dict(zip(SIMILARITY_KINDS, (flat, top, adjacent), strict=True))


def model_labels(first: str, second: str) -> tuple[str, str]:
    """Display names of two models, told apart when their ids are equal."""
    return (first, second) if first != second else (f"{first} (1)", f"{second} (2)")


@dataclass(frozen=True)
class BarRow:
    model: str
    bar: str
    recall: float
    mean_chunks: float
    efficiency: float


@dataclass(frozen=True)
class BarTransfer:
    """SCAR's relative bar against an absolute bar θ tuned on model 1, on both models.

    θ is tuned on model 1 so that its mean chunk count at the same λ matches the relative
    bar's; ``curves`` are the θ sweeps (one row of λ) on each model.
    """

    lam: float
    tau: float
    theta: float
    rows: tuple[BarRow, ...]
    curves: tuple[SweepResult, SweepResult] = field(repr=False)

    def chunk_curves(self, labels: tuple[str, str]) -> dict[str, np.ndarray]:
        """Mean chunks along the θ grid on each model, for the θ chart."""
        return {label: c.mean_chunks[0] for label, c in zip(labels, self.curves, strict=True)}

    def relative_chunks(self, labels: tuple[str, str]) -> dict[str, float]:
        """Mean chunks of SCAR's relative bar on each model (the chart's dashed lines)."""
        return {labels[0]: self.rows[0].mean_chunks, labels[1]: self.rows[2].mean_chunks}


def bar_transfer(
    c1: Candidates,
    c2: Candidates,
    lam: float,
    tau: float,
    labels: tuple[str, str] = ("model 1", "model 2"),
    thetas: np.ndarray = THETAS,
) -> BarTransfer:
    """Relative bar τ·cos(q,c) against absolute bar θ on two models at the same λ."""
    rel = [sweep(c, [lam], [tau]) for c in (c1, c2)]
    curves = (sweep(c1, [lam], thetas, "absolute"), sweep(c2, [lam], thetas, "absolute"))
    j = match_chunks(curves[0], 0, float(rel[0].mean_chunks[0, 0]))
    theta = float(thetas[j])
    rows = []
    for label, r, curve in zip(labels, rel, curves, strict=True):
        rows.append(
            BarRow(
                label,
                f"relative τ = {tau:.2f}",
                float(r.recall[0, 0]),
                float(r.mean_chunks[0, 0]),
                float(r.efficiency[0, 0]),
            )
        )
        rows.append(
            BarRow(
                label,
                f"absolute θ = {theta:.3f}",
                float(curve.recall[0, j]),
                float(curve.mean_chunks[0, j]),
                float(curve.efficiency[0, j]),
            )
        )
    return BarTransfer(float(lam), float(tau), theta, tuple(rows), curves)
