"""A learned neighbour gate: logistic regression over cheap facts about each candidate (issue 16).

For a retrieved chunk c (rank ρ among the top-k, 0 = the top hit) and a candidate neighbour n at
distance d on one side, the features are

    f = (cos(q,n), cos(q,c), cos(c,n), ρ, right, d)      right = 1 for n after c, 0 before

and the gate admits n iff σ(w·z(f) + b) > p, with z(f) = (f − mean) / std standardised by the
training set's mean and standard deviation. The decision is taken in logit space,
``w·z + b > log(p / (1 − p))``, which is the same rule without the rounding of σ near p (at
p = 0.5 the bar is exactly 0, so the rule is the sign of the score, strict).

SCAR is the special case w = (1, −τ, λ, 0, 0), b = −λ on raw features (mean 0, std 1), p = 0.5:
w·f + b = cos(q,n) − λ·(1 − cos(c,n)) − τ·cos(q,c) = S − bar (:meth:`LearnedGate.scar`).

Radius > 1 applies the gate outward as SCAR does: the chunk at distance d on a side is a
candidate only if the one at d − 1 was admitted or retrieved, and cos(c,n) is always taken
against c. The distance d is the sixth feature only for a gate fitted on candidates up to a
radius r > 1 (``fit_gate(..., radius=r)``); a gate fitted on radius-1 candidates (the default,
as the issue specifies) has seen d = 1 only, so d has no identifiable weight and is left out —
farther candidates are then judged by their similarities alone, the contiguity rule being the
only brake.

Fitting: L2-regularised logistic regression by Newton's method (IRLS) in numpy, on the
radius-1 neighbours of the top-k that are not themselves retrieved, labelled by gold
membership. Gold candidates are rare (5–10 %), so each class gets total weight N/2 (balanced
class weights) to find the direction w; the intercept is then shifted by logit(π), π the
training share of gold candidates (prior correction), so σ reads as a probability of being
gold on data like the training set and small p such as 0.04 are meaningful thresholds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from scar_viz.errors import UserError
from scar_viz.scoring.params import DEFAULT_RADIUS, GateParams
from scar_viz.scoring.scar import GateDecision, Selection, expand_outward, normalize
from scar_viz.scoring.sweep import CandidateSlots, contiguous, per_query, walk_candidates

FEATURES: tuple[str, ...] = ("cos_qn", "cos_qc", "cos_cn", "rank", "right", "distance")
"""Every feature the gate may use, in the column order of the feature matrices."""
BASE_FEATURES: tuple[str, ...] = FEATURES[:5]
"""The five features of a gate fitted on radius-1 candidates."""
FEATURE_MEANING: dict[str, str] = {
    "cos_qn": "cos(q,n): how relevant the neighbour is to the query",
    "cos_qc": "cos(q,c): how relevant the retrieved chunk is",
    "cos_cn": "cos(c,n): how much the neighbour continues the retrieved chunk",
    "rank": "rank of c among the retrieved chunks (0 = top hit)",
    "right": "side: 1 when n follows c, 0 when it precedes it",
    "distance": "distance from c to n in chunks (1 = adjacent)",
}
DEFAULT_P = 0.04
"""Default probability bar p (the issue's operating point)."""
DEFAULT_L2 = 1.0
"""Default L2 penalty on the standardised weights (the intercept is not penalised)."""
FORMAT = "scar-viz/learned-gate"
FORMAT_VERSION = 1
DEFAULT_GATE_FILE = "default_gate.json"


class GateFileError(UserError, ValueError):
    """A gate file (or gate dict) that cannot be read: one sentence for the user."""


class FitError(UserError, ValueError):
    """A query set a gate cannot be fitted on (e.g. no gold neighbour among the candidates)."""


def threshold_logit(p: float) -> float:
    """log(p / (1 − p)), the score bar equivalent to σ(score) > p.

    Raises:
        ValueError: unless 0 < p < 1.
    """
    p = float(p)
    if not 0.0 < p < 1.0 or math.isnan(p):
        raise ValueError(f"p must lie strictly between 0 and 1; got {p:g}.")
    return 0.0 if p == 0.5 else math.log(p) - math.log1p(-p)


def sigmoid(x: np.ndarray | float) -> np.ndarray:
    """σ(x) = 1 / (1 + e^−x), computed without overflow."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


# --- the gate ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class LearnedGate:
    """A fitted gate: score = Σ_i w_i·(f_i − mean_i)/std_i + b over ``feature_names``.

    ``fitted_on`` says what it was fitted on (document, model, chunking, k, counts, ...); it is
    metadata, left out of equality and hashing.
    """

    feature_names: tuple[str, ...]
    weights: tuple[float, ...]
    intercept: float
    mean: tuple[float, ...]
    std: tuple[float, ...]
    fitted_on: Mapping[str, object] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        n = len(self.feature_names)
        if not n or any(len(v) != n for v in (self.weights, self.mean, self.std)):
            raise GateFileError(
                "A gate needs as many weights, means and standard deviations as feature names."
            )
        unknown = [f for f in self.feature_names if f not in FEATURES]
        if unknown:
            raise GateFileError(
                f"Unknown gate feature(s) {', '.join(unknown)}; known: {', '.join(FEATURES)}."
            )
        if len(set(self.feature_names)) != n:
            raise GateFileError("A gate lists a feature twice.")
        values = [*self.weights, self.intercept, *self.mean, *self.std]
        if not all(isinstance(v, int | float) and math.isfinite(v) for v in values):
            raise GateFileError("A gate's weights, intercept, means and deviations must be finite.")
        if any(s <= 0 for s in self.std):
            raise GateFileError("A gate's standard deviations must be positive.")

    @property
    def columns(self) -> list[int]:
        """Indices of this gate's features in :data:`FEATURES` order."""
        return [FEATURES.index(f) for f in self.feature_names]

    def standardise(self, features: np.ndarray) -> np.ndarray:
        """z = (f − mean) / std for rows of all six :data:`FEATURES`, shape (M, n_features)."""
        f = np.atleast_2d(np.asarray(features, dtype=np.float64))[:, self.columns]
        return (f - np.asarray(self.mean)) / np.asarray(self.std)

    def contributions(self, features: np.ndarray) -> np.ndarray:
        """w_i·z_i per row and feature, shape (M, n_features)."""
        return self.standardise(features) * np.asarray(self.weights)

    def scores(self, features: np.ndarray) -> np.ndarray:
        """w·z + b per row of all six :data:`FEATURES`, shape (M,)."""
        return self.standardise(features) @ np.asarray(self.weights) + self.intercept

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """σ(w·z + b) per row."""
        return sigmoid(self.scores(features))

    def admits(self, features: np.ndarray, p: float = DEFAULT_P) -> np.ndarray:
        """σ(w·z + b) > p per row (decided in logit space)."""
        return self.scores(features) > threshold_logit(p)

    def describe(self) -> list[dict[str, object]]:
        """One row per feature: name, weight (on the standardised feature), mean, std, meaning."""
        return [
            {
                "feature": name,
                "weight": w,
                "mean": m,
                "std": s,
                "meaning": FEATURE_MEANING[name],
            }
            for name, w, m, s in zip(
                self.feature_names, self.weights, self.mean, self.std, strict=True
            )
        ]

    @classmethod
    def scar(cls, lam: float, tau: float) -> LearnedGate:
        """SCAR's gate as a learned gate: w = (1, −τ, λ, 0, 0), b = −λ on raw features.

        With p = 0.5 it admits exactly what SCAR admits (score = S − bar, strict).
        """
        return cls(
            BASE_FEATURES,
            (1.0, -float(tau), float(lam), 0.0, 0.0),
            -float(lam),
            (0.0,) * 5,
            (1.0,) * 5,
            {"source": f"SCAR λ={lam:g} τ={tau:g}"},
        )

    # --- JSON ---

    def to_dict(self) -> dict[str, object]:
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "feature_names": list(self.feature_names),
            "weights": [float(w) for w in self.weights],
            "intercept": float(self.intercept),
            "mean": [float(m) for m in self.mean],
            "std": [float(s) for s in self.std],
            "fitted_on": dict(self.fitted_on),
        }

    def to_json(self) -> str:
        """JSON text; floats are written with ``repr`` so they read back bit for bit."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: object) -> LearnedGate:
        """A gate from :meth:`to_dict`'s shape.

        Raises:
            GateFileError: for anything else.
        """
        if not isinstance(data, dict):
            raise GateFileError("A gate file must hold a JSON object.")
        if data.get("format", FORMAT) != FORMAT:
            raise GateFileError(f"Not a learned gate (format '{data.get('format')}').")
        missing = [
            k for k in ("feature_names", "weights", "intercept", "mean", "std") if k not in data
        ]
        if missing:
            raise GateFileError(f"The gate file lacks {', '.join(missing)}.")
        try:
            names = tuple(str(x) for x in data["feature_names"])
            weights, mean, std = (
                tuple(_number(x) for x in data[key]) for key in ("weights", "mean", "std")
            )
            intercept = _number(data["intercept"])
        except (TypeError, ValueError) as exc:
            raise GateFileError(f"The gate file has a malformed entry: {exc}") from None
        fitted_on = data.get("fitted_on") or {}
        if not isinstance(fitted_on, dict):
            raise GateFileError("The gate file's 'fitted_on' must be an object.")
        return cls(names, weights, intercept, mean, std, fitted_on)

    @classmethod
    def from_json(cls, text: str | bytes) -> LearnedGate:
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise GateFileError(
                f"The gate file is not valid JSON ({exc.msg if hasattr(exc, 'msg') else exc})."
            ) from None
        return cls.from_dict(data)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(self.to_json(), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> LearnedGate:
        """Read a gate file.

        Raises:
            GateFileError: when the file is missing, unreadable or not a gate.
        """
        text = _read_gate_text(path)
        try:
            return cls.from_json(text)
        except GateFileError as exc:
            raise GateFileError(f"'{path}': {exc}") from None


def _number(x: object) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise ValueError(f"{x!r} is not a number")
    return float(x)


@lru_cache(maxsize=1)
def default_gate() -> LearnedGate:
    """The gate shipped with the package (``scar_viz/data/default_gate.json``)."""
    text = resources.files("scar_viz.data").joinpath(DEFAULT_GATE_FILE).read_text("utf-8")
    return LearnedGate.from_json(text)


def resolve_gate(gate: LearnedGate | str | Path | None) -> LearnedGate:
    """A gate object from a gate, a path to a gate file, or None (the default gate)."""
    if gate is None:
        return default_gate()
    if isinstance(gate, LearnedGate):
        return gate
    if isinstance(gate, str | Path):
        return _parse_cached(_read_gate_text(gate), str(gate))
    raise GateFileError(f"Expected a gate or a gate file path, got {type(gate).__name__}.")


def _read_gate_text(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "unreadable"
        raise GateFileError(f"Cannot read gate file '{path}': {reason}.") from None


@lru_cache(maxsize=16)
def _parse_cached(text: str, name: str) -> LearnedGate:
    """A parsed gate, cached by the file's content (the name only labels errors)."""
    try:
        return LearnedGate.from_json(text)
    except GateFileError as exc:
        raise GateFileError(f"'{name}': {exc}") from None


