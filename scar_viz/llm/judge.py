"""The answer and judge calls of the answer check, and reading the judge's replies.

Each (question, context) is a :class:`Job`: one answer call on the answering model, then up
to four judge calls (faithfulness and answer relevancy always, context recall when the
question has evidence, answer correctness when it has a reference answer), all sent in two
batches (identical requests once, cached on disk). Each reply is parsed into its step's
verdict (:mod:`scar_viz.llm.scores`); a reply that cannot be parsed leaves that score empty
and is kept as an :class:`Unparseable`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scar_viz.llm import scores
from scar_viz.llm.client import ChatModel, Progress, Reply, Usage
from scar_viz.llm.prompts import (
    Messages,
    answer_messages,
    correctness_messages,
    faithfulness_messages,
    recall_messages,
    relevancy_messages,
)
from scar_viz.llm.scores import Claim, Embed

DEFAULT_QUESTIONS = 3
"""N, the questions the judge writes from an answer for answer relevancy."""


@dataclass(frozen=True)
class Unparseable:
    """A judge reply that could not be read; ``reply`` is its first 300 characters."""

    query_id: str
    policy: str
    step: str
    reply: str


@dataclass(frozen=True)
class AnswerRow:
    """One query under one policy: its context, the answer (verbatim: views must escape it),
    the scores (None when not scored) and what the judge said."""

    query_id: str
    policy: str
    question: str
    context: str
    context_tokens: int
    chunk_ids: tuple[int, ...] | None
    answer: str
    faithfulness: float | None
    answer_relevancy: float | None
    context_recall: float | None
    answer_correctness: float | None
    claims: tuple[Claim, ...]
    generated_questions: tuple[str, ...]
    statements: tuple[Claim, ...]
    answer_usage: Usage
    judge_usage: Usage

    def score(self, name: str) -> float | None:
        return getattr(self, name)


@dataclass
class Job:
    """One (question, policy) on its way through the answer and judge calls: ``facts`` are
    the statements of its evidence (none: no context recall), ``reference`` its reference
    answer ("" : no answer correctness)."""

    query_id: str
    question: str
    policy: str
    context: str
    context_tokens: int
    chunk_ids: tuple[int, ...] | None
    facts: tuple[str, ...]
    reference: str
    answer: Reply | None = None

    @property
    def n_judge_calls(self) -> int:
        return 2 + bool(self.facts) + bool(self.reference)


# --- reading the replies ----------------------------------------------------------------------


def _flag(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("yes", "true", "supported", "1"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("no", "false", "unsupported", "0"):
        return False
    return None


def _verdicts(data: dict | None, key: str, text_key: str) -> tuple[Claim, ...] | None:
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None
    out = []
    for item in items:
        flag = _flag(item.get("supported")) if isinstance(item, dict) else None
        if flag is None:
            return None
        out.append(Claim(str(item.get(text_key, "")), flag))
    return tuple(out)


def _strings(data: dict | None, key: str) -> tuple[str, ...] | None:
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
        return None
    return tuple(x for x in items if x.strip())


def parse_faithfulness(data: dict | None) -> scores.FaithfulnessVerdict | None:
    """``{"claims": [{"claim", "supported"}]}``, else None."""
    claims = _verdicts(data, "claims", "claim")
    return None if claims is None else scores.FaithfulnessVerdict(claims)


def parse_relevancy(data: dict | None) -> scores.RelevancyVerdict | None:
    """``{"questions": [str]}``, else None."""
    questions = _strings(data, "questions")
    return None if questions is None else scores.RelevancyVerdict(questions)


def parse_recall(data: dict | None) -> scores.RecallVerdict | None:
    """``{"statements": [{"statement", "supported"}]}``, else None."""
    found = _verdicts(data, "statements", "statement")
    return None if found is None else scores.RecallVerdict(found)


def parse_correctness(data: dict | None) -> scores.CorrectnessVerdict | None:
    """``{"TP": [str], "FP": [str], "FN": [str]}``, else None."""
    tp, fp, fn = (_strings(data, key) for key in ("TP", "FP", "FN"))
    if tp is None or fp is None or fn is None:
        return None
    return scores.CorrectnessVerdict(tp, fp, fn)


# --- the calls ---------------------------------------------------------------------------------


def _usage(reply: Reply) -> Usage:
    return Usage(
        reply.prompt_tokens, reply.completion_tokens, int(not reply.cached), int(reply.cached)
    )


def judge_requests(job: Job, n_questions: int) -> dict[str, Messages]:
    """The judge's requests for one answered job, by step (a score name)."""
    assert job.answer is not None  # only answered jobs are judged
    ctx, ans = job.context, job.answer.text.strip()
    out = {
        "faithfulness": faithfulness_messages(ctx, ans),
        "answer_relevancy": relevancy_messages(ans, n_questions),
    }
    if job.facts:
        out["context_recall"] = recall_messages(ctx, job.facts)
    if job.reference:
        out["answer_correctness"] = correctness_messages(job.question, ans, job.reference)
    return out


