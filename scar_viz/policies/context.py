"""The context a language model receives: chunks in document order, and its cost.

Its HTML view is :func:`scar_viz.charts.context.context_html`, with the other renderers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.tokens import count_tokens

SEPARATOR = "\n\n"


def context_text(chunks: Sequence[Chunk], ids: Sequence[int]) -> str:
    """The selected chunks' texts in document order, joined by a blank line."""
    return SEPARATOR.join(chunks[i].text for i in sorted(set(ids)))


@dataclass(frozen=True)
class ContextCost:
    chunks: int
    chars: int
    tokens: int


def context_cost(chunks: Sequence[Chunk], ids: Sequence[int]) -> ContextCost:
    text = context_text(chunks, ids)
    return ContextCost(len(set(ids)), len(text), count_tokens(text))


@dataclass(frozen=True)
class TokenCosts:
    """What each chunk adds to the tokens of a context, so that a selection's tokens are a sum.

    ``text[i]`` = tokens(c_i) and ``joint[i]`` = tokens(c_i + SEPARATOR) − tokens(c_i), the
    separator's tokens after c_i (0 or −1 when it merges with c_i's last characters, e.g.
    ".\\n\\n"). For a selection S with last (highest) chunk m:

        tokens(context_text(S)) = Σ_{i∈S} (text[i] + joint[i]) − joint[m]

    This is exact when each chunk of S after the first starts with neither whitespace nor "/"
    (o200k_base splits text into pieces before merging; a separator's piece then ends where the
    next chunk begins). Every built-in chunker strips whitespace at chunk edges; a chunk that
    starts with "/" may be off by one token. ``unsafe`` marks such chunks.
    """

    text: np.ndarray
    joint: np.ndarray
    unsafe: np.ndarray = field(repr=False)

    @property
    def added(self) -> np.ndarray:
        """(N,) text + joint: a chunk's tokens with the separator that follows it."""
        return self.text + self.joint

    def of(self, ids: Sequence[int]) -> int:
        """The tokens of the context of chunk ids ``ids`` (duplicates counted once)."""
        chosen = np.unique(np.asarray(list(ids), dtype=np.int64))
        if not len(chosen):
            return 0
        return int(self.added[chosen].sum() - self.joint[chosen[-1]])


def token_costs(chunks: Sequence[Chunk]) -> TokenCosts:
    """:class:`TokenCosts` of ``chunks`` (two counts a chunk)."""
    text = np.array([count_tokens(c.text) for c in chunks], dtype=np.int64)
    joint = np.array([count_tokens(c.text + SEPARATOR) for c in chunks], dtype=np.int64) - text
    unsafe = np.array([c.text[:1].isspace() or c.text[:1] == "/" for c in chunks], dtype=bool)
    return TokenCosts(text, joint, unsafe)


def saving(ours: float, theirs: float) -> float:
    """Relative saving of ``ours`` against ``theirs`` in percent (positive = fewer)."""
    return 0.0 if theirs == 0 else 100.0 * (theirs - ours) / theirs
