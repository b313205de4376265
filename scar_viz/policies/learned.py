"""The ``learned`` policy: top-k plus the neighbours a fitted logistic gate admits.

Knobs: ``gate`` (a :class:`~scar_viz.scoring.learned.model.LearnedGate`, a path to a gate file,
or None for the gate shipped with the package) and ``p`` (the probability bar). The result's
``detail`` is a :class:`~scar_viz.scoring.learned.select.LearnedSelection` whose decisions carry
each feature's contribution, the score and the probability against p (the "why?" box).
"""

from __future__ import annotations

import time
from pathlib import Path

from scar_viz.policies.base import PolicyResult, QueryInputs, chunk_result, policy_entry
from scar_viz.scoring.learned import DEFAULT_P, LearnedGate, learned_select, resolve_gate
from scar_viz.scoring.lexical import question_lex

_LEX = ("learned", "question lex")
"""The :attr:`QueryInputs.memo` key of lex(q, ·) (25 s of Equal budget's 132 s at 250
questions when it was built again at each k, under cProfile)."""


def learned_policy(
    inputs: QueryInputs, gate: LearnedGate | str | Path | None = None, p: float = DEFAULT_P
) -> PolicyResult:
    """Admit neighbour n iff σ(w·z(f) + b) > p, outward to radius r as SCAR does."""
    resolved = resolve_gate(gate)
    t0 = time.perf_counter()
    params = inputs.params
    lexical = None
    if resolved.uses_lexical:  # the question's words: once per query, whatever k and p
        lexical = inputs.memo.get(_LEX)
        if lexical is None:
            texts = [c.text for c in inputs.chunks]
            lexical = inputs.memo[_LEX] = question_lex(texts, inputs.query)
    sel = learned_select(
        inputs.sims,
        inputs.unit,
        params.k,
        resolved,
        float(p),
        params.radius,
        doc_of=inputs.doc_of,
        lexical=lexical,
        rank=inputs.ranking,
    )
    return chunk_result("learned", inputs, sel.selected, t0, detail=sel)


POLICY = policy_entry("learned", learned_policy)
