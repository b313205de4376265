"""The answer check: each policy's context to a language model, and the answers scored with
the RAGAS definitions (METHODS.md §7), implemented here rather than with the ``ragas`` package.

For query q, policy P with context C_P (``PolicyResult.context``: the selected chunks in
document order joined by a blank line, as the Explorer's context view shows them) and the
answer A_P to one fixed prompt, a judge model (the same or another) gives:

    faithfulness        = |claims of A_P the judge finds supported by C_P| / |claims of A_P|
    answer relevancy    = mean_j cos(e(q), e(q̂_j)), q̂_1 … q̂_N questions the judge writes
                          from A_P alone, e the current embedder (unit vectors)
    context recall      = |statements of q's reference evidence supported by C_P| / |statements|
    answer correctness  = 0.75 · F1 + 0.25 · cos(e(A_P), e(R)), with the judge sorting claims
                          into TP (in A_P and the reference answer R), FP (in A_P only) and
                          FN (in R only), F1 = TP / (TP + ½ (FP + FN)); only when the query
                          file gives reference answers

A reply that cannot be parsed leaves that score empty for that query and is listed in
:attr:`AnswerCheck.unparseable`; an answer with no claims has no faithfulness. Means are over
the queries scored; the paired bootstrap (B = 10,000) and Cohen's d compare ``scar`` with each
other policy over the queries both have a score for. Calls per query and policy: 1 answer +
3 judge calls (+1 with a reference answer; −1 for a question without evidence, which has no
context recall); identical requests are sent once and cached on disk.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking.tokens import TOKENIZER_NAME, count_tokens
from scar_viz.documents.sentences import paragraph_spans, split_piece
from scar_viz.embeddings import EmbeddingError
from scar_viz.errors import user_message
from scar_viz.evaluation import Comparison, default_policies, parse_policy_list, resolve_policy
from scar_viz.evaluation.bootstrap import DEFAULT_BOOT, DEFAULT_SEED, paired_bootstrap
from scar_viz.evaluation.queries import GoldQuery
from scar_viz.llm.client import ChatModel, Progress, Reply, Usage
from scar_viz.pipeline import PreparedDoc, query_inputs
from scar_viz.policies import PolicyResult, run_policy
from scar_viz.scoring.params import GateParams

Embed = Callable[[list[str]], np.ndarray]
"""Embeds texts with the current embedder: n texts -> (n, d) unit rows."""

SCORES = ("faithfulness", "answer_relevancy", "context_recall", "answer_correctness")
DEFAULT_QUESTIONS = 3
"""N, the questions the judge writes from an answer for answer relevancy."""

ANSWER_PROMPT = """Task: answer. Answer the QUESTION using only the CONTEXT below, in one to three
plain sentences. If the context does not hold the answer, say that it does not."""

FAITHFULNESS_PROMPT = """Task: faithfulness. Break the ANSWER into short standalone factual
claims. For each claim decide whether the CONTEXT supports it (true) or not (false). Answer with
a JSON object: {"claims": [{"claim": "...", "supported": true}]}"""

RELEVANCY_PROMPT = """Task: relevancy. Read the ANSWER and write the given number of different
questions that this answer would answer, using only the answer. Answer with a JSON object:
{"questions": ["...", "..."]}"""

RECALL_PROMPT = """Task: context-recall. For each statement in STATEMENTS (a JSON list) decide
whether the CONTEXT supports it (true) or not (false). Answer with a JSON object:
{"statements": [{"statement": "...", "supported": true}]}"""

CORRECTNESS_PROMPT = """Task: correctness. Compare the ANSWER to the REFERENCE answer of the
QUESTION. Sort the factual statements: TP = in the answer and supported by the reference;
FP = in the answer but not in the reference; FN = in the reference but missing from the answer.
Answer with a JSON object: {"TP": ["..."], "FP": ["..."], "FN": ["..."]}"""


def _messages(system: str, user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def answer_messages(question: str, context: str) -> list[dict[str, str]]:
    """The one fixed prompt that asks for an answer from a context."""
    return _messages(ANSWER_PROMPT, f"CONTEXT:\n{context}\n\nQUESTION: {question}")


def statements(text: str) -> list[str]:
    """The sentences of a reference evidence text (whitespace collapsed), in order."""
    out = []
    for s, e in paragraph_spans(text):
        piece = text[s:e].replace("\n", " ")
        out.extend(" ".join(piece[a:b].split()) for a, b in split_piece(piece))
    return [x for x in out if x]


# --- results -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """A claim or statement and whether the judge found it supported."""

    text: str
    supported: bool


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
    claims: tuple[Verdict, ...]
    generated_questions: tuple[str, ...]
    statements: tuple[Verdict, ...]
    answer_usage: Usage
    judge_usage: Usage

    def score(self, name: str) -> float | None:
        return getattr(self, name)


@dataclass(frozen=True)
class Unparseable:
    """A judge reply that could not be read; ``reply`` is its first 300 characters."""

    query_id: str
    policy: str
    step: str
    reply: str


@dataclass(frozen=True)
class PolicyAnswers:
    """One policy over the query set: rows in query order, means over the queries scored."""

    name: str
    rows: tuple[AnswerRow, ...]
    error: str = ""

    def values(self, score: str) -> np.ndarray:
        """Per-query values of ``score`` (NaN where not scored), in query order."""
        if score == "tokens":
            return np.array([r.context_tokens for r in self.rows], float)
        return np.array([np.nan if r.score(score) is None else r.score(score) for r in self.rows])

    def mean(self, score: str) -> float | None:
        v = self.values(score)
        v = v[~np.isnan(v)]
        return float(v.mean()) if len(v) else None

    def n_scored(self, score: str) -> int:
        return int((~np.isnan(self.values(score))).sum())

    @property
    def mean_context_tokens(self) -> float:
        return float(np.mean([r.context_tokens for r in self.rows])) if self.rows else 0.0

    @property
    def answer_usage(self) -> Usage:
        return sum((r.answer_usage for r in self.rows), Usage())

    @property
    def judge_usage(self) -> Usage:
        return sum((r.judge_usage for r in self.rows), Usage())


@dataclass(frozen=True)
class AnswerCheck:
    """Answers and scores of every policy on a query set, with the significance tests."""

    document: str
    chunking: str
    embedder: str
    answer_model: str
    judge_model: str
    params: GateParams
    n_questions: int
    queries: tuple[GoldQuery, ...]
    policies: dict[str, PolicyAnswers]
    comparisons: tuple[Comparison, ...]
    unparseable: tuple[Unparseable, ...]
    usage: Usage
    has_references: bool

    @property
    def unparseable_counts(self) -> dict[str, int]:
        """Judge replies that could not be parsed, per policy (policies without any absent)."""
        return dict(Counter(u.policy for u in self.unparseable))

    @property
    def n_queries(self) -> int:
        return len(self.queries)


# --- judging ---------------------------------------------------------------------------------


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


def _verdicts(data: dict | None, key: str, text_key: str) -> tuple[Verdict, ...] | None:
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None
    out = []
    for item in items:
        flag = _flag(item.get("supported")) if isinstance(item, dict) else None
        if flag is None:
            return None
        out.append(Verdict(str(item.get(text_key, "")), flag))
    return tuple(out)


def _strings(data: dict | None, key: str) -> list[str] | None:
    items = data.get(key) if isinstance(data, dict) else None
    if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
        return None
    return [x for x in items if x.strip()]


def _usage(reply: Reply) -> Usage:
    return Usage(
        reply.prompt_tokens, reply.completion_tokens, int(not reply.cached), int(reply.cached)
    )


def _cos(embed: Embed, a: str, others: list[str]) -> float:
    vecs = np.asarray(embed([a, *others]), dtype=np.float64)
    vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    return float(np.mean(vecs[1:] @ vecs[0]))


@dataclass
class _Job:
    """One (question, policy) on its way through the answer and judge calls."""

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


def _judge_requests(job: _Job, n_questions: int) -> dict[str, list[dict[str, str]]]:
    q, ctx, ans = job.question, job.context, job.answer.text.strip()
    out = {
        "faithfulness": _messages(FAITHFULNESS_PROMPT, f"CONTEXT:\n{ctx}\n\nANSWER:\n{ans}"),
        "answer_relevancy": _messages(
            RELEVANCY_PROMPT, f"NUMBER OF QUESTIONS: {n_questions}\n\nANSWER:\n{ans}"
        ),
    }
    if job.facts:
        out["context_recall"] = _messages(
            RECALL_PROMPT,
            f"CONTEXT:\n{ctx}\n\nSTATEMENTS:\n{json.dumps(list(job.facts), ensure_ascii=False)}",
        )
    if job.reference:
        out["answer_correctness"] = _messages(
            CORRECTNESS_PROMPT, f"QUESTION: {q}\n\nANSWER:\n{ans}\n\nREFERENCE:\n{job.reference}"
        )
    return out


def _score_row(
    job: _Job, replies: dict[str, Reply], embed: Embed, bad: list[Unparseable]
) -> AnswerRow:
    q, answer = job.question, job.answer.text.strip()

    def unreadable(step: str) -> None:
        bad.append(Unparseable(job.query_id, job.policy, step, replies[step].text[:300]))

    claims = _verdicts(replies["faithfulness"].data, "claims", "claim")
    if claims is None:
        unreadable("faithfulness")
    faith = sum(c.supported for c in claims) / len(claims) if claims else None

    generated = _strings(replies["answer_relevancy"].data, "questions")
    if generated is None:
        unreadable("answer_relevancy")
    relevancy = _cos(embed, q, generated) if generated else None

    found, recall = None, None
    if "context_recall" in replies:
        n_facts = len(job.facts)
        found = _verdicts(replies["context_recall"].data, "statements", "statement")
        if found is None:
            unreadable("context_recall")
        elif found:
            recall = min(sum(v.supported for v in found), n_facts) / n_facts

    correctness = None
    if "answer_correctness" in replies:
        data = replies["answer_correctness"].data
        parts = [_strings(data, key) for key in ("TP", "FP", "FN")]
        if any(p is None for p in parts):
            unreadable("answer_correctness")
        else:
            tp, fp, fn = (len(p) for p in parts)
            if tp + fp + fn:
                f1 = tp / (tp + 0.5 * (fp + fn))
                correctness = 0.75 * f1 + 0.25 * _cos(embed, answer or " ", [job.reference])
    judge = sum((_usage(r) for r in replies.values()), Usage())
    return AnswerRow(
        job.query_id,
        job.policy,
        q,
        job.context,
        job.context_tokens,
        job.chunk_ids,
        job.answer.text,
        faith,
        relevancy,
        recall,
        correctness,
        claims or (),
        tuple(generated or ()),
        found or (),
        _usage(job.answer),
        judge,
    )


def _run(
    jobs: list[_Job],
    chat: ChatModel,
    judge: ChatModel,
    embed: Embed,
    n_questions: int,
    progress: Progress | None,
) -> tuple[list[AnswerRow], list[Unparseable], Usage]:
    """Answers (one batch on ``chat``), then the judge's calls (one batch), then the scores."""
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
    asks = [_judge_requests(j, n_questions) for j in jobs]
    flat = [(i, step, m) for i, ask in enumerate(asks) for step, m in ask.items()]
    judged = judge.complete_many(
        [m for _, _, m in flat], progress=_stage(progress, len(jobs), total)
    )
    by_job: list[dict[str, Reply]] = [{} for _ in jobs]
    for (i, step, _), reply in zip(flat, judged, strict=True):
        by_job[i][step] = reply
    bad: list[Unparseable] = []
    rows = [_score_row(j, r, embed, bad) for j, r in zip(jobs, by_job, strict=True)]
    after = chat.usage + (judge.usage if judge is not chat else Usage())
    return rows, bad, after - before