def setting_notes(gate: LearnedGate, model: str, chunking: str, k: int) -> tuple[str, ...]:
    """Sentences saying where the current setting differs from the one ``gate`` was fitted in.

    The gate still runs; its features are similarities of another model or chunking, so its
    probabilities are less trustworthy (the pages and the CLI show these as notes).
    """
    meta = gate.fitted_on
    notes = []
    for key, now in (("model", model), ("chunking", chunking), ("k", k)):
        then = meta.get(key)
        if then is not None and str(then) != str(now):
            notes.append(f"The gate was fitted with {key} {then}; it is used with {now}.")
    return tuple(notes)


# --- candidates and features -------------------------------------------------------------------


@dataclass(frozen=True)
class CandidateTable(CandidateSlots):
    """:class:`~scar_viz.scoring.sweep.CandidateSlots` with each candidate's ``features`` (M, 6) in
    :data:`FEATURES` order; ``query``, ``chunk``, ``neighbour`` index the query and chunks;
    ``gold`` marks gold neighbours."""

    features: np.ndarray
    query: np.ndarray
    chunk: np.ndarray
    neighbour: np.ndarray
    gold: np.ndarray

    def training_rows(self, max_distance: int = 1) -> np.ndarray:
        """Mask of the fitting candidates: not retrieved, at distance ≤ ``max_distance``."""
        return ~self.is_retrieved & (self.features[:, 5] <= max_distance)


