"""The run: a labelled query set through retrieval policies on one prepared document.

Labelled queries (:mod:`scar_viz.queries.gold`) and their query vectors → every policy for
every query (:mod:`scar_viz.policies`) → per-query outcomes and summaries
(:mod:`scar_viz.evaluation.metrics`). Also which policy names exist (:func:`available_policies`,
:func:`resolve_policy`) and the sweep's candidates for a query set (:func:`candidates_for`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, overload

import numpy as np

from scar_viz.common.errors import SettingsError, UserError, user_message
from scar_viz.embeddings import Progress
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.metrics import (
    Miss,
    QueryOutcome,
    Summary,
    chunk_equivalents,
    chunk_recall,
    coverage_misses,
    coverage_recall,
    miss_reasons,
    summarise_subsets,
)
from scar_viz.evaluation.settings import RunSettings
from scar_viz.pipeline import query_inputs
from scar_viz.policies import POLICIES, PolicyResult, QueryInputs, run_policy, uses_k
from scar_viz.queries.gold import GoldQuery, type_counts
from scar_viz.queries.reading import QueryIssue
from scar_viz.runtime.cancel import ShouldStop, check
from scar_viz.scoring.lexical import lex_matrix
from scar_viz.scoring.params import DEFAULT_PARAMS, DEFAULT_RADIUS, GateParams
from scar_viz.scoring.scar import Selection, top_k
from scar_viz.scoring.sweep import Candidates, build_candidates

BASE_POLICIES = ("topk", "window1", "window2", "scar")
OPTIONAL_POLICIES = ("rerank", "qasc", "qasc-hybrid", "rse", "automerge", "sentence-window")
METRICS = ("chunks", "recall", "tokens")
_WINDOW = re.compile(r"^window(\d+)$")

Embed = Callable[[list[str]], np.ndarray]


def default_policies() -> tuple[str, ...]:
    """topk, window1, window2, scar, and parent when it is registered."""
    return BASE_POLICIES + (("parent",) if "parent" in POLICIES else ())


def available_policies(reranker: str | None = None) -> tuple[str, ...]:
    """Every name :func:`resolve_policy` accepts that is registered now, in display order;
    rerank only when the cross-encoder ``reranker`` (default ``DEFAULT_RERANKER``) is
    available offline (:func:`~scar_viz.policies.rerank.reranker_status`, a cheap check)."""
    from scar_viz.policies.rerank import DEFAULT_RERANKER, reranker_status

    names = [*BASE_POLICIES, "parent", *OPTIONAL_POLICIES]
    extra = sorted(n for n in POLICIES if n not in names and n != "window")
    out = [n for n in [*names, *extra] if resolve_policy(n, strict=False) is not None]
    if "rerank" in out and not reranker_status(reranker or DEFAULT_RERANKER).available:
        out.remove("rerank")
    return tuple(out)


@overload
def resolve_policy(name: str, strict: Literal[True] = True) -> tuple[str, dict[str, object]]: ...


@overload
def resolve_policy(name: str, strict: bool) -> tuple[str, dict[str, object]] | None: ...


def resolve_policy(name: str, strict: bool = True) -> tuple[str, dict[str, object]] | None:
    """(registry name, knobs) for a policy label: ``windowN`` is ``window`` with w = N.

    Raises:
        ValueError: for a name that is not registered (when ``strict``).
    """
    m = _WINDOW.match(name)
    if m and "window" in POLICIES:
        return "window", {"w": int(m.group(1))}
    if name in POLICIES and name != "window":
        return name, {}
    if name == "window" and "window" in POLICIES:
        return "window", {"w": 1}
    if not strict:
        return None
    known = ", ".join(available_policies())
    raise SettingsError(f"Unknown policy '{name}'; choose from {known} (windowN for any N).")


def parse_policy_list(text: str | Sequence[str]) -> tuple[str, ...]:
    """Policy labels from ``"topk,scar"`` or a list of such strings, duplicates dropped.

    Raises:
        ValueError: for an unknown name or an empty list.
    """
    parts = [text] if isinstance(text, str) else list(text)
    names = [n.strip() for p in parts for n in p.split(",") if n.strip()]
    if not names:
        raise SettingsError("Give at least one policy.")
    for n in names:
        resolve_policy(n)
    return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class PolicyEval:
    """One policy over the query set. ``by_coverage`` is True for span policies scored by
    character coverage; ``error`` holds the message when the policy could not run."""

    name: str
    outcomes: tuple[QueryOutcome, ...]
    summaries: dict[str, Summary]
    by_coverage: bool = False
    error: str = ""


@dataclass(frozen=True)
class Evaluation:
    """A query set evaluated under one setting."""

    settings: RunSettings
    queries: tuple[GoldQuery, ...]
    policies: dict[str, PolicyEval]
    issues: tuple[QueryIssue, ...] = ()

    @property
    def n_queries(self) -> int:
        return len(self.queries)

    @property
    def n_fragmented(self) -> int:
        return self.type_counts["fragmented"]

    @property
    def type_counts(self) -> dict[str, int]:
        """Queries per type (fragmented, atomic, scattered) under this chunking."""
        return type_counts(self.queries)

    def values(self, policy: str, metric: str) -> np.ndarray:
        """Per-query ``chunks``, ``recall`` or ``tokens`` of ``policy``, in query order."""
        if metric not in METRICS:
            raise SettingsError(f"Unknown metric '{metric}'; use one of {METRICS}.")
        return np.array([getattr(o, metric) for o in self.policies[policy].outcomes], float)


def _outcome(gq: GoldQuery, result: PolicyResult, inputs: QueryInputs, label: str) -> QueryOutcome:
    gold = gq.gold
    if result.chunk_ids is None:
        recall, per = coverage_recall(inputs.document.text, inputs.chunks, gold, result.spans)
        return QueryOutcome(
            gq.id,
            gq.type,
            gold,
            None,
            recall,
            chunk_equivalents(result.chars, inputs.chunks),
            result.tokens,
            coverage_misses(per),
        )
    ids = tuple(result.chunk_ids)
    retrieved = top_k(inputs.rank, inputs.params.k)
    sel = result.detail if isinstance(result.detail, Selection) else None
    decisions = sel.decisions if sel is not None else ()
    misses = miss_reasons(
        gold,
        ids,
        retrieved,
        decisions,
        inputs.params.radius,
        expands=sel is not None,
        doc_of=inputs.doc_of,
    )
    if _WINDOW.match(label):
        misses = tuple(
            m
            if m.reason != "not expanded"
            else Miss(
                m.chunk,
                "outside the window",
                f"Chunk {m.chunk} is farther from the retrieved chunks than the window.",
            )
            for m in misses
        )
    return QueryOutcome(
        gq.id,
        gq.type,
        gold,
        ids,
        chunk_recall(gold, ids),
        float(len(ids)),
        result.tokens,
        misses,
    )


def evaluate(
    run: LabelledRun,
    policies: Sequence[str] | None = None,
    params: GateParams = DEFAULT_PARAMS,
    **options: Any,
) -> Evaluation:
    """Every policy on every query of a labelled run (gold chunks computed on its chunks),
    each policy's top-k ranked by the run's retriever (:mod:`scar_viz.retrieval`).

    Args:
        policies: labels as in :func:`resolve_policy` (default :func:`default_policies`).
        options: as :func:`evaluate_ks` takes them.

    Raises:
        ValueError: for an unknown policy.
        Cancelled: ``should_stop`` said so.
    """
    return evaluate_ks(run, policies, params, (params.k,), **options)[0]


def evaluate_ks(
    run: LabelledRun,
    policies: Sequence[str] | None,
    params: GateParams,
    ks: Sequence[int],
    *,
    embed: Embed | None = None,
    knobs: dict[str, dict[str, object]] | None = None,
    issues: Sequence[QueryIssue] = (),
    progress: Progress | None = None,
    should_stop: ShouldStop | None = None,
    runners: Mapping[str, Runner] | None = None,
) -> tuple[Evaluation, ...]:
    """:func:`evaluate` at each k of ``ks`` (``params`` otherwise), one Evaluation per k, each
    equal to ``evaluate`` at that k.

    ``embed`` embeds extra texts with the same model (QASC needs it); ``knobs`` adds knobs per
    registry name, e.g. ``{"qasc": {"percentile": 80}}``; ``runners`` runs labels by a
    function of the query's inputs instead of the registry's policy (a saved setting:
    :func:`scar_viz.evaluation.apply.setting_runner`).

    The queries are the outer loop: each query's inputs (its similarities, its ranking) are
    built once and shared by every k, with :attr:`QueryInputs.memo`, where policies keep what
    does not depend on k (the sentence scores, QASC's windows); a policy that does not use k
    (RSE) runs once per query. ``progress`` counts (query, k) steps; ``should_stop`` is asked
    before each query.

    Raises:
        ValueError: for an unknown policy or no k (GateParams checks each k).
        Cancelled: ``should_stop`` said so.
    """
    prep, queries, retriever = run.prep, run.queries, run.retriever
    labels = parse_policy_list(list(policies or default_policies()))
    ks = tuple(int(k) for k in ks)
    if not ks:
        raise SettingsError("Give at least one k.")
    settings = [params.with_(k=k) for k in ks]  # GateParams checks each k
    resolved = {label: resolve_policy(label) for label in labels}
    outcomes: list[dict[str, list[QueryOutcome]]] = [{label: [] for label in labels} for _ in ks]
    coverage = [dict.fromkeys(labels, False) for _ in ks]
    errors: list[dict[str, str]] = [{} for _ in ks]
    block = batch_sims(prep.unit, run.vecs)
    steps = len(queries) * len(ks)
    for qi, gq in enumerate(queries):
        check(should_stop)
        shared = query_inputs(
            prep,
            gq.query.query,
            run.vecs[qi],
            settings[0],
            embed=embed,
            retriever=retriever,
            sims=block(qi),
        )
        once: dict[str, PolicyResult] = {}
        for ki, at_k in enumerate(settings):
            inputs = shared if ki == 0 else replace(shared, params=at_k)
            for label, (name, label_knobs) in resolved.items():
                if label in errors[ki]:
                    continue
                result = once.get(label)
                if result is None:
                    try:
                        result = run_label(
                            label,
                            name,
                            inputs,
                            {**label_knobs, **(knobs or {}).get(name, {})},
                            runners,
                        )
                    except UserError as exc:
                        errors[ki][label] = user_message(exc)
                        continue
                    if not uses_k(name):
                        once[label] = result
                coverage[ki][label] = result.chunk_ids is None
                outcomes[ki][label].append(_outcome(gq, result, inputs, label))
            if progress:
                progress(qi * len(ks) + ki + 1, steps)
    return tuple(
        Evaluation(
            RunSettings.of(prep, at_k, retriever),
            tuple(queries),
            {
                label: PolicyEval(
                    label,
                    () if label in errors[ki] else tuple(outcomes[ki][label]),
                    summarise_subsets(() if label in errors[ki] else tuple(outcomes[ki][label])),
                    coverage[ki][label],
                    errors[ki].get(label, ""),
                )
                for label in labels
            },
            tuple(issues),
        )
        for ki, at_k in enumerate(settings)
    )


Runner = Callable[[QueryInputs], PolicyResult]
"""What runs one label on one query's inputs in place of the registry's policy."""


def run_label(
    label: str,
    name: str,
    inputs: QueryInputs,
    knobs: Mapping[str, object],
    runners: Mapping[str, Runner] | None = None,
) -> PolicyResult:
    """``label``'s result: its runner's when ``runners`` has one, else policy ``name``'s with
    ``knobs`` (:func:`~scar_viz.policies.run_policy`)."""
    runner = (runners or {}).get(label)
    return runner(inputs) if runner is not None else run_policy(name, inputs, **knobs)


BATCH_CELLS = 4_000_000
"""Queries × chunks at or above which :func:`batch_sims` multiplies queries by blocks (one
pass over the chunk matrix per block, instead of one per query)."""


def batch_sims(unit: np.ndarray, vecs: np.ndarray, block: int = 64):
    """``sims(qi)`` = cos(q_qi, c) for every chunk: per query (``unit @ q``, exactly what the
    Explorer computes) on a document, or, once queries × chunks reach :data:`BATCH_CELLS`, by
    blocks of ``block`` queries in one matrix product each. Streaming the corpus' matrix once
    per query cost ~10–30 ms a query at 70,000 chunks; a block product may differ from the
    per-query product in the last bit only."""
    if len(vecs) * len(unit) < BATCH_CELLS:
        return lambda qi: unit @ vecs[qi]
    held: dict[int, np.ndarray] = {}

    def sims(qi: int) -> np.ndarray:
        start = qi - qi % block
        if start not in held:
            held.clear()
            held[start] = vecs[start : start + block] @ unit.T
        return held[start][qi - start]

    return sims


def candidates_for(
    run: LabelledRun, k: int, radius: int = DEFAULT_RADIUS, lexical: bool = False
) -> Candidates:
    """The sweep's candidates for a labelled run (see :func:`build_candidates`), each query's
    top-k ranked by the run's retriever; ``lexical`` adds each candidate's lex(q,n) over the
    chunk texts, which a sweep at μ > 0 needs (docs/method.md §8)."""
    prep, questions, retriever = run.prep, run.questions, run.retriever
    sims = np.stack([prep.unit @ v for v in run.vecs])
    rank = None if retriever.dense else prep.ranking(retriever, sims, questions)
    lex = lex_matrix([c.text for c in prep.chunks], questions) if lexical else None
    return build_candidates(
        sims, prep.unit, run.golds, k, max(1, radius), doc_of=prep.doc_of, lex=lex, rank=rank
    )
