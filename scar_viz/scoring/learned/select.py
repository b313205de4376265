"""Selection with a learned gate: SCAR's neighbour walk with the learned judge.

The walk (:func:`scar_viz.scoring.walk.walk_neighbours`) is SCAR's: outward from each retrieved
chunk to radius r, the chunk at distance d on a side being a candidate only if the one at d − 1
was admitted or retrieved. The judge scores the candidate's features
(:mod:`~scar_viz.scoring.learned.features`, cos(c,n) always taken against c) and admits it iff
w·z + b > logit(p). A gate fitted on radius-1 candidates judges farther ones by their
similarities alone, the contiguity rule being the only brake.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from scar_viz.common.errors import SettingsError
from scar_viz.scoring.learned.features import (
    ALL_FEATURES,
    FEATURE_MEANING,
    FEATURES,
    candidate_features,
)
from scar_viz.scoring.learned.model import DEFAULT_P, LearnedGate, sigmoid, threshold_logit
from scar_viz.scoring.lexical import QuestionLex
from scar_viz.scoring.params import DEFAULT_RADIUS, GateParams
from scar_viz.scoring.scar import Selection, top_k
from scar_viz.scoring.walk import GateDecision, Judge, Neighbour, walk_neighbours


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

    def why_rows(self) -> list[dict[str, Any]]:
        """The "why?" box: one row per feature (value, contribution), then the intercept."""
        rows: list[dict[str, Any]] = [
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
class LearnedSelection(Selection[LearnedDecision]):
    """A :class:`~scar_viz.scoring.scar.Selection` made by a learned gate (``decisions`` hold
    :class:`LearnedDecision`); ``params.lam`` and ``params.tau`` are unused (0)."""

    gate: LearnedGate | None = None
    p: float = DEFAULT_P


def learned_judge(
    sims: np.ndarray,
    unit: np.ndarray,
    gate: LearnedGate,
    p: float,
    lexical: QuestionLex | None = None,
) -> Judge[LearnedDecision]:
    """The learned gate's judge for :func:`~scar_viz.scoring.walk.walk_neighbours`: admit iff
    w·z(f) + b > logit(p); a rejection is blocked by ``learned gate``. ``lexical`` (the
    question's lexical evidence) is needed by a gate with lexical features, and adds them to
    each decision's ``features``.

    Raises:
        SettingsError: for a lexical gate without ``lexical``.
    """
    if gate.uses_lexical and lexical is None:
        raise SettingsError(
            "This gate uses lexical features; they need the question and the chunk texts."
        )
    bar = threshold_logit(p)
    w = np.asarray(gate.weights)
    names = ALL_FEATURES if lexical is not None else FEATURES

    def judge(cand: Neighbour) -> LearnedDecision:
        c, j = cand.chunk, cand.neighbour
        f = candidate_features(sims, unit, c, cand.rank, j, cand.distance, lexical)
        z = gate.standardise(f)[0]
        score = float(z @ w + gate.intercept)
        return LearnedDecision(
            **cand.verdict(score, bar, bool(score > bar), "learned gate"),
            rank=cand.rank,
            features=dict(zip(names, (float(v) for v in f), strict=False)),
            contributions=dict(zip(gate.feature_names, (float(v) for v in z * w), strict=True)),
            intercept=float(gate.intercept),
            probability=float(sigmoid(score)),
            p=float(p),
        )

    return judge


def learned_select(
    sims: np.ndarray,
    unit: np.ndarray,
    k: int,
    gate: LearnedGate,
    p: float = DEFAULT_P,
    radius: int = DEFAULT_RADIUS,
    *,
    doc_of: np.ndarray,
    lexical: QuestionLex | None = None,
    rank: np.ndarray | None = None,
) -> LearnedSelection:
    """The learned gate's selection for one query, outward as SCAR (module docstring).

    Args:
        sims: (N,), cos(q, c_i).
        unit: (N, d) unit-norm chunk vectors.
        k: chunks retrieved.
        gate: the gate.
        p: the probability bar, 0 < p < 1.
        radius: r ≥ 0.
        doc_of: (N,) the file of each chunk in a corpus; neighbours stay inside their chunk's
            file (None for one file).
        lexical: the question's lexical evidence (:func:`scar_viz.scoring.lexical.question_lex`),
            needed by a gate with lexical features.
        rank: (N,) the retriever's scores the top-k is taken by (None: ``sims``); the gate
            keeps using the cosines.

    Raises:
        ValueError: for p outside (0, 1); SettingsError (a ValueError) for k < 1 or r < 0.
        SettingsError: for a lexical gate without ``lexical``.
    """
    sims = np.asarray(sims, dtype=np.float64)
    judge = learned_judge(sims, unit, gate, p, lexical)
    retrieved = top_k(sims if rank is None else rank, k)
    selected, admitted, decisions = walk_neighbours(retrieved, len(sims), radius, judge, doc_of)
    return LearnedSelection(
        retrieved=retrieved,
        selected=selected,
        admitted=admitted,
        decisions=decisions,
        sims=sims,
        params=GateParams(k=int(k), lam=0.0, tau=0.0, radius=int(radius)),  # checks k and r
        gate=gate,
        p=float(p),
    )


def decision_features(decisions: Sequence[LearnedDecision]) -> np.ndarray:
    """(M, 9) feature rows in :data:`ALL_FEATURES` order (NaN where a decision has none) of
    the candidates the gate judged (not those already retrieved): what
    :func:`~scar_viz.scoring.learned.model.rank_changes` reads."""
    judged = [d for d in decisions if d.outcome != "retrieved"]
    return np.array(
        [[d.features.get(f, np.nan) for f in ALL_FEATURES] for d in judged], dtype=np.float64
    ).reshape(len(judged), len(ALL_FEATURES))