def candidate_features(
    sims: np.ndarray, unit: np.ndarray, c: int, rank: int, j: int, distance: int
) -> np.ndarray:
    """The six features of neighbour ``j`` of retrieved chunk ``c`` (rank 0-based)."""
    return np.array(
        [
            float(sims[j]),
            float(sims[c]),
            float(unit[c] @ unit[j]),
            float(rank),
            1.0 if j > c else 0.0,
            float(distance),
        ]
    )


def build_table(
    sims: np.ndarray,
    unit: np.ndarray,
    golds: Sequence[Sequence[int]] | None,
    k: int,
    radius: int = DEFAULT_RADIUS,
) -> CandidateTable:
    """List every candidate (query, retrieved c, neighbour at distance 1…r on each side).

    Args:
        sims: (Q, N), sims[q, i] = cos(q, c_i).
        unit: (N, d) unit-norm chunk vectors in document order.
        golds: gold chunk indices per query (None: no labels, every gold set empty).
        k: chunks retrieved per query.
        radius: r ≥ 1.

    Raises:
        ValueError: for mismatched shapes, k < 1 or r < 1.
    """
    sims = np.atleast_2d(np.asarray(sims, dtype=np.float64))
    unit = np.asarray(unit, dtype=np.float64)
    golds = [()] * sims.shape[0] if golds is None else [tuple(g) for g in golds]
    walk = walk_candidates(sims, unit, golds, k, radius, "The candidates need k ≥ 1 and r ≥ 1.")
    cols = (walk.query, walk.chunk, walk.rank, walk.neighbour, walk.distance)
    rows = [
        candidate_features(sims[q], unit, c, rank, j, d)
        for q, c, rank, j, d in zip(*(col.tolist() for col in cols), strict=True)
    ]
    return CandidateTable(
        **walk.slots,
        n_gold=np.array([max(1, len(set(g))) for g in golds], dtype=np.float64),
        features=np.array(rows, dtype=np.float64).reshape(-1, len(FEATURES)),
        query=walk.query,
        chunk=walk.chunk,
        neighbour=walk.neighbour,
        gold=walk.gold,
    )


