"""What the Explorer shows for one question: the selection under a policy, its cost against
top-k and the static window, the contexts an answer is drawn from, and known evidence.

Pure functions over a prepared document's chunks and vectors; the page only draws what these
return (issue 12: no arithmetic in pages).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz import fmt
from scar_viz.chunking import Chunk
from scar_viz.context import ContextCost, context_cost, context_text
from scar_viz.errors import UserError
from scar_viz.gate import GateParams
from scar_viz.learned_gate import DEFAULT_P, LearnedGate, learned_select, resolve_gate
from scar_viz.llm import Reply
from scar_viz.queries import LabelledQuery
from scar_viz.scoring import Selection, select_from_sims, window
from scar_viz.tokens import TOKENIZER_NAME, count_tokens

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
    gate: LearnedGate | None = None,
    p: float = DEFAULT_P,
) -> Selection:
    """The selection ``policy`` ("SCAR" or "learned") makes for one query.

    The learned gate reads ``params.k`` and ``params.radius`` (λ and τ are unused) and admits
    a neighbour iff its probability exceeds ``p``; ``gate`` None means the shipped gate.
    """
    if policy == "learned":
        return learned_select(sims, unit, params.k, resolve_gate(gate), p, params.radius)
    if policy != "SCAR":
        raise UserError(f"Unknown gate policy '{policy}'; choose SCAR or learned.")
    return select_from_sims(sims, unit, params)


def window_name(radius: int) -> str:
    """The static window's label, e.g. "window ±1"."""
    return f"window ±{radius}"


def policy_chunks(sel: Selection, n_chunks: int, policy: str) -> dict[str, list[int]]:
    """Chunk ids each compared policy sends: top-k, window ±r and ``policy``'s selection."""
    radius = sel.params.radius
    return {
        "top-k": list(sel.retrieved),
        window_name(radius): window(sel.retrieved, n_chunks, radius),
        policy: list(sel.selected),
    }


def contexts(chunks: Sequence[Chunk], sel: Selection, policy: str) -> dict[str, str]:
    """The context text of top-k, window ±r and ``policy`` (the Explorer's context view)."""
    return {
        name: context_text(chunks, ids)
        for name, ids in policy_chunks(sel, len(chunks), policy).items()
    }


@dataclass(frozen=True)
class Summary:
    """The cost of ``policy``'s context against top-k and the static window.

    ``costs`` maps top-k, window ±r and the policy to their :class:`ContextCost`;
    ``chunk_delta`` and ``token_delta`` are the policy's change against the window, written
    with :func:`scar_viz.fmt.change` ("−30% vs window", never "-0%").
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
        """One sentence: the tokenizer, the change against the window and against top-k."""
        top = self.costs["top-k"]
        return (
            f"Tokens: {TOKENIZER_NAME} over the chunks joined in document order. "
            f"{self.policy} sends {fmt.change(self.ours.tokens, self.base.tokens)} of the "
            f"window's tokens and {fmt.change(self.ours.tokens, top.tokens)} against top-k's."
        )


def summarise(chunks: Sequence[Chunk], sel: Selection, policy: str = "SCAR") -> Summary:
    """The :class:`Summary` of ``sel`` (made by ``policy``) on ``chunks``."""
    sent = policy_chunks(sel, len(chunks), policy)
    costs = {name: context_cost(chunks, ids) for name, ids in sent.items()}
    return Summary(policy, window_name(sel.params.radius), costs)


def chunk_span(chunks: Sequence[Chunk], ids: Sequence[int]) -> tuple[int, int]:
    """The character span from the first picked chunk's start to the last one's end.

    Raises:
        UserError: when no chunk is picked.
    """
    if not ids:
        raise UserError("Pick at least one chunk that holds the answer.")
    picked = [chunks[i] for i in ids]
    return min(c.start for c in picked), max(c.end for c in picked)


def known_evidence(queries: Sequence[LabelledQuery], question: str) -> tuple[str, ...]:
    """Evidence texts of ``question`` in a labelled set (matched on its words), else ()."""
    wanted = " ".join(question.split()).casefold()
    for q in queries:
        if " ".join(q.query.split()).casefold() == wanted:
            return tuple(e.text for e in q.evidence)
    return ()


def answer_rows(
    contexts: Mapping[str, str], replies: Mapping[str, Reply], against: str
) -> list[dict[str, object]]:
    """The answer check's table: per answered policy its context's tokens, their change
    against ``against``'s, and the tokens the call spent (prompt + completion; a reply from
    the disk cache reports the stored call's)."""
    base = count_tokens(contexts[against]) if against in contexts else 0
    rows = []
    for name, reply in replies.items():
        tokens = count_tokens(contexts[name])
        rows.append(
            {
                "policy": name,
                "context tokens": tokens,
                f"vs {against}": fmt.change(tokens, base) if name != against else fmt.EMPTY_CELL,
                "tokens spent": reply.prompt_tokens + reply.completion_tokens,
                "from cache": "yes" if reply.cached else "no",
            }
        )
    return rows
