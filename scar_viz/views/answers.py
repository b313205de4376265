"""What the Answers (LLM) page shows of a generated query set and of an answer check.

:func:`generated_view` and :func:`check_view` build the page's whole view model in one call
(:class:`GeneratedView`, :class:`CheckView`); the row builders they use are public for tests.
Rows are plain lists of dicts (missing values as :data:`scar_viz.common.fmt.EMPTY_CELL`) that a page
hands to a dataframe unchanged. Texts from the document, the query file or a language model are
passed through verbatim; a view that draws them as markup must escape them (a dataframe shows
them as text).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scar_viz.common.fmt import EMPTY_CELL, cell, chunk_list
from scar_viz.evaluation.by_file import policy_file_rows
from scar_viz.llm.check import AnswerCheck
from scar_viz.llm.client import Usage
from scar_viz.llm.judge import AnswerRow
from scar_viz.llm.querygen import DROP_REASONS, GeneratedSet
from scar_viz.llm.scores import SCORES
from scar_viz.queries.gold import GoldQuery

DIFF_COLUMN = "difference in context"
"""The side-by-side column that compares each policy's context with the base policy's."""
SCORE_LABELS = {
    "faithfulness": "faithfulness",
    "answer_relevancy": "answer relevancy",
    "context_recall": "context recall",
    "answer_correctness": "answer correctness",
}
ANSWER_CALLS = 1
"""Calls to the answering model per query and policy."""
JUDGE_CALLS = 2
"""Judge calls every answer costs (faithfulness, answer relevancy); +1 for context recall
when the query has evidence, +1 for answer correctness when it has a reference answer."""


def usage_line(usage: Usage) -> str:
    """``"12 calls (3 from the cache), 1,200 prompt + 60 completion tokens"``."""
    return (
        f"{usage.calls} call{'s' if usage.calls != 1 else ''} ({usage.cached} from the cache), "
        f"{usage.prompt_tokens:,} prompt + {usage.completion_tokens:,} completion tokens"
    )


# --- the generated set -----------------------------------------------------------------------


def drop_rows(gs: GeneratedSet) -> list[dict[str, object]]:
    """One row per kept type and per drop reason: outcome, count, what it means."""
    rows: list[dict[str, object]] = [
        {"outcome": f"kept ({kind})", "queries": n, "meaning": "evidence found in the document"}
        for kind, n in sorted(gs.type_counts.items())
    ]
    rows += [
        {"outcome": f"dropped: {reason}", "queries": n, "meaning": DROP_REASONS.get(reason, "")}
        for reason, n in sorted(gs.drop_counts.items(), key=lambda x: (-x[1], x[0]))
    ]
    return rows


def drop_detail_rows(gs: GeneratedSet) -> list[dict[str, object]]:
    """Every dropped query: where it came from, why, the question and the detail."""
    return [
        {
            "source": d.source.label,
            "reason": d.reason,
            "question": d.question or EMPTY_CELL,
            "detail": d.detail or EMPTY_CELL,
        }
        for d in gs.drops
    ]


def kept_rows(gs: GeneratedSet) -> list[dict[str, object]]:
    """Every kept query: id, type under the chunking, question, evidence spans, answer, source."""
    return [
        {
            "id": q.query.id,
            "type": q.type,
            "question": q.query.query,
            "evidence spans": len(q.query.evidence),
            "reference answer": q.answer or EMPTY_CELL,
            "source": q.source.label,
        }
        for q in gs.queries
    ]


# --- cost before running ---------------------------------------------------------------------


def calls_per_query(n_policies: int, evidence: bool = True, reference: bool = False) -> int:
    """Calls one query costs: per policy 1 answer + 2 judge calls, +1 with evidence (context
    recall), +1 with a reference answer (answer correctness)."""
    return n_policies * (ANSWER_CALLS + JUDGE_CALLS + int(evidence) + int(reference))


def planned_calls(
    queries: Sequence[GoldQuery], n_policies: int, references: Mapping[str, str]
) -> int:
    """Calls the answer check makes at most (fewer when replies are cached or repeated)."""
    return sum(
        calls_per_query(n_policies, bool(q.query.evidence), bool(references.get(q.id)))
        for q in queries
    )


# --- the answer check ------------------------------------------------------------------------


def _scores(check: AnswerCheck) -> tuple[str, ...]:
    return SCORES if check.has_references else tuple(s for s in SCORES if s != "answer_correctness")


def summary_rows(check: AnswerCheck) -> list[dict[str, object]]:
    """One row per policy that ran: the mean of each score (over the queries scored), the
    fewest queries any score was computed for, mean context tokens, answer and judge tokens,
    calls and cache hits, unparseable replies. Answer correctness appears only when the query
    file has reference answers."""
    bad = check.unparseable_counts
    rows = []
    for name, pa in check.policies.items():
        if pa.error:
            continue
        row: dict[str, object] = {"policy": name}
        for s in _scores(check):
            row[SCORE_LABELS[s]] = cell(pa.mean(s), 3)
        row["scored"] = min((pa.n_scored(s) for s in _scores(check)), default=0)
        row["context tokens"] = round(pa.mean_context_tokens, 1)
        answer, judge = pa.answer_usage, pa.judge_usage
        row["answer tokens"] = answer.total_tokens
        row["judge tokens"] = judge.total_tokens
        row["LLM calls"] = answer.calls + judge.calls
        row["cached"] = answer.cached + judge.cached
        row["unparseable"] = bad.get(name, 0)
        rows.append(row)
    return rows


def file_score_rows(check: AnswerCheck) -> list[dict[str, object]]:
    """On a corpus, one row per file and policy that ran (files as
    :func:`~scar_viz.evaluation.by_file.file_groups` orders them): the file's queries, the
    mean of each score over those of them scored (NaN: none was), and the mean context
    tokens. Empty on a single document."""
    by_policy: dict[str, dict[str, list[float | None]]] = {}
    for name, pa in check.policies.items():
        if pa.error:
            continue
        row_of = {r.query_id: r for r in pa.rows}
        rows = [row_of.get(q.id) for q in check.queries]
        columns = {
            SCORE_LABELS[s]: [None if r is None else r.score(s) for r in rows]
            for s in _scores(check)
        }
        columns["context tokens"] = [None if r is None else r.context_tokens for r in rows]
        by_policy[name] = columns
    return policy_file_rows(check.queries, by_policy)


def policy_errors(check: AnswerCheck) -> list[str]:
    """One sentence per policy that could not run."""
    return [f"{name} did not run: {pa.error}" for name, pa in check.policies.items() if pa.error]


def comparison_rows(check: AnswerCheck) -> list[dict[str, object]]:
    """SCAR against each other policy, per score and for context tokens: the mean difference
    (SCAR − other) with its 95 % paired-bootstrap interval, p and Cohen's d."""
    rows = []
    for c in check.comparisons:
        r = c.result
        rows.append(
            {
                "policy": c.target,
                "vs": c.baseline,
                "score": SCORE_LABELS.get(c.metric, "context tokens"),
                "queries": r.n,
                "difference": cell(r.mean_diff, 3),
                "95% CI low": cell(r.ci_low, 3),
                "95% CI high": cell(r.ci_high, 3),
                "p": cell(r.p_value, 4),
                "Cohen's d": cell(r.cohens_d, 2),
            }
        )
    return rows