# --- fitting ----------------------------------------------------------------------------------


def fit_logistic(
    x: np.ndarray,
    y: np.ndarray,
    l2: float = DEFAULT_L2,
    sample_weight: np.ndarray | None = None,
    max_iter: int = 100,
    tol: float = 1e-10,
) -> tuple[np.ndarray, float]:
    """L2-regularised weighted logistic regression by Newton's method (IRLS).

    Maximises Σ s_i·[y_i·log σ(x_i·w + b) + (1 − y_i)·log(1 − σ(x_i·w + b))] − l2/2·‖w‖²
    (the intercept b is not penalised). The objective is concave, so Newton converges.

    Returns:
        (w, b).
    """
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    m, n = x.shape
    s = np.ones(m) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    xa = np.hstack([x, np.ones((m, 1))])
    reg = np.full(n + 1, float(l2))
    reg[-1] = 0.0
    beta = np.zeros(n + 1)
    for _ in range(max_iter):
        prob = sigmoid(xa @ beta)
        grad = xa.T @ (s * (y - prob)) - reg * beta
        hess = (
            (xa * (s * prob * (1.0 - prob))[:, None]).T @ xa + np.diag(reg) + 1e-12 * np.eye(n + 1)
        )
        step = np.linalg.solve(hess, grad)
        beta = beta + step
        if np.max(np.abs(step)) < tol:
            break
    return beta[:-1], float(beta[-1])