# --- the check -------------------------------------------------------------------------------


def _contexts(
    prep: PreparedDoc,
    queries: Sequence[GoldQuery],
    query_vecs: np.ndarray,
    labels: Sequence[str],
    params: GateParams,
    embed: Embed | None,
    knobs: Mapping[str, Mapping[str, object]],
) -> tuple[dict[str, list[PolicyResult]], dict[str, str]]:
    """Every policy's result for every query (a policy that fails gets its message)."""
    results: dict[str, list[PolicyResult]] = {label: [] for label in labels}
    errors: dict[str, str] = {}
    for qi, gq in enumerate(queries):
        inputs = query_inputs(
            prep, gq.query.query, np.asarray(query_vecs[qi], dtype=np.float64), params, embed=embed
        )
        for label in labels:
            if label in errors:
                continue
            name, extra = resolve_policy(label)
            try:
                results[label].append(
                    run_policy(name, inputs, **{**extra, **dict(knobs.get(name, {}))})
                )
            except (ValueError, EmbeddingError) as exc:
                errors[label] = user_message(exc)
    return results, errors


def _stage(progress: Progress | None, offset: int, total: int) -> Progress | None:
    if progress is None:
        return None
    return lambda done, _n: progress(offset + done, total)


def check_answers(
    prep: PreparedDoc,
    queries: Sequence[GoldQuery],
    query_vecs: np.ndarray,
    chat: ChatModel,
    embed: Embed,
    *,
    policies: Sequence[str] | None = None,
    params: GateParams | None = None,
    judge: ChatModel | None = None,
    references: Mapping[str, str] | None = None,
    n_questions: int = DEFAULT_QUESTIONS,
    knobs: Mapping[str, Mapping[str, object]] | None = None,
    target: str = "scar",
    n_boot: int = DEFAULT_BOOT,
    seed: int = DEFAULT_SEED,
    progress: Progress | None = None,
) -> AnswerCheck:
    """Answer every query with every policy's context and score the answers.

    Args:
        query_vecs: (Q, d) unit query vectors in the order of ``queries``.
        chat: the model that answers; ``judge`` (default ``chat``) scores.
        embed: the current embedder (answer relevancy and correctness cosines).
        references: reference answers by query id (enables answer correctness).
        progress: progress(done, total) over all calls (answers first, then the judge's).
        n_boot: bootstrap resamples (0 skips the significance tests).

    Raises:
        ValueError: for an unknown policy, bad settings or mismatched query vectors.
        LLMError: when an endpoint fails; replies received so far stay cached, so a rerun
            resumes where this one stopped.
    """
    labels = parse_policy_list(list(policies or default_policies()))
    params = params or GateParams()
    judge = judge or chat
    references = references or {}
    query_vecs = np.atleast_2d(np.asarray(query_vecs, dtype=np.float64))
    if len(queries) and query_vecs.shape[0] != len(queries):
        raise ValueError(f"{len(queries)} queries need {len(queries)} query vectors.")
    results, errors = _contexts(prep, queries, query_vecs, labels, params, embed, knobs or {})
    jobs = []
    for qi, gq in enumerate(queries):
        facts = tuple(s for ev in gq.query.evidence for s in statements(ev.text))
        reference = (references.get(gq.id) or "").strip()
        for label in labels:
            if label in errors:
                continue
            r = results[label][qi]
            jobs.append(
                _Job(
                    gq.id, gq.query.query, label, r.context, r.tokens, r.chunk_ids, facts, reference
                )
            )
    rows, bad, used = _run(jobs, chat, judge, embed, n_questions, progress)
    out: dict[str, PolicyAnswers] = {}
    for label in labels:
        mine = tuple(r for r in rows if r.policy == label)
        out[label] = PolicyAnswers(label, mine, errors.get(label, ""))
    return AnswerCheck(
        prep.document.name,
        prep.config.label,
        prep.embedder_label,
        chat.label,
        judge.label,
        params,
        n_questions,
        tuple(queries),
        out,
        answer_significance(out, target, n_boot, seed) if n_boot else (),
        tuple(bad),
        used,
        any(j.reference for j in jobs),
    )


