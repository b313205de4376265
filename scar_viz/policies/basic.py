"""Chunk-index policies: top-k, static window ±w, and SCAR."""

from __future__ import annotations

import time

from scar_viz.policies.base import PolicyResult, QueryInputs, chunk_result, policy_entry
from scar_viz.scoring.lexical import question_lex
from scar_viz.scoring.scar import select_from_sims, window


def topk_policy(inputs: QueryInputs) -> PolicyResult:
    t0 = time.perf_counter()
    return chunk_result("topk", inputs, inputs.top(inputs.params.k), t0)


def window_policy(inputs: QueryInputs, w: int = 1) -> PolicyResult:
    """Static window: c_{i-w} … c_{i+w} around each retrieved chunk."""
    t0 = time.perf_counter()
    ids = window(inputs.top(inputs.params.k), len(inputs.chunks), int(w), inputs.doc_of)
    return chunk_result(f"window{int(w)}", inputs, ids, t0)


def scar_policy(inputs: QueryInputs) -> PolicyResult:
    t0 = time.perf_counter()
    lexical = None
    if inputs.params.mu:
        lexical = question_lex([c.text for c in inputs.chunks], inputs.query)
    sel = select_from_sims(
        inputs.sims, inputs.unit, inputs.params, inputs.doc_of, lexical, rank=inputs.ranking
    )
    return chunk_result("scar", inputs, sel.selected, t0, detail=sel)


TOPK = policy_entry("topk", topk_policy)
WINDOW = policy_entry("window", window_policy)
SCAR = policy_entry("scar", scar_policy)
