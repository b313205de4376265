"""The learned neighbour gate: logistic regression over cheap facts about each candidate.

- :mod:`~scar_viz.scoring.learned.features`: the features of a candidate neighbour, the table of
  every candidate of a query set;
- :mod:`~scar_viz.scoring.learned.model`: :class:`LearnedGate`, its JSON file, the shipped gate;
- :mod:`~scar_viz.scoring.learned.fit`: fitting (scikit-learn, balanced classes, L2);
- :mod:`~scar_viz.scoring.learned.select`: selection, SCAR's walk with the learned judge;
- :mod:`~scar_viz.scoring.learned.p_curve`: recall and chunks as the bar p varies.

Fitting and curves on labelled queries over a prepared document live in
:mod:`scar_viz.evaluation.learned`.
"""

from __future__ import annotations

from scar_viz.scoring.learned.features import (
    ALL_FEATURES,
    BASE_FEATURES,
    FEATURE_MEANING,
    FEATURE_SETS,
    FEATURES,
    LEXICAL_FEATURES,
    CandidateTable,
    build_table,
    candidate_features,
)
from scar_viz.scoring.learned.fit import (
    DEFAULT_L2,
    WEIGHT_TOLERANCE,
    FitError,
    fit_arrays,
    fit_gate,
)
from scar_viz.scoring.learned.model import (
    DEFAULT_P,
    GateFileError,
    LearnedGate,
    default_gate,
    fitted_k,
    k_note,
    rank_changes,
    resolve_gate,
    setting_notes,
    sigmoid,
    threshold_logit,
)
from scar_viz.scoring.learned.p_curve import DEFAULT_PS, PCurve, p_curve
from scar_viz.scoring.learned.select import LearnedDecision, LearnedSelection, learned_select

__all__ = [
    "ALL_FEATURES",
    "BASE_FEATURES",
    "DEFAULT_L2",
    "DEFAULT_P",
    "DEFAULT_PS",
    "FEATURES",
    "FEATURE_MEANING",
    "FEATURE_SETS",
    "LEXICAL_FEATURES",
    "WEIGHT_TOLERANCE",
    "CandidateTable",
    "FitError",
    "GateFileError",
    "LearnedDecision",
    "LearnedGate",
    "LearnedSelection",
    "PCurve",
    "build_table",
    "candidate_features",
    "default_gate",
    "fit_arrays",
    "fit_gate",
    "learned_select",
    "p_curve",
    "resolve_gate",
    "setting_notes",
    "fitted_k",
    "k_note",
    "rank_changes",
    "sigmoid",
    "threshold_logit",
]
