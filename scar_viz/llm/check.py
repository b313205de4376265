"""The answer check: each policy's context to a language model, the answers scored by a judge
(:mod:`scar_viz.llm.scores`), and ``scar`` compared with every other policy.

For each query and policy, the context is ``PolicyResult.context`` (the selected chunks in
document order joined by a blank line, as the Explorer's context view shows them); the calls
and the reading of the judge's replies are :mod:`scar_viz.llm.judge`'s. Means are over the
queries scored; the paired bootstrap (B = 10,000) and Cohen's d compare ``scar`` with each
other policy over the queries both have a score for. Calls per query and policy: 1 answer +
3 judge calls (+1 with a reference answer; −1 for a question without evidence, which has no
context recall); identical requests are sent once and cached on disk.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking.tokens import count_tokens
from scar_viz.common.errors import user_message
from scar_viz.embeddings import EmbeddingError
from scar_viz.evaluation import Comparison, default_policies, parse_policy_list, resolve_policy
from scar_viz.evaluation.bootstrap import DEFAULT_BOOT, DEFAULT_SEED, paired_bootstrap
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.run import Runner, run_label
from scar_viz.evaluation.settings import RunSettings
from scar_viz.llm.client import ChatModel, Progress, Reply, Usage
from scar_viz.llm.judge import DEFAULT_QUESTIONS, AnswerRow, Job, Unparseable, run_jobs
from scar_viz.llm.prompts import answer_messages
from scar_viz.llm.scores import SCORES, Embed, statements
from scar_viz.pipeline import query_inputs
from scar_viz.policies import PolicyResult
from scar_viz.queries.gold import GoldQuery
from scar_viz.scoring.params import GateParams


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
    """Answers and scores of every policy on a query set, with the significance tests:
    the run's setting, who answered and who judged."""

    settings: RunSettings
    answer_model: str
    judge_model: str
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


def _contexts(
    run: LabelledRun,
    labels: Sequence[str],
    params: GateParams,
    embed: Embed | None,
    knobs: Mapping[str, Mapping[str, object]],
    runners: Mapping[str, Runner] | None = None,
) -> tuple[dict[str, list[PolicyResult]], dict[str, str]]:
    """Every policy's result for every query (a policy that fails gets its message)."""
    results: dict[str, list[PolicyResult]] = {label: [] for label in labels}
    errors: dict[str, str] = {}
    for qi, gq in enumerate(run.queries):
        inputs = query_inputs(
            run.prep, gq.query.query, run.vecs[qi], params, embed=embed, retriever=run.retriever
        )
        for label in labels:
            if label in errors:
                continue
            name, extra = resolve_policy(label)
            try:
                results[label].append(
                    run_label(label, name, inputs, {**extra, **dict(knobs.get(name, {}))}, runners)
                )
            except (ValueError, EmbeddingError) as exc:
                errors[label] = user_message(exc)
    return results, errors


def check_answers(
    run: LabelledRun,
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
    runners: Mapping[str, Runner] | None = None,
) -> AnswerCheck:
    """Answer every query of a labelled run with every policy's context (each top-k ranked by
    the run's retriever) and score the answers.

    Args:
        chat: the model that answers; ``judge`` (default ``chat``) scores.
        embed: the current embedder (answer relevancy and correctness cosines).
        references: reference answers by query id, as the query file gives them
            (:attr:`~scar_viz.queries.reading.QuerySet.references`; enables answer
            correctness).
        progress: progress(done, total) over all calls (answers first, then the judge's).
        n_boot: bootstrap resamples (0 skips the significance tests).
        runners: labels run by a function of the query's inputs (a saved setting), as in
            :func:`~scar_viz.evaluation.evaluate`.

    Raises:
        ValueError: for an unknown policy or bad settings.
        LLMError: when an endpoint fails; replies received so far stay cached, so a rerun
            resumes where this one stopped.
    """
    labels = parse_policy_list(list(policies or default_policies()))
    params = params or GateParams()
    judge = judge or chat
    references = references or {}
    prep, queries, retriever = run.prep, run.queries, run.retriever
    results, errors = _contexts(run, labels, params, embed, knobs or {}, runners)
    jobs = []
    for qi, gq in enumerate(queries):
        facts = tuple(s for ev in gq.query.evidence for s in statements(ev.text))
        reference = (references.get(gq.id) or "").strip()
        for label in labels:
            if label in errors:
                continue
            r = results[label][qi]
            jobs.append(
                Job(
                    gq.id, gq.query.query, label, r.context, r.tokens, r.chunk_ids, facts, reference
                )
            )
    rows, bad, used = run_jobs(jobs, chat, judge, embed, n_questions, progress)
    out: dict[str, PolicyAnswers] = {}
    for label in labels:
        mine = tuple(r for r in rows if r.policy == label)
        out[label] = PolicyAnswers(label, mine, errors.get(label, ""))
    return AnswerCheck(
        RunSettings.of(prep, params, retriever),
        chat.label,
        judge.label,
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


# --- the Explorer's side-by-side view ----------------------------------------------------------


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
        Job("", question, name, text, count_tokens(text), None, facts, reference.strip())
        for name, text in contexts.items()
    ]
    rows, bad, used = run_jobs(jobs, chat, judge or chat, embed, n_questions, progress)
    return QuestionCheck({r.policy: r for r in rows}, tuple(bad), used)
