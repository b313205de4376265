"""Stage 7: evaluating a labelled query set (read and labelled by :mod:`scar_viz.queries`).
One module per concern; the run, significance, the report, transfer and tuning are re-exported
here.

- :mod:`~scar_viz.evaluation.metrics`: recall, chunks, chunk efficiency, tokens;
  :mod:`~scar_viz.evaluation.bootstrap`: paired bootstrap, Cohen's d;

- :mod:`~scar_viz.evaluation.settings`: what a run ran on (:class:`RunSettings`);
  :mod:`~scar_viz.evaluation.run`: :func:`evaluate`, the policy names;
- :mod:`~scar_viz.evaluation.significance`: paired bootstrap and Cohen's d;
- :mod:`~scar_viz.evaluation.report`: every table of the Evaluation lab and the JSON;
  :mod:`~scar_viz.evaluation.run_json`: the JSON writer ``eval`` and ``answer`` share;
- :mod:`~scar_viz.evaluation.transfer`: a second model, the relative vs an absolute bar;
- :mod:`~scar_viz.evaluation.tune`: the sweep's marks and frontier, tune on one set / check
  on another; :mod:`~scar_viz.evaluation.best_point`: the sweep's frugal best;
- :mod:`~scar_viz.evaluation.budget`: recall against context tokens at equal budget.
"""

from __future__ import annotations

from scar_viz.evaluation.report import (
    bar_rows,
    chunker_rows,
    evaluation_json,
    issue_rows,
    miss_reason_rows,
    per_query_rows,
    reduction,
    significance_rows,
    summary_lines,
    summary_rows,
    transfer_rows,
    tune_rows,
)
from scar_viz.evaluation.run import (
    BASE_POLICIES,
    METRICS,
    OPTIONAL_POLICIES,
    Embed,
    Evaluation,
    PolicyEval,
    available_policies,
    candidates_for,
    default_policies,
    evaluate,
    parse_policy_list,
    resolve_policy,
)
from scar_viz.evaluation.significance import Comparison, significance
from scar_viz.evaluation.transfer import BarRow, BarTransfer, bar_transfer, similarity_samples
from scar_viz.evaluation.tune import frontier_points, sweep_marks, tune_check

__all__ = [
    "BASE_POLICIES",
    "METRICS",
    "OPTIONAL_POLICIES",
    "BarRow",
    "BarTransfer",
    "Comparison",
    "Embed",
    "Evaluation",
    "PolicyEval",
    "available_policies",
    "bar_rows",
    "bar_transfer",
    "candidates_for",
    "chunker_rows",
    "default_policies",
    "evaluate",
    "evaluation_json",
    "frontier_points",
    "issue_rows",
    "miss_reason_rows",
    "parse_policy_list",
    "per_query_rows",
    "reduction",
    "resolve_policy",
    "significance",
    "significance_rows",
    "similarity_samples",
    "summary_lines",
    "summary_rows",
    "sweep_marks",
    "transfer_rows",
    "tune_check",
    "tune_rows",
]
