"""Plain-language and LaTeX explanations of gate decisions, and the edge cases worth showing."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scar_viz.common.edges import bounds
from scar_viz.common.fmt import decides, decisive_digits
from scar_viz.scoring.learned.select import LearnedDecision
from scar_viz.scoring.scar import Decision, Selection


@dataclass(frozen=True)
class Explanation:
    latex: str
    sentence: str


def shown_digits(d: Decision, least: int = 3) -> int:
    """Decimals at which ``d``'s printed numbers decide it: S against the bar as printed, S and
    the bar worked out from the printed cos(q,n), b(c,n), lex(q,n) and cos(q,c), and what the
    sentence compares (cos(q,n) against the bar for a rejection, the margin against μ·lex(q,n)
    for an admission with μ > 0) all reach the gate's verdict: 3 unless the margin is thinner
    (:func:`scar_viz.common.fmt.decisive_digits`)."""

    def check(digits: int) -> bool:
        parts = (
            round(d.cos_qn, digits)
            - d.lam * round(d.penalty, digits)
            + (d.mu * round(d.lex_qn, digits) if d.mu else 0.0)
        )
        bar = d.tau * round(d.cos_qc, digits)
        said = True
        if d.outcome == "rejected":
            relevant = d.blocked_by == "penalty"
            said = decides(relevant, d.cos_qn + d.lexical_term, d.bar, digits)
        elif d.outcome == "admitted" and d.mu:
            said = decides(d.margin > d.lexical_term, d.margin, d.lexical_term, digits)
        return decides(d.passes, d.score, d.bar, digits) and (parts > bar) == d.passes and said

    return decisive_digits(check, least)


def explain_decision(d: Decision) -> Explanation:
    """The gate with this decision's numbers filled in, and one sentence saying why; the
    numbers carry as many decimals as the verdict needs to follow from them
    (:func:`shown_digits`)."""
    relation = ">" if d.passes else r"\le"
    g = shown_digits(d)

    def f(x: float) -> str:
        return f"{x:.{g}f}"

    lexical = (
        rf" + \underbrace{{{d.mu:g}}}_{{\mu}}\cdot"
        rf"\underbrace{{{f(d.lex_qn)}}}_{{\mathrm{{lex}}(q,n)}}"
        if d.mu
        else ""
    )
    latex = (
        r"\begin{aligned}"
        rf"S &= \underbrace{{{f(d.cos_qn)}}}_{{\cos(q,n_{{{d.neighbour}}})}}"
        rf" - \underbrace{{{d.lam:g}}}_{{\lambda}}\cdot"
        rf"\underbrace{{{f(d.penalty)}}}_{{b(c_{{{d.chunk}}},n)}}{lexical} = {f(d.score)}\\"
        rf"\text{{bar}} &= \underbrace{{{d.tau:g}}}_{{\tau}}\cdot"
        rf"\underbrace{{{f(d.cos_qc)}}}_{{\cos(q,c_{{{d.chunk}}})}} = {f(d.bar)}\\"
        rf"S &{relation} \text{{bar}} \quad(\text{{margin }} {d.margin:+.{g}f})"
        r"\end{aligned}"
    )
    if d.outcome == "retrieved":
        sentence = (
            f"Chunk {d.neighbour} is itself retrieved, so it is in the context already "
            "(counted once) and expansion continues past it."
        )
    elif d.outcome == "admitted":
        sentence = f"Admitted: chunk {d.neighbour}'s score clears the bar by {f(d.margin)}."
        if d.mu:
            sentence += f" The question's words add μ·lex(q,n) = {f(d.lexical_term)}" + (
                " — without them it would be rejected." if d.margin <= d.lexical_term else "."
            )
    elif d.blocked_by == "relevance":
        with_words = f" plus μ·lex(q,n) = {f(d.lexical_term)}" if d.mu else ""
        sentence = (
            f"Rejected by relevance: even with no penalty, cos(q,n) = {f(d.cos_qn)}"
            f"{with_words} does not clear the bar {f(d.bar)}."
        )
    else:
        sentence = (
            f"Rejected by the boundary penalty: cos(q,n) = {f(d.cos_qn)} clears the bar "
            f"{f(d.bar)}, but λ·b = {f(d.lam * d.penalty)} pulls S down to {f(d.score)}. "
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


def edge_notes(sel: Selection, n_chunks: int, doc_of: np.ndarray) -> list[tuple[str, str]]:
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
