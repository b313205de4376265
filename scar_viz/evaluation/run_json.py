"""The JSON of a run of policies over a labelled query set, written by ``eval --json`` and
``answer --json`` alike.

Shape: ``{"n_queries", <head>, "tokenizer", "policies": {name: summary}, "errors": {name:
message}, "significance": [...], <tail>, "queries": [{<query fields>, "policies": {name:
entry}}]}``; policies that did not run appear only under ``errors``. Figures are rounded by
:func:`rounded`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, TypeVar

from scar_viz.chunking.tokens import TOKENIZER_NAME
from scar_viz.evaluation.significance import Comparison
from scar_viz.queries.gold import GoldQuery

DIGITS = 6
"""Decimals of every figure in the JSON."""


class _PolicyRun(Protocol):
    @property
    def error(self) -> str: ...


P = TypeVar("P", bound=_PolicyRun)
Json = dict[str, object]


def rounded(x: float | None) -> float | None:
    """``x`` to :data:`DIGITS` decimals as a plain float (None stays None)."""
    return None if x is None else round(float(x), DIGITS)


def run_json(
    queries: Sequence[GoldQuery],
    head: Mapping[str, object],
    policies: Mapping[str, P],
    summary: Callable[[P], Json],
    comparisons: Sequence[Comparison] = (),
    tail: Mapping[str, object] | None = None,
    *,
    per_query: Callable[[P, int], Json] | None = None,
    query_fields: Callable[[GoldQuery], Json] | None = None,
) -> Json:
    """A run as JSON.

    Args:
        head: what follows ``n_queries``: the setting (see
            :meth:`~scar_viz.evaluation.settings.RunSettings.as_json`) and counts.
        policies: every policy by label; one with an ``error`` is listed under ``errors``.
        summary: a policy's figures over the query set.
        tail: what follows ``significance`` (the command's own lists).
        per_query: ``per_query(policy, i)``, a policy's entry for query ``i``; None leaves
            out the ``queries`` list.
        query_fields: what a ``queries`` row says about its query before ``policies``
            (default its id).
    """
    ran = {name: p for name, p in policies.items() if not p.error}
    out: Json = {
        "n_queries": len(queries),
        **head,
        "tokenizer": TOKENIZER_NAME,
        "policies": {name: summary(p) for name, p in ran.items()},
        "errors": {name: p.error for name, p in policies.items() if p.error},
        "significance": [c.as_dict() for c in comparisons],
        **(tail or {}),
    }
    if per_query is not None:
        fields = query_fields or (lambda gq: {"id": gq.id})
        out["queries"] = [
            {**fields(gq), "policies": {name: per_query(p, i) for name, p in ran.items()}}
            for i, gq in enumerate(queries)
        ]
    return out