def answer_significance(
    policies: Mapping[str, PolicyAnswers],
    target: str = "scar",
    n_boot: int = DEFAULT_BOOT,
    seed: int = DEFAULT_SEED,
) -> tuple[Comparison, ...]:
    """Paired bootstrap and Cohen's d of ``target`` against every other policy, per score
    (over the queries both policies have that score for) and for context tokens."""
    mine = policies.get(target)
    if mine is None or mine.error or not mine.rows:
        return ()
    out = []
    for name, other in policies.items():
        if name == target or other.error or not other.rows:
            continue
        for metric in (*SCORES, "tokens"):
            a, b = mine.values(metric), other.values(metric)
            both = ~np.isnan(a) & ~np.isnan(b)
            if both.sum() < 2:
                continue
            res = paired_bootstrap(a[both], b[both], n_boot, seed)
            out.append(Comparison(target, name, metric, res))
    return tuple(out)


def answer_contexts(
    chat: ChatModel,
    question: str,
    contexts: Mapping[str, str],
    progress: Progress | None = None,
) -> dict[str, Reply]:
    """Answers to one question from several contexts (the Explorer's side-by-side view),
    keyed like ``contexts``. ``Reply.text`` is the answer, verbatim: escape it to show it.

    Raises:
        LLMError: when the endpoint fails.
    """
    names = list(contexts)
    replies = chat.complete_many(
        [answer_messages(question, contexts[n]) for n in names], json_reply=False, progress=progress
    )
    return dict(zip(names, replies, strict=True))