def score_row(
    job: Job, replies: dict[str, Reply], embed: Embed, bad: list[Unparseable]
) -> AnswerRow:
    """The scores of one job from the judge's replies by step; each reply that cannot be
    parsed is appended to ``bad`` and leaves its score None."""

    def parsed(step: str, parse: Callable):
        verdict = parse(replies[step].data)
        if verdict is None:
            bad.append(Unparseable(job.query_id, job.policy, step, replies[step].text[:300]))
        return verdict

    assert job.answer is not None  # only answered jobs are scored
    question, answer = job.question, job.answer.text.strip()
    claims = parsed("faithfulness", parse_faithfulness)
    generated = parsed("answer_relevancy", parse_relevancy)
    found = parsed("context_recall", parse_recall) if "context_recall" in replies else None
    sorting = (
        parsed("answer_correctness", parse_correctness) if "answer_correctness" in replies else None
    )
    return AnswerRow(
        job.query_id,
        job.policy,
        question,
        job.context,
        job.context_tokens,
        job.chunk_ids,
        job.answer.text,
        scores.faithfulness(claims) if claims else None,
        scores.answer_relevancy(generated, question, embed) if generated else None,
        scores.context_recall(found, len(job.facts)) if found else None,
        scores.answer_correctness(sorting, answer, job.reference, embed) if sorting else None,
        claims.claims if claims else (),
        generated.questions if generated else (),
        found.statements if found else (),
        _usage(job.answer),
        sum((_usage(r) for r in replies.values()), Usage()),
    )


def _stage(progress: Progress | None, offset: int, total: int) -> Progress | None:
    if progress is None:
        return None
    return lambda done, _n: progress(offset + done, total)


def run_jobs(
    jobs: list[Job],
    chat: ChatModel,
    judge: ChatModel,
    embed: Embed,
    n_questions: int,
    progress: Progress | None,
) -> tuple[list[AnswerRow], list[Unparseable], Usage]:
    """Answers (one batch on ``chat``), then the judge's calls (one batch), then the scores;
    with the unparseable replies and the calls' usage.

    Raises:
        ValueError: when ``n_questions`` < 1.
        LLMError: when an endpoint fails.
    """
    if n_questions < 1:
        raise ValueError("Answer relevancy needs at least one generated question.")
    total = len(jobs) + sum(j.n_judge_calls for j in jobs)
    before = chat.usage + (judge.usage if judge is not chat else Usage())
    answers = chat.complete_many(
        [answer_messages(j.question, j.context) for j in jobs],
        json_reply=False,
        progress=_stage(progress, 0, total),
    )
    for job, reply in zip(jobs, answers, strict=True):
        job.answer = reply
    asks = [judge_requests(j, n_questions) for j in jobs]
    flat = [(i, step, m) for i, ask in enumerate(asks) for step, m in ask.items()]
    judged = judge.complete_many(
        [m for _, _, m in flat], progress=_stage(progress, len(jobs), total)
    )
    by_job: list[dict[str, Reply]] = [{} for _ in jobs]
    for (i, step, _), reply in zip(flat, judged, strict=True):
        by_job[i][step] = reply
    bad: list[Unparseable] = []
    rows = [score_row(j, r, embed, bad) for j, r in zip(jobs, by_job, strict=True)]
    after = chat.usage + (judge.usage if judge is not chat else Usage())
    return rows, bad, after - before
