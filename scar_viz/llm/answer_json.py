"""The ``answer --json`` shape, written by the same writer as ``eval --json``
(:func:`~scar_viz.evaluation.run_json.run_json`)."""

from __future__ import annotations

from scar_viz.evaluation.run_json import rounded, run_json
from scar_viz.llm.check import AnswerCheck, PolicyAnswers
from scar_viz.llm.scores import SCORES
from scar_viz.queries.gold import GoldQuery

ANSWER_SETTING = (
    "document",
    "chunking",
    "embedder",
    "answer_model",
    "judge_model",
    "params",
    "n_questions",
    "reference_answers",
)
"""The setting ``answer --json`` writes, in order."""


def answer_json(check: AnswerCheck, per_query: bool = True) -> dict[str, object]:
    """``{"n_queries", "policies": {name: {score: mean, "n_scored", "mean_context_tokens",
    "answer_tokens", "judge_tokens", "unparseable"}}}``, plus the setting, significance,
    unparseable replies, usage and (``per_query``) each query's answers and verdicts."""
    bad_by_policy = check.unparseable_counts

    def summary(pa: PolicyAnswers) -> dict[str, object]:
        return {
            **{s: rounded(pa.mean(s)) for s in SCORES},
            "n_scored": {s: pa.n_scored(s) for s in SCORES},
            "mean_context_tokens": rounded(pa.mean_context_tokens),
            "answer_tokens": pa.answer_usage.as_dict(),
            "judge_tokens": pa.judge_usage.as_dict(),
            "unparseable": bad_by_policy.get(pa.name, 0),
        }

    def answer(pa: PolicyAnswers, qi: int) -> dict[str, object]:
        r = pa.rows[qi]
        return {
            "answer": r.answer,
            "context_tokens": r.context_tokens,
            "chunks": list(r.chunk_ids) if r.chunk_ids is not None else None,
            **{s: rounded(r.score(s)) for s in SCORES},
            "claims": [{"claim": c.text, "supported": c.supported} for c in r.claims],
            "generated_questions": list(r.generated_questions),
        }

    def query_fields(gq: GoldQuery) -> dict[str, object]:
        return {"id": gq.id, "query": gq.query.query, "type": gq.type}

    setting = check.settings.as_json(
        ANSWER_SETTING,
        answer_model=check.answer_model,
        judge_model=check.judge_model,
        n_questions=check.n_questions,
        reference_answers=check.has_references,
    )
    unparseable = [
        {"id": u.query_id, "policy": u.policy, "step": u.step, "reply": u.reply}
        for u in check.unparseable
    ]
    return run_json(
        check.queries,
        setting,
        check.policies,
        summary,
        check.comparisons,
        {"unparseable": unparseable, "usage": check.usage.as_dict()},
        per_query=answer if per_query else None,
        query_fields=query_fields,
    )