@dataclass(frozen=True)
class QuestionCheck:
    """One question answered from several contexts and scored (the Explorer's view)."""

    rows: dict[str, AnswerRow]
    unparseable: tuple[Unparseable, ...]
    usage: Usage


def check_question(
    chat: ChatModel,
    embed: Embed,
    question: str,
    contexts: Mapping[str, str],
    *,
    judge: ChatModel | None = None,
    evidence: Sequence[str] = (),
    reference: str = "",
    n_questions: int = DEFAULT_QUESTIONS,
    progress: Progress | None = None,
) -> QuestionCheck:
    """Answer ``question`` from each of ``contexts`` (name -> context text) and score each
    answer: faithfulness and answer relevancy always, context recall when ``evidence`` texts
    are given (a labelled question), answer correctness with a ``reference`` answer.

    Raises:
        LLMError: when an endpoint fails.
    """
    facts = tuple(s for text in evidence for s in statements(text))
    jobs = [
        _Job("", question, name, text, count_tokens(text), None, facts, reference.strip())
        for name, text in contexts.items()
    ]
    rows, bad, used = _run(jobs, chat, judge or chat, embed, n_questions, progress)
    return QuestionCheck({r.policy: r for r in rows}, tuple(bad), used)


# --- reference answers and JSON --------------------------------------------------------------