def fit_gate(
    table: CandidateTable,
    *,
    l2: float = DEFAULT_L2,
    radius: int = DEFAULT_RADIUS,
    fitted_on: Mapping[str, object] | None = None,
) -> LearnedGate:
    """Fit a gate on the labelled candidates of ``table``.

    Uses the candidates up to distance ``radius`` that are not retrieved; ``radius`` > 1 adds
    the distance feature. Balanced class weights find the direction; the intercept is then
    prior-corrected by logit(π) (module docstring).

    Raises:
        FitError: when there are no candidates, or only one class.
        ValueError: when ``radius`` exceeds the table's.
    """
    radius = max(1, int(radius))
    if radius > table.radius:
        raise ValueError(f"The candidates reach r = {table.radius}; cannot fit on r = {radius}.")
    rows = table.training_rows(radius)
    names = FEATURES if radius > 1 else BASE_FEATURES
    x = table.features[rows][:, [FEATURES.index(f) for f in names]]
    meta = {**dict(fitted_on or {}), "k": table.k, "radius": radius, "n_queries": table.n_queries}
    return fit_arrays(x, table.gold[rows], names, l2=l2, fitted_on=meta)


def fit_arrays(
    x: np.ndarray,
    y: np.ndarray,
    feature_names: Sequence[str] = BASE_FEATURES,
    *,
    l2: float = DEFAULT_L2,
    fitted_on: Mapping[str, object] | None = None,
) -> LearnedGate:
    """Fit a gate on raw feature rows ``x`` (M, n) in ``feature_names`` order, labels ``y``.

    Standardises ``x`` (a constant column keeps std 1), fits with balanced class weights, then
    shifts the intercept by logit(π), π the share of positives.

    Raises:
        FitError: when there are no rows, or only one class.
    """
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    n_pos, n = int(y.sum()), len(y)
    if n == 0 or n_pos == 0 or n_pos == n:
        raise FitError(
            f"Fitting needs gold and non-gold candidates; got {n} candidates of which "
            f"{n_pos} gold. Use more labelled queries or a larger k."
        )
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    std = np.where(std > 1e-12, std, 1.0)
    z = (x - mean) / std
    weights = np.where(y > 0, n / (2.0 * n_pos), n / (2.0 * (n - n_pos)))
    w, b = fit_logistic(z, y, l2=l2, sample_weight=weights)
    prior = n_pos / n
    b_corrected = b + math.log(prior) - math.log1p(-prior)
    meta = {
        **dict(fitted_on or {}),
        "n_candidates": n,
        "n_gold": n_pos,
        "gold_share": round(prior, 6),
        "l2": float(l2),
        "class_weight": "balanced",
        "intercept_before_prior_correction": float(b),
    }
    return LearnedGate(
        tuple(feature_names),
        tuple(float(v) for v in w),
        float(b_corrected),
        tuple(float(v) for v in mean),
        tuple(float(v) for v in std),
        meta,
    )


def query_table(
    prep, queries, query_vecs: np.ndarray, k: int, radius: int = DEFAULT_RADIUS
) -> CandidateTable:
    """:func:`build_table` for labelled queries (:class:`~scar_viz.evaluation.queries.GoldQuery`)
    on a prepared document (:class:`~scar_viz.pipeline.PreparedDoc`)."""
    vecs = normalize(np.atleast_2d(np.asarray(query_vecs, dtype=np.float64)))
    sims = vecs @ prep.unit.T
    return build_table(sims, prep.unit, [q.gold for q in queries], k, max(1, radius))


def fit_gate_on(
    prep,
    queries,
    query_vecs: np.ndarray,
    k: int,
    *,
    radius: int = DEFAULT_RADIUS,
    l2: float = DEFAULT_L2,
    source: str | None = None,
) -> LearnedGate:
    """Fit a gate on labelled queries over a prepared document (what the CLI and pages call).

    ``fitted_on`` records the document, model, chunking, prepending, k, r and the counts.
    """
    table = query_table(prep, queries, query_vecs, k, radius)
    meta = {
        "document": source or prep.document.name,
        "model": prep.embedder_id,
        "chunking": prep.config.label,
        "prepend": bool(prep.prepend),
    }
    return fit_gate(table, l2=l2, radius=radius, fitted_on=meta)


