"""Stage 5: retrieval policies behind one interface (docs/method.md §1, §2, §5).

Each policy takes a :class:`QueryInputs` and returns a :class:`PolicyResult`: its context as
character spans over the document (so chunk-based and sentence-based policies compare on equal
footing), its chunk indices where it has them, and its cost (characters, tokens, time).
:mod:`~scar_viz.policies.registry` lists every policy by name: topk, window, parent, rerank,
scar, qasc, and the §7 policies users compare against: qasc-hybrid, rse, automerge,
sentence-window, learned. :mod:`~scar_viz.policies.context` assembles a selection into the
context a language model receives.
"""

from __future__ import annotations

from scar_viz.policies.base import PolicyEntry, PolicyResult, QueryInputs, spans_of_chunks
from scar_viz.policies.registry import (
    ALL_ORDER,
    ALTERNATIVES,
    ENTRIES,
    ORDER,
    POLICIES,
    policy_knobs,
    run_all,
    run_policy,
    uses_k,
)

__all__ = [
    "ALL_ORDER",
    "ALTERNATIVES",
    "ENTRIES",
    "ORDER",
    "POLICIES",
    "PolicyEntry",
    "PolicyResult",
    "QueryInputs",
    "policy_knobs",
    "run_all",
    "run_policy",
    "spans_of_chunks",
    "uses_k",
]
