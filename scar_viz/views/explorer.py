"""What the Explorer shows for one question: the selection under a policy, its cost against
top-k and the static window, the contexts an answer is drawn from, and known evidence.

Pure functions over a prepared document's chunks and vectors; the page only draws what these
return, so that the pages hold no arithmetic.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.tokens import TOKENIZER_NAME, count_tokens
from scar_viz.common import fmt
from scar_viz.common.errors import UserError
from scar_viz.documents.reading import Document
from scar_viz.llm.check import answer_contexts, check_question
from scar_viz.llm.client import ChatModel, Progress, Usage
from scar_viz.llm.scores import SCORES, Embed
from scar_viz.policies.context import ContextCost, context_cost, context_text
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import LabelledQuery
from scar_viz.scoring.learned import (
    DEFAULT_P,
    LearnedDecision,
    LearnedGate,
    learned_select,
    resolve_gate,
)
from scar_viz.scoring.lexical import QuestionLex
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import Selection, select_from_sims, window

POLICIES = ("SCAR", "learned")
"""The gate policies the Explorer offers (the learned one reads a fitted or the default gate)."""


class DimensionError(UserError, ValueError):
    """The query and the chunks were embedded with different dimensions."""


def query_sims(unit: np.ndarray, qvec: np.ndarray) -> np.ndarray:
    """cos(q, c_i) for every chunk (``unit`` holds unit-norm chunk vectors, (N, d)).

    Raises:
        DimensionError: when ``qvec``'s dimension is not the chunks'.
    """
    qvec = np.asarray(qvec)
    if qvec.shape[0] != unit.shape[1]:
        raise DimensionError(
            "The query and the chunks were embedded with different dimensions "
            f"({qvec.shape[0]} and {unit.shape[1]}); embed the document again."
        )
    return unit @ qvec


def policy_selection(
    policy: str,
    sims: np.ndarray,
    unit: np.ndarray,
    params: GateParams,
    doc_of: np.ndarray,
    gate: LearnedGate | None = None,
    p: float = DEFAULT_P,
    lexical: QuestionLex | None = None,
    rank: np.ndarray | None = None,
) -> Selection:
    """The selection ``policy`` ("SCAR" or "learned") makes for one query, its top-k taken by
    ``rank`` (the retriever's scores, :mod:`scar_viz.retrieval`; None: ``sims``).

    The learned gate reads ``params.k`` and ``params.radius`` (λ, τ and μ are unused) and
    admits a neighbour iff its probability exceeds ``p``; ``gate`` None means the shipped gate.
    ``doc_of`` (each chunk's file; all zeros for one file) keeps neighbours inside their
    chunk's file.
    ``lexical`` (the question's words over the chunks) is needed by SCAR with μ > 0 and by a
    gate with lexical features.
    """
    if policy == "learned":
        resolved = resolve_gate(gate)
        return learned_select(
            sims,
            unit,
            params.k,
            resolved,
            p,
            params.radius,
            doc_of=doc_of,
            lexical=lexical,
            rank=rank,
        )
    if policy != "SCAR":
        raise UserError(f"Unknown gate policy '{policy}'; choose SCAR or learned.")
    return select_from_sims(sims, unit, params, doc_of, lexical, rank)


def window_name(radius: int) -> str:
    """The static window's label, e.g. "window ±1"."""
    return f"window ±{radius}"


def policy_chunks(
    sel: Selection, n_chunks: int, policy: str, doc_of: np.ndarray
) -> dict[str, list[int]]:
    """Chunk ids each compared policy sends: top-k, window ±r (inside each chunk's file,
    ``doc_of``) and ``policy``'s selection."""
    radius = sel.params.radius
    return {
        "top-k": list(sel.retrieved),
        window_name(radius): window(sel.retrieved, n_chunks, radius, doc_of),
        policy: list(sel.selected),
    }


def contexts(
    chunks: Sequence[Chunk], sel: Selection, policy: str, doc_of: np.ndarray
) -> dict[str, str]:
    """The context text of top-k, window ±r and ``policy`` (the Explorer's context view)."""
    return {
        name: context_text(chunks, ids)
        for name, ids in policy_chunks(sel, len(chunks), policy, doc_of).items()
    }


@dataclass(frozen=True)
class CostSummary:
    """The cost of ``policy``'s context against top-k and the static window.

    ``costs`` maps top-k, window ±r and the policy to their :class:`ContextCost`;
    ``chunk_delta`` and ``token_delta`` are the policy's change against the window, written
    with :func:`scar_viz.common.fmt.change` ("−30% vs window", never "-0%").
    """

    policy: str
    window: str
    costs: Mapping[str, ContextCost]

    @property
    def ours(self) -> ContextCost:
        return self.costs[self.policy]

    @property
    def base(self) -> ContextCost:
        return self.costs[self.window]

    def delta(self, field: str, short: bool = False) -> str:
        """``field`` ("chunks" or "tokens") against the window: "−30% vs window" (or "−30%")."""
        change = fmt.change(getattr(self.ours, field), getattr(self.base, field))
        return change if short else f"{change} vs window"

    def delta_style(self, field: str) -> tuple[str, str]:
        """(arrow, colour) for ``field``'s delta: fewer than the window is down and green,
        more is up and red, equal is no arrow and grey (``st.metric``'s ``delta_arrow``
        and ``delta_color``: the written delta uses a true minus sign, which Streamlit's own
        sign test does not read)."""
        ours, base = getattr(self.ours, field), getattr(self.base, field)
        if ours < base:
            return "down", "green"
        if ours > base:
            return "up", "red"
        return "off", "gray"

    def rows(self) -> list[dict[str, object]]:
        """The summary table: one row per policy (chunks, tokens, characters, vs window)."""
        return [
            {
                "policy": name,
                "chunks": c.chunks,
                "tokens": c.tokens,
                "characters": c.chars,
                "tokens vs window": fmt.change(c.tokens, self.base.tokens),
            }
            for name, c in self.costs.items()
        ]

    def sentence(self) -> str:
        """One sentence: the tokenizer, then the change against the window and against top-k
        written as changes (:func:`scar_viz.common.fmt.compared`): "SCAR sends 30% fewer tokens than
        window ±1 and 12% more tokens than top-k."."""
        top = self.costs["top-k"]
        return (
            f"Tokens: {TOKENIZER_NAME} over the chunks joined in document order. "
            f"{self.policy} sends "
            f"{fmt.compared(self.ours.tokens, self.base.tokens, 'tokens', self.window)} and "
            f"{fmt.compared(self.ours.tokens, top.tokens, 'tokens', 'top-k')}."
        )


def summarise(
    chunks: Sequence[Chunk],
    sel: Selection,
    policy: str = "SCAR",
    *,
    doc_of: np.ndarray,
) -> CostSummary:
    """The :class:`CostSummary` of ``sel`` (made by ``policy``) on ``chunks``."""
    sent = policy_chunks(sel, len(chunks), policy, doc_of)
    costs = {name: context_cost(chunks, ids) for name, ids in sent.items()}
    return CostSummary(policy, window_name(sel.params.radius), costs)


def why_table(decision: LearnedDecision) -> list[dict[str, object]]:
    """The learned gate's why? rows for a table: value written out ("—" for the intercept),
    the contribution w_i·z_i, the meaning; then the score and the bar logit(p)."""
    rows = [
        {
            "term": r["term"],
            "value": fmt.EMPTY_CELL if r["value"] is None else f"{r['value']:.3f}",
            "contribution": round(float(r["contribution"]), 4),
            "meaning": r["meaning"],
        }
        for r in decision.why_rows()
    ]
    rows.append(
        {
            "term": "score",
            "value": f"p = {decision.probability:.3f}",
            "contribution": round(decision.score, 4),
            "meaning": f"admitted iff score > logit(p = {decision.p:g}) = {decision.bar:.3f}"
            + (
                " (not used: the neighbour is already retrieved)"
                if decision.outcome == "retrieved"
                else ""
            ),
        }
    )
    return rows


def chunk_span(chunks: Sequence[Chunk], ids: Sequence[int]) -> tuple[int, int]:
    """The character span from the first picked chunk's start to the last one's end.

    Raises:
        UserError: when no chunk is picked.
    """
    if not ids:
        raise UserError("Pick at least one chunk that holds the answer.")
    picked = [chunks[i] for i in ids]
    return min(c.start for c in picked), max(c.end for c in picked)


def labelled_query(queries: Sequence[LabelledQuery], question: str) -> LabelledQuery | None:
    """``question`` in a labelled set (matched on its words, whatever their case and spacing),
    else None."""
    wanted = " ".join(question.split()).casefold()
    for q in queries:
        if " ".join(q.query.split()).casefold() == wanted:
            return q
    return None


def known_evidence(queries: Sequence[LabelledQuery], question: str) -> tuple[str, ...]:
    """Evidence texts of ``question`` in a labelled set (matched on its words), else ()."""
    q = labelled_query(queries, question)
    return () if q is None else tuple(e.text for e in q.evidence)


def gold_chunks(
    query: LabelledQuery | None, document: Document, chunks: Sequence[Chunk]
) -> tuple[int, ...]:
    """The chunks holding ``query``'s evidence under ``chunks`` (each span's covering run,
    :func:`scar_viz.queries.gold.label_queries`), ascending; () for no query, no evidence, or
    evidence the chunks cannot cover (the labelled set's own page says why)."""
    if query is None or not query.evidence:
        return ()
    try:
        (labelled,) = label_queries([query], document, chunks)
    except UserError:
        return ()
    return labelled.gold


@dataclass(frozen=True)
class AnsweredContext:
    """One context's answer in the Explorer's check: the answer text (verbatim: escape it),
    the context's tokens, the tokens the calls spent, and scores (empty when not scored)."""

    policy: str
    answer: str
    context_tokens: int
    spent: Usage
    scores: Mapping[str, float]


def answer_question(
    chat: ChatModel,
    question: str,
    contexts: Mapping[str, str],
    *,
    embed: Embed | None = None,
    evidence: Sequence[str] = (),
    progress: Progress | None = None,
) -> list[AnsweredContext]:
    """Answer ``question`` from each context; scored (faithfulness, answer relevancy, and
    context recall against ``evidence``) when the question has known evidence and ``embed``
    is given, else answers only (one call per context).

    Raises:
        LLMError: when the endpoint fails.
    """
    if evidence and embed is not None:
        check = check_question(
            chat, embed, question, contexts, evidence=evidence, progress=progress
        )
        return [
            AnsweredContext(
                name,
                row.answer,
                row.context_tokens,
                row.answer_usage + row.judge_usage,
                {s: v for s in SCORES if (v := row.score(s)) is not None},
            )
            for name, row in check.rows.items()
        ]
    replies = answer_contexts(chat, question, contexts, progress)
    return [
        AnsweredContext(
            name,
            reply.text,
            count_tokens(contexts[name]),
            Usage(reply.prompt_tokens, reply.completion_tokens, 1, int(reply.cached)),
            {},
        )
        for name, reply in replies.items()
    ]


def answer_rows(answers: Sequence[AnsweredContext], against: str) -> list[dict[str, object]]:
    """The answer check's table: per context its tokens, their change against ``against``'s
    context, the tokens spent, and the scores (when scored)."""
    base = next((a.context_tokens for a in answers if a.policy == against), 0)
    rows = []
    for a in answers:
        row: dict[str, object] = {
            "policy": a.policy,
            "context tokens": a.context_tokens,
            f"vs {against}": fmt.change(a.context_tokens, base)
            if a.policy != against
            else fmt.EMPTY_CELL,
            "tokens spent": a.spent.total_tokens,
        }
        row.update({name: round(float(v), 3) for name, v in a.scores.items()})
        rows.append(row)
    return rows