# --- selection --------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class LearnedDecision(GateDecision):
    """One gate evaluation, with what a "why?" box shows.

    ``features`` maps feature name to its raw value; ``contributions`` maps each of the gate's
    features to w_i·z_i; ``score`` = Σ contributions + ``intercept``; ``bar`` = logit(p);
    ``probability`` = σ(score), admitted iff score > bar (⇔ probability > p). ``outcome`` is
    ``admitted``, ``rejected`` or ``retrieved`` as in :class:`~scar_viz.scoring.scar.Decision`.
    """

    rank: int
    features: Mapping[str, float]
    contributions: Mapping[str, float]
    intercept: float
    probability: float
    p: float

    def as_row(self) -> dict[str, object]:
        return {
            **self._where(),
            "rank": self.rank,
            "cos(q,n)": self.features["cos_qn"],
            "cos(q,c)": self.features["cos_qc"],
            "cos(c,n)": self.features["cos_cn"],
            "score": self.score,
            "probability": self.probability,
            "p": self.p,
            "outcome": self.outcome,
        }

    def why_rows(self) -> list[dict[str, object]]:
        """The "why?" box: one row per feature (value, contribution), then the intercept."""
        rows: list[dict[str, object]] = [
            {
                "term": name,
                "value": self.features[name],
                "contribution": contrib,
                "meaning": FEATURE_MEANING[name],
            }
            for name, contrib in self.contributions.items()
        ]
        rows.append(
            {"term": "intercept", "value": None, "contribution": self.intercept, "meaning": ""}
        )
        return rows


@dataclass(frozen=True)
class LearnedSelection(Selection):
    """A :class:`~scar_viz.scoring.scar.Selection` made by a learned gate (``decisions`` hold
    :class:`LearnedDecision`); ``params.lam`` and ``params.tau`` are unused (0)."""

    gate: LearnedGate | None = None
    p: float = DEFAULT_P


def learned_select(
    sims: np.ndarray,
    unit: np.ndarray,
    k: int,
    gate: LearnedGate,
    p: float = DEFAULT_P,
    radius: int = DEFAULT_RADIUS,
) -> LearnedSelection:
    """The learned gate's selection for one query, outward as SCAR (module docstring).

    Args:
        sims: (N,), cos(q, c_i).
        unit: (N, d) unit-norm chunk vectors.
        k: chunks retrieved.
        gate: the gate.
        p: the probability bar, 0 < p < 1.
        radius: r ≥ 0.
    """
    bar = threshold_logit(p)
    if radius < 0:
        raise ValueError("Radius must be 0 or more.")
    sims = np.asarray(sims, dtype=np.float64)
    w = np.asarray(gate.weights)

    def judge(c: int, rank: int, j: int, side: str, d: int, retrieved: bool) -> LearnedDecision:
        f = candidate_features(sims, unit, c, rank, j, d)
        z = gate.standardise(f)[0]
        score = float(z @ w + gate.intercept)
        passes = score > bar
        if retrieved:
            outcome, blocked = "retrieved", ""
        elif passes:
            outcome, blocked = "admitted", ""
        else:
            outcome, blocked = "rejected", "learned gate"
        return LearnedDecision(
            chunk=c,
            neighbour=j,
            side=side,
            distance=d,
            rank=rank,
            features=dict(zip(FEATURES, (float(v) for v in f), strict=True)),
            contributions=dict(zip(gate.feature_names, (float(v) for v in z * w), strict=True)),
            intercept=float(gate.intercept),
            score=score,
            bar=bar,
            margin=score - bar,
            probability=float(sigmoid(score)),
            p=float(p),
            passes=bool(passes),
            outcome=outcome,
            blocked_by=blocked,
        )

    retrieved, admitted, decisions = expand_outward(sims, k, radius, judge)
    return LearnedSelection(
        retrieved=retrieved,
        selected=sorted(set(retrieved) | admitted),
        admitted=sorted(admitted - set(retrieved)),
        decisions=tuple(decisions),
        sims=sims,
        params=GateParams(k=int(k), lam=0.0, tau=0.0, radius=int(radius)),
        gate=gate,
        p=float(p),
    )


# --- the curve as p varies ----------------------------------------------------------------------

DEFAULT_PS = tuple(float(p) for p in np.round(np.geomspace(0.002, 0.9, 60), 4))
"""Default p grid for :func:`p_curve`: 60 values from 0.002 to 0.9, log-spaced."""


