"""The prompts of the answer check: one fixed prompt that asks for an answer, and one a judge
step (faithfulness, answer relevancy, context recall, answer correctness), each built into
chat messages here and nowhere else.

A judge prompt asks for a JSON object whose shape its step's reply parser reads
(:mod:`scar_viz.llm.judge`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

Messages = list[dict[str, str]]

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


def _messages(system: str, user: str) -> Messages:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def answer_messages(question: str, context: str) -> Messages:
    """The one fixed prompt that asks for an answer from a context."""
    return _messages(ANSWER_PROMPT, f"CONTEXT:\n{context}\n\nQUESTION: {question}")


def faithfulness_messages(context: str, answer: str) -> Messages:
    """Ask for the answer's claims, each marked supported by the context or not."""
    return _messages(FAITHFULNESS_PROMPT, f"CONTEXT:\n{context}\n\nANSWER:\n{answer}")


def relevancy_messages(answer: str, n_questions: int) -> Messages:
    """Ask for ``n_questions`` questions written from the answer alone."""
    return _messages(RELEVANCY_PROMPT, f"NUMBER OF QUESTIONS: {n_questions}\n\nANSWER:\n{answer}")


def recall_messages(context: str, statements: Sequence[str]) -> Messages:
    """Ask, for each statement of the reference evidence, whether the context supports it."""
    listed = json.dumps(list(statements), ensure_ascii=False)
    return _messages(RECALL_PROMPT, f"CONTEXT:\n{context}\n\nSTATEMENTS:\n{listed}")


def correctness_messages(question: str, answer: str, reference: str) -> Messages:
    """Ask for the answer's and the reference's statements sorted into TP, FP and FN."""
    return _messages(
        CORRECTNESS_PROMPT, f"QUESTION: {question}\n\nANSWER:\n{answer}\n\nREFERENCE:\n{reference}"
    )
