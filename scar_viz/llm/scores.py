"""The four answer scores, with the RAGAS definitions (docs/method.md §7), each one function
over the judge's verdict for it (implemented here rather than with the ``ragas`` package).

For query q, a context C (a policy's selected chunks in document order, joined by a blank
line) and the answer A to the one fixed prompt, a judge model's verdicts give:

    faithfulness        = |claims of A the judge finds supported by C| / |claims of A|
    answer relevancy    = mean_j cos(e(q), e(q̂_j)), q̂_1 … q̂_N questions the judge writes
                          from A alone, e the current embedder (unit vectors)
    context recall      = |statements of q's reference evidence supported by C| / |statements|
    answer correctness  = 0.75 · F1 + 0.25 · cos(e(A), e(R)), with the judge sorting claims
                          into TP (in A and the reference answer R), FP (in A only) and
                          FN (in R only), F1 = TP / (TP + ½ (FP + FN))

A score is None when it cannot be computed: an answer with no claims has no faithfulness,
no generated question no relevancy, no statement judged no recall, no statement sorted no
correctness.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.documents.sentences import paragraph_spans, split_piece

Embed = Callable[[list[str]], np.ndarray]
"""Embeds texts with the current embedder: n texts -> (n, d) unit rows."""

SCORES = ("faithfulness", "answer_relevancy", "context_recall", "answer_correctness")
CORRECTNESS_WEIGHTS = (0.75, 0.25)
"""Answer correctness: the weights of F1 and of the answer–reference cosine (RAGAS's)."""


@dataclass(frozen=True)
class Claim:
    """A claim or statement and whether the judge found it supported."""

    text: str
    supported: bool


@dataclass(frozen=True)
class FaithfulnessVerdict:
    """The answer's claims, each supported by the context or not."""

    claims: tuple[Claim, ...]


@dataclass(frozen=True)
class RelevancyVerdict:
    """The questions the judge wrote from the answer alone (blank ones dropped)."""

    questions: tuple[str, ...]


@dataclass(frozen=True)
class RecallVerdict:
    """The statements of the reference evidence, each supported by the context or not."""

    statements: tuple[Claim, ...]


@dataclass(frozen=True)
class CorrectnessVerdict:
    """The statements of the answer and the reference answer, sorted: in both (``tp``), in
    the answer only (``fp``), in the reference only (``fn``)."""

    tp: tuple[str, ...]
    fp: tuple[str, ...]
    fn: tuple[str, ...]


def statements(text: str) -> list[str]:
    """The sentences of a reference evidence text (whitespace collapsed), in order: what
    context recall asks the judge about."""
    out: list[str] = []
    for s, e in paragraph_spans(text):
        piece = text[s:e].replace("\n", " ")
        out.extend(" ".join(piece[a:b].split()) for a, b in split_piece(piece))
    return [x for x in out if x]


def mean_cosine(embed: Embed, text: str, others: Sequence[str]) -> float:
    """mean_j cos(e(text), e(others_j)) with the current embedder."""
    vecs = np.asarray(embed([text, *others]), dtype=np.float64)
    vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    return float(np.mean(vecs[1:] @ vecs[0]))


def faithfulness(verdict: FaithfulnessVerdict) -> float | None:
    """Supported claims / claims (None without a claim)."""
    claims = verdict.claims
    return sum(c.supported for c in claims) / len(claims) if claims else None


def answer_relevancy(verdict: RelevancyVerdict, question: str, embed: Embed) -> float | None:
    """mean_j cos(e(question), e(q̂_j)) over the generated questions (None without one)."""
    return mean_cosine(embed, question, verdict.questions) if verdict.questions else None


def context_recall(verdict: RecallVerdict, n_statements: int) -> float | None:
    """Supported statements / the evidence's ``n_statements`` (at most 1; None when the
    judge listed none)."""
    if not verdict.statements or n_statements < 1:
        return None
    return min(sum(v.supported for v in verdict.statements), n_statements) / n_statements


def answer_correctness(
    verdict: CorrectnessVerdict, answer: str, reference: str, embed: Embed
) -> float | None:
    """0.75 · F1 + 0.25 · cos(e(answer), e(reference)), F1 = TP / (TP + ½ (FP + FN)) (None
    when nothing was sorted)."""
    tp, fp, fn = len(verdict.tp), len(verdict.fp), len(verdict.fn)
    if not tp + fp + fn:
        return None
    f1 = tp / (tp + 0.5 * (fp + fn))
    w_f1, w_cos = CORRECTNESS_WEIGHTS
    return w_f1 * f1 + w_cos * mean_cosine(embed, answer or " ", [reference])
