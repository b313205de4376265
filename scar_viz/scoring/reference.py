"""The whole SCAR gate in plain loops, on one screen (docs/method.md §2): a reference to read.

The app runs the same gate vectorised (:mod:`scar_viz.scoring.scar`, :mod:`~.walk`,
:mod:`scar_viz.common.edges`; for a grid at once :mod:`~.sweep`); tests/scoring/test_reference.py
holds all of them and the integrations equal to this on random inputs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def cos(a: Sequence[float], b: Sequence[float]) -> float:
    """cos(a, b) = a·b / (|a| |b|); 0 when either is the zero vector."""
    norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norms if norms else 0.0


def gate(q, chunks, k, lam, tau, r, mu=0.0, lex=None, *, doc_of, rank=None):
    """SCAR on query vector ``q`` and ``chunks`` (vectors in document order).

    The top ``k`` by ``rank`` (default cos(q, c); ties: the lower index) are retrieved. From
    each, in rank order, each side's neighbours n at distance 1 … r inside c's file
    (``doc_of[i]``, the file of chunk i; all zeros for one file) are judged until one is rejected:
    S = cos(q,n) − λ·b(c,n) (+ μ·lex[n]), b(c,n) = 1 − cos(c,n) clipped to [0, 2];
    admitted iff S > τ·cos(q,c); a retrieved neighbour is in already, and the walk goes on.

    Returns:
        (retrieved in rank order, selected = retrieved ∪ admitted sorted,
        decisions as (c, n, S, bar, outcome) in walk order).
    """
    sims = [cos(q, c) for c in chunks]
    by = sims if rank is None else rank
    retrieved = sorted(range(len(chunks)), key=lambda i: (-by[i], i))[:k]
    admitted: set[int] = set()
    decisions: list[tuple[int, int, float, float, str]] = []
    for c in retrieved:
        for step in (-1, 1):
            for d in range(1, r + 1):
                n = c + step * d
                if not (0 <= n < len(chunks) and doc_of[n] == doc_of[c]):
                    break  # the document's or the file's edge
                b = min(2.0, max(0.0, 1.0 - cos(chunks[c], chunks[n])))
                score = sims[n] - lam * b + (mu * lex[n] if mu else 0.0)
                bar = tau * sims[c]
                if n in retrieved:
                    outcome = "retrieved"
                else:
                    outcome = "admitted" if score > bar else "rejected"
                decisions.append((c, n, score, bar, outcome))
                if outcome == "rejected":
                    break
                if outcome == "admitted":
                    admitted.add(n)
    return retrieved, sorted(set(retrieved) | admitted), decisions
