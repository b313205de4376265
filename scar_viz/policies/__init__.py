"""Stage 5: retrieval policies behind one interface (METHODS.md §1, §2, §5).

Each policy takes a :class:`QueryInputs` and returns a :class:`PolicyResult`: its context as
character spans over the document (so chunk-based and sentence-based policies compare on equal
footing), its chunk indices where it has them, and its cost (characters, tokens, time).
Policies register themselves in :data:`POLICIES` by name: topk, window, parent, rerank,
scar, qasc, and the §7 policies users compare against: qasc-hybrid, rse, automerge,
sentence-window. :mod:`~scar_viz.policies.context` assembles a selection into the context a
language model receives.
"""

from __future__ import annotations

from scar_viz.policies import automerge as _automerge  # noqa: F401  (registers automerge)
from scar_viz.policies import basic as _basic  # noqa: F401  (registers topk, window, scar)
from scar_viz.policies import learned as _learned  # noqa: F401  (registers learned)
from scar_viz.policies import parent as _parent  # noqa: F401  (registers parent)
from scar_viz.policies import qasc as _qasc  # noqa: F401  (registers qasc)
from scar_viz.policies import rerank as _rerank  # noqa: F401  (registers rerank)
from scar_viz.policies import rse as _rse  # noqa: F401  (registers rse)
from scar_viz.policies import sentence_window as _sw  # noqa: F401  (registers sentence-window)
from scar_viz.policies.base import (
    POLICIES,
    PolicyResult,
    QueryInputs,
    comparison_rows,
    intersect_spans,
    jaccard,
    merge_spans,
    policy_knobs,
    register,
    run_all,
    run_policy,
    span_total,
    spans_of_chunks,
    subtract_spans,
)

ORDER = ("topk", "window", "parent", "rerank", "scar", "qasc")
"""The six policies in the order the compare page and the CLI list them."""

ALTERNATIVES = ("qasc-hybrid", "rse", "automerge", "sentence-window", "learned")
"""What users pick instead of SCAR (METHODS.md §5, §7), in display order."""

ALL_ORDER = ORDER + ALTERNATIVES
"""Every registered policy in display order."""

__all__ = [
    "POLICIES",
    "PolicyResult",
    "ORDER",
    "ALL_ORDER",
    "ALTERNATIVES",
    "QueryInputs",
    "comparison_rows",
    "intersect_spans",
    "jaccard",
    "merge_spans",
    "policy_knobs",
    "register",
    "run_all",
    "run_policy",
    "span_total",
    "spans_of_chunks",
    "subtract_spans",
]
