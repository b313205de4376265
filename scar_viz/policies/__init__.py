"""Retrieval policies behind one interface (METHODS.md §1, §2, §5).

Each policy takes a :class:`QueryInputs` and returns a :class:`PolicyResult`: its context as
character spans over the document (so chunk-based and sentence-based policies compare on equal
footing), its chunk indices where it has them, and its cost (characters, tokens, time).
Policies register themselves in :data:`POLICIES` by name.
"""

from __future__ import annotations

from scar_viz.policies import basic as _basic  # noqa: F401  (registers topk, window, scar)
from scar_viz.policies.base import (
    POLICIES,
    PolicyResult,
    QueryInputs,
    merge_spans,
    register,
    run_policy,
    spans_of_chunks,
)

__all__ = [
    "POLICIES",
    "PolicyResult",
    "QueryInputs",
    "merge_spans",
    "register",
    "run_policy",
    "spans_of_chunks",
]