REFERENCE_KEYS = ("answer", "reference", "reference_answer", "ground_truth")


def reference_answers(data: str) -> dict[str, str]:
    """Reference answers by query id from a query file's JSON Lines (``answer``, ``reference``,
    ``reference_answer`` or ``ground_truth``); lines without one, or invalid, are skipped
    (:func:`scar_viz.evaluation.queries.parse_queries` reports invalid lines)."""
    out: dict[str, str] = {}
    for line in data.splitlines():
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("id"), str | int):
            continue
        for key in REFERENCE_KEYS:
            value = obj.get(key)
            if isinstance(value, str) and value.strip():
                out[str(obj["id"])] = value.strip()
                break
    return out


def _r(x: float | None) -> float | None:
    return None if x is None else round(float(x), 6)


def answer_json(check: AnswerCheck, per_query: bool = True) -> dict[str, object]:
    """The ``answer --json`` shape, in the ``eval --json`` style: ``{"n_queries", "policies":
    {name: {score: mean, "n_scored", "mean_context_tokens", "answer_tokens", "judge_tokens",
    "unparseable"}}}``, plus the setting, significance, unparseable replies and usage."""
    bad_by_policy = check.unparseable_counts
    policies: dict[str, object] = {}
    errors: dict[str, str] = {}
    for name, pa in check.policies.items():
        if pa.error:
            errors[name] = pa.error
            continue
        policies[name] = {
            **{s: _r(pa.mean(s)) for s in SCORES},
            "n_scored": {s: pa.n_scored(s) for s in SCORES},
            "mean_context_tokens": _r(pa.mean_context_tokens),
            "answer_tokens": pa.answer_usage.as_dict(),
            "judge_tokens": pa.judge_usage.as_dict(),
            "unparseable": bad_by_policy.get(name, 0),
        }
    p = check.params
    out: dict[str, object] = {
        "n_queries": check.n_queries,
        "document": check.document,
        "chunking": check.chunking,
        "embedder": check.embedder,
        "answer_model": check.answer_model,
        "judge_model": check.judge_model,
        "params": {"k": p.k, "lam": p.lam, "tau": p.tau, "radius": p.radius},
        "n_questions": check.n_questions,
        "reference_answers": check.has_references,
        "tokenizer": TOKENIZER_NAME,
        "policies": policies,
        "errors": errors,
        "significance": [c.as_dict() for c in check.comparisons],
        "unparseable": [
            {"id": u.query_id, "policy": u.policy, "step": u.step, "reply": u.reply}
            for u in check.unparseable
        ],
        "usage": check.usage.as_dict(),
    }
    if per_query:
        rows = []
        for gq in check.queries:
            per = {}
            for name, pa in check.policies.items():
                for r in pa.rows:
                    if r.query_id != gq.id:
                        continue
                    per[name] = {
                        "answer": r.answer,
                        "context_tokens": r.context_tokens,
                        "chunks": list(r.chunk_ids) if r.chunk_ids is not None else None,
                        **{s: _r(r.score(s)) for s in SCORES},
                        "claims": [{"claim": c.text, "supported": c.supported} for c in r.claims],
                        "generated_questions": list(r.generated_questions),
                    }
            rows.append({"id": gq.id, "query": gq.query.query, "type": gq.type, "policies": per})
        out["queries"] = rows
    return out