def unparseable_rows(check: AnswerCheck) -> list[dict[str, object]]:
    """Every judge reply that could not be read: query, policy, step, its first characters."""
    return [
        {"query": u.query_id, "policy": u.policy, "step": u.step, "reply": u.reply}
        for u in check.unparseable
    ]


def query_choices(check: AnswerCheck) -> dict[str, str]:
    """Query id -> "id: question" for a picker, in query order."""
    return {q.id: f"{q.id}: {q.query.query}" for q in check.queries}


RowIndex = dict[str, dict[str, AnswerRow]]
"""Policy -> query id -> that policy's (first) row for the query."""


def _row_index(check: AnswerCheck) -> RowIndex:
    index: RowIndex = {}
    for name, pa in check.policies.items():
        rows = index.setdefault(name, {})
        for r in pa.rows:
            rows.setdefault(r.query_id, r)
    return index


def _row(index: RowIndex, query_id: str, policy: str) -> AnswerRow | None:
    return index.get(policy, {}).get(query_id)


def context_difference(row: AnswerRow, base: AnswerRow | None) -> str:
    """How ``row``'s context differs from ``base``'s: chunks added and left out, tokens."""
    if base is None or row is base:
        return "the base the others are compared with"
    tokens = row.context_tokens - base.context_tokens
    sign = "+" if tokens > 0 else "−" if tokens < 0 else "±"
    tok = f"{sign}{abs(tokens):,} tokens"
    if row.chunk_ids is None or base.chunk_ids is None:
        return f"{tok} (spans, not whole chunks)"
    added = set(row.chunk_ids) - set(base.chunk_ids)
    left = set(base.chunk_ids) - set(row.chunk_ids)
    if not added and not left:
        return f"same chunks, {tok}"
    parts = []
    if added:
        parts.append(f"adds {chunk_list(added)}")
    if left:
        parts.append(f"leaves out {chunk_list(left)}")
    return f"{'; '.join(parts)}; {tok}"