@dataclass(frozen=True)
class PCurve:
    """The learned gate's recall and mean unique chunks at each p (arrays of length T).

    ``query_recall`` and ``query_chunks`` are (T, Q); ``fragmented`` (Q,) marks the
    boundary-fragmented queries, for :meth:`subset`.
    """

    ps: np.ndarray
    recall: np.ndarray
    mean_chunks: np.ndarray
    query_recall: np.ndarray = field(repr=False)
    query_chunks: np.ndarray = field(repr=False)
    fragmented: np.ndarray | None = field(default=None, repr=False)

    @property
    def efficiency(self) -> np.ndarray:
        return np.divide(
            self.recall,
            self.mean_chunks,
            out=np.zeros_like(self.recall),
            where=self.mean_chunks > 0,
        )

    def subset(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(recall, mean chunks) over ``all``, ``fragmented`` or ``atomic`` queries."""
        if name == "all":
            return self.recall, self.mean_chunks
        if self.fragmented is None or name not in ("fragmented", "atomic"):
            raise ValueError(f"Unknown subset '{name}' (or no query types given).")
        mask = self.fragmented if name == "fragmented" else ~self.fragmented
        if not mask.any():
            nan = np.full(len(self.ps), np.nan)
            return nan, nan
        return self.query_recall[:, mask].mean(axis=1), self.query_chunks[:, mask].mean(axis=1)

    def nearest(self, p: float) -> int:
        """Index of the grid p closest to ``p`` (in log space)."""
        return int(np.abs(np.log(self.ps) - math.log(p)).argmin())

    def rows(self) -> list[dict[str, float]]:
        """One row per p: p, recall, mean chunks, efficiency."""
        eff = self.efficiency
        return [
            {
                "p": float(p),
                "recall": float(r),
                "mean_chunks": float(c),
                "efficiency": float(e),
            }
            for p, r, c, e in zip(self.ps, self.recall, self.mean_chunks, eff, strict=True)
        ]


def admitted_matrix(table: CandidateTable, scores: np.ndarray, bars: np.ndarray) -> np.ndarray:
    """(T, M) booleans: candidate m admitted at score bar ``bars[t]``, with the contiguity rule."""
    return contiguous(table, scores[None, :] > bars[:, None])


def p_curve(
    table: CandidateTable,
    gate: LearnedGate,
    ps: Sequence[float] | np.ndarray = DEFAULT_PS,
    fragmented: Sequence[bool] | np.ndarray | None = None,
) -> PCurve:
    """Recall and mean unique chunks of the learned gate at every p, vectorised.

    The features and scores are computed once; each p is one comparison against logit(p).
    Per query: chunks = |retrieved| + |admitted| (unique), recall = |selected ∩ gold| / |gold|.

    Raises:
        ValueError: for a p outside (0, 1) or an empty grid.
    """
    ps = np.asarray(ps, dtype=np.float64).reshape(-1)
    if not len(ps):
        raise ValueError("The p grid is empty.")
    bars = np.array([threshold_logit(p) for p in ps])
    scores = gate.scores(table.features) if len(table.features) else np.zeros(0)
    admitted = admitted_matrix(table, scores, bars)
    n_t, n_q = len(ps), table.n_queries
    q_chunks, q_recall = per_query(table, admitted)
    frag = None if fragmented is None else np.asarray(fragmented, dtype=bool)
    return PCurve(
        ps,
        q_recall.mean(axis=1) if n_q else np.zeros(n_t),
        q_chunks.mean(axis=1) if n_q else np.zeros(n_t),
        q_recall,
        q_chunks,
        frag,
    )


def p_curve_on(
    prep,
    queries,
    query_vecs: np.ndarray,
    gate: LearnedGate,
    k: int,
    radius: int = DEFAULT_RADIUS,
    ps: Sequence[float] | np.ndarray = DEFAULT_PS,
) -> PCurve:
    """:func:`p_curve` for labelled queries on a prepared document (what the pages call)."""
    table = query_table(prep, queries, query_vecs, k, radius)
    return p_curve(table, gate, ps, [q.fragmented for q in queries])
