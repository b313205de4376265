"""Plain-language and LaTeX explanations of gate decisions, and the edge cases worth showing."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scar_viz.edges import bounds
from scar_viz.scoring.learned.select import LearnedDecision
from scar_viz.scoring.scar import Decision, Selection


@dataclass(frozen=True)
class Explanation:
    latex: str
    sentence: str


def explain_decision(d: Decision) -> Explanation:
    """The gate with this decision's numbers filled in, and one sentence saying why."""
    relation = ">" if d.passes else r"\le"
    lexical = (
        rf" + \underbrace{{{d.mu:.2f}}}_{{\mu}}\cdot"
        rf"\underbrace{{{d.lex_qn:.3f}}}_{{\mathrm{{lex}}(q,n)}}"
        if d.mu
        else ""
    )
    latex = (
        r"\begin{aligned}"
        rf"S &= \underbrace{{{d.cos_qn:.3f}}}_{{\cos(q,n_{{{d.neighbour}}})}}"
        rf" - \underbrace{{{d.lam:.2f}}}_{{\lambda}}\cdot"
        rf"\underbrace{{{d.penalty:.3f}}}_{{b(c_{{{d.chunk}}},n)}}{lexical} = {d.score:.3f}\\"
        rf"\text{{bar}} &= \underbrace{{{d.tau:.2f}}}_{{\tau}}\cdot"
        rf"\underbrace{{{d.cos_qc:.3f}}}_{{\cos(q,c_{{{d.chunk}}})}} = {d.bar:.3f}\\"
        rf"S &{relation} \text{{bar}} \quad(\text{{margin }} {d.margin:+.3f})"
        r"\end{aligned}"
    )
    if d.outcome == "retrieved":
        sentence = (
            f"Chunk {d.neighbour} is itself retrieved, so it is in the context already "
            "(counted once) and expansion continues past it."
        )
    elif d.outcome == "admitted":
        sentence = f"Admitted: chunk {d.neighbour}'s score clears the bar by {d.margin:.3f}."
        if d.mu:
            sentence += f" The question's words add μ·lex(q,n) = {d.lexical_term:.3f}" + (
                " — without them it would be rejected." if d.margin <= d.lexical_term else "."
            )
    elif d.blocked_by == "relevance":
        with_words = f" plus μ·lex(q,n) = {d.lexical_term:.3f}" if d.mu else ""
        sentence = (
            f"Rejected by relevance: even with no penalty, cos(q,n) = {d.cos_qn:.3f}"
            f"{with_words} does not clear the bar {d.bar:.3f}."
        )
    else:
        sentence = (
            f"Rejected by the boundary penalty: cos(q,n) = {d.cos_qn:.3f} clears the bar, "
            f"but λ·b = {d.lam * d.penalty:.3f} pulls S down to {d.score:.3f}. "
            "The text changes topic across this boundary."
        )
    return Explanation(latex, sentence)


def learned_verdict(d: LearnedDecision) -> str:
    """The learned gate's verdict in a few words, as its decision table says it: "already
    retrieved" for a neighbour in the top-k (the gate's number is not what decides it)."""
    if d.outcome == "retrieved":
        return "already retrieved"
    return "admitted" if d.passes else "rejected"


def explain_learned(d: LearnedDecision) -> str:
    """One sentence saying why the learned gate decided ``d`` as it did."""
    if d.outcome == "retrieved":
        return (
            f"Chunk {d.neighbour} is itself retrieved, so it is in the context already "
            f"(counted once) and expansion continues past it; its probability "
            f"{d.probability:.3f} decides nothing."
        )
    relation = ">" if d.passes else "≤"
    verdict = "Admitted" if d.passes else "Rejected"
    return (
        f"{verdict}: chunk {d.neighbour}'s probability {d.probability:.3f} {relation} "
        f"p = {d.p:g} (score {d.score:.3f} {relation} logit(p) = {d.bar:.3f})."
    )


def edge_notes(
    sel: Selection, n_chunks: int, doc_of: np.ndarray | None = None
) -> list[tuple[str, str]]:
    """(level, message) pairs for the edge cases of docs/method.md §2, as they occur; in a
    corpus (``doc_of``, the file of each chunk) a retrieved chunk at either edge of its own file
    has no neighbour on that side either."""
    notes: list[tuple[str, str]] = []
    for c in sel.retrieved:
        if sel.sims[c] <= 0:
            notes.append(
                (
                    "warning",
                    f"cos(q,c) ≤ 0 for retrieved chunk {c} ({sel.sims[c]:.3f}): "
                    "the bar τ·cos(q,c) is ≤ 0 and admits almost anything.",
                )
            )
    if sel.params.radius > 0:
        if 0 in sel.retrieved:
            notes.append(("info", "Chunk 0 is retrieved: it has no left neighbour."))
        if n_chunks - 1 in sel.retrieved and n_chunks > 0:
            notes.append(
                (
                    "info",
                    f"Chunk {n_chunks - 1} (the last) is retrieved: it has no right neighbour.",
                )
            )
        lo, hi = bounds(doc_of, n_chunks)
        for c in sorted(sel.retrieved):
            if c == lo[c] and c > 0:
                notes.append(("info", f"Chunk {c} opens its file: it has no left neighbour there."))
            if c == hi[c] - 1 and c < n_chunks - 1:
                notes.append(("info", f"Chunk {c} ends its file: it has no right neighbour there."))
    both = sorted({d.neighbour for d in sel.decisions if d.outcome == "retrieved"})
    if both:
        notes.append(
            (
                "info",
                f"Neighbours that are themselves retrieved (counted once): "
                f"{', '.join(map(str, both))}.",
            )
        )
    return notes