def side_by_side(
    check: AnswerCheck, query_id: str, base: str = "scar", index: RowIndex | None = None
) -> list[dict[str, object]]:
    """One row per policy for one query: the answer (verbatim), its scores, its context's size
    and chunks, and the difference in context against ``base`` (else the first policy).
    ``index``: the check's rows by policy and query, when the caller built it already."""
    index = _row_index(check) if index is None else index
    names = [n for n, pa in check.policies.items() if not pa.error]
    if base not in names:
        base = names[0] if names else base
    ref = _row(index, query_id, base)
    out = []
    for name in names:
        row = _row(index, query_id, name)
        if row is None:
            continue
        item: dict[str, object] = {"policy": name, "answer": row.answer}
        for s in _scores(check):
            item[SCORE_LABELS[s]] = cell(row.score(s), 3)
        item["context tokens"] = row.context_tokens
        item["chunks"] = chunk_list(row.chunk_ids) if row.chunk_ids is not None else "spans"
        item[DIFF_COLUMN] = context_difference(row, ref)
        out.append(item)
    return out


def claim_rows(
    check: AnswerCheck, query_id: str, index: RowIndex | None = None
) -> list[dict[str, object]]:
    """What the judge said for one query: each claim (supported or not) and each question it
    wrote from the answer, per policy (``index`` as for :func:`side_by_side`)."""
    index = _row_index(check) if index is None else index
    out: list[dict[str, object]] = []
    for name, pa in check.policies.items():
        row = _row(index, query_id, name) if not pa.error else None
        if row is None:
            continue
        out += [
            {
                "policy": name,
                "kind": "claim",
                "text": c.text,
                "supported": "yes" if c.supported else "no",
            }
            for c in row.claims
        ]
        out += [
            {"policy": name, "kind": "question written from the answer", "text": q}
            for q in row.generated_questions
        ]
    for r in out:
        r.setdefault("supported", EMPTY_CELL)
    return out


def calls_note(queries: Sequence[GoldQuery], n_policies: int, references: Mapping[str, str]) -> str:
    """What the answer check will cost in calls, said before it runs."""
    return (
        f"At most {planned_calls(queries, n_policies, references):,} calls: per query "
        f"{calls_per_query(n_policies)} ({calls_per_query(1)} per policy: 1 answer, then the "
        "judge's faithfulness, relevancy and recall), "
        f"{calls_per_query(n_policies, reference=True)} with a reference answer. Identical "
        "requests are sent once; cached replies cost nothing."
    )


def check_caption(check: AnswerCheck) -> str:
    """What an answer check was run on, and who judged it (the scores are that model's)."""
    run, p = check.settings, check.settings.params
    return (
        f"{check.n_queries} queries on {run.document} · {run.chunking} · k = {p.k}, "
        f"λ = {p.lam:.2f}, τ = {p.tau:.2f}, r = {p.radius} · answers by {check.answer_model}, "
        f"judged by {check.judge_model}. The scores are the judge's verdicts: they are only as "
        "good as that model."
    )


# --- the view models -------------------------------------------------------------------------

Rows = list[dict[str, object]]


@dataclass(frozen=True)
class GeneratedView:
    """Everything the Answers page shows of a generated query set: the four counts, the tokens
    spent, the kept/dropped report (``outcomes``), the kept questions and the dropped ones."""

    kept: int
    fragmented: int
    atomic: int
    dropped: int
    usage: str
    notes: tuple[str, ...]
    outcomes: Rows
    kept_rows: Rows
    drop_rows: Rows


def generated_view(gs: GeneratedSet) -> GeneratedView:
    """The view model of a generated set, built in one call."""
    return GeneratedView(
        kept=len(gs.queries),
        fragmented=gs.type_counts.get("fragmented", 0),
        atomic=gs.type_counts.get("atomic", 0),
        dropped=len(gs.drops),
        usage=usage_line(gs.usage),
        notes=tuple(gs.notes),
        outcomes=drop_rows(gs),
        kept_rows=kept_rows(gs),
        drop_rows=drop_detail_rows(gs),
    )


@dataclass(frozen=True)
class QueryAnswers:
    """One query of an answer check: each policy's answer side by side, and the judge's claims
    and questions."""

    side: Rows
    claims: Rows


@dataclass(frozen=True)
class CheckView:
    """Everything the Answers page shows of an answer check: the caption, the per-policy means
    (``summary``), the policies that did not run (``errors``), the per-file means (empty on a
    single document), the tokens spent, SCAR against each policy, the unparseable replies, the
    query picker's choices (id -> label, in query order) and each query's answers."""

    caption: str
    summary: Rows
    errors: tuple[str, ...]
    by_file: Rows
    usage: str
    comparisons: Rows
    unparseable: Rows
    choices: dict[str, str]
    queries: dict[str, QueryAnswers]


def check_view(check: AnswerCheck) -> CheckView:
    """The view model of an answer check, built in one call (every query's answers included)."""
    index = _row_index(check)
    return CheckView(
        caption=check_caption(check),
        summary=summary_rows(check),
        errors=tuple(policy_errors(check)),
        by_file=file_score_rows(check),
        usage=usage_line(check.usage),
        comparisons=comparison_rows(check),
        unparseable=unparseable_rows(check),
        choices=query_choices(check),
        queries={
            q.id: QueryAnswers(
                side_by_side(check, q.id, index=index), claim_rows(check, q.id, index)
            )
            for q in check.queries
        },
    )
