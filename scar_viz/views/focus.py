"""The Explorer at document scale: overview marks and the live gate's payload.

Two views of one query on one chunked, embedded document (docs/method.md §2):

- :func:`overview_data`: per chunk cos(q, c), retrieved rank and the gate's mark (retrieved,
  admitted, rejected), for a figure of the whole document at any size.
- :func:`gate_payload`: what the browser's gate panel needs (its focus rows: each retrieved
  chunk's c−r … c+r with the text at each cut), sent once per query, so λ and
  τ can move without a rerun. The panel decides with the same rule as
  :func:`scar_viz.scoring.scar.select_from_sims` on the *same float64 values* (sent exactly, as
  base64 of little-endian float64), so every decision agrees, ties included;
  :func:`payload_decide` is that rule on the payload, in Python, for tests.

    b(c, n) = 1 - cos(e_c, e_n)
    S(c, n) = cos(e_q, e_n) - λ · b(c, n)  (+ μ · lex(q, n) when μ > 0, docs/method.md §8)
    admit n  iff  S(c, n) > τ · cos(e_q, e_c)
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.common.edges import reach, same_file
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import Selection, top_k

KMAX = 20
"""The largest k the panel can show without new data from Python (the k slider's top)."""
RMAX = 3
"""The largest radius the panel can show without new data from Python (the r slider's top)."""
SNIPPET_CHARS = 150
"""Characters of text shown on each side of a boundary."""

STATUS_NONE, STATUS_RETRIEVED, STATUS_ADMITTED, STATUS_REJECTED = 0, 1, 2, 3


# --- overview ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Overview:
    """Whole-document data for one query and one gate setting.

    ``sims[i]`` = cos(q, c_i); ``rank[i]`` = 1-based retrieval rank (0 = not retrieved);
    ``status[i]`` one of ``STATUS_*`` (a chunk rejected by one gate and admitted by another,
    or retrieved, keeps the stronger mark).
    """

    sims: np.ndarray  # (N,) float64
    rank: np.ndarray  # (N,) int32
    status: np.ndarray  # (N,) int8

    @property
    def n(self) -> int:
        return len(self.sims)

    def members(self, status: int) -> np.ndarray:
        """Chunk indices with ``status``, ascending."""
        return np.flatnonzero(self.status == status)


def overview_data(sims: np.ndarray, selection: Selection) -> Overview:
    """Per-chunk cos(q, c), rank and mark from ``selection`` (of :func:`select_from_sims`)."""
    sims = np.asarray(sims, dtype=np.float64)
    n = len(sims)
    rank = np.zeros(n, dtype=np.int32)
    status = np.zeros(n, dtype=np.int8)
    status[np.asarray(selection.rejected, dtype=int)] = STATUS_REJECTED
    status[np.asarray(selection.admitted, dtype=int)] = STATUS_ADMITTED
    retrieved = np.asarray(selection.retrieved, dtype=int)
    status[retrieved] = STATUS_RETRIEVED
    rank[retrieved] = np.arange(1, len(retrieved) + 1)
    return Overview(sims, rank, status)


# --- focus rows --------------------------------------------------------------------------------


def tail_text(text: str, chars: int = SNIPPET_CHARS) -> str:
    """The last ``chars`` characters of ``text``, with "…" in front when cut."""
    return text if len(text) <= chars else "…" + text[-chars:]


def head_text(text: str, chars: int = SNIPPET_CHARS) -> str:
    """The first ``chars`` characters of ``text``, with "…" after when cut."""
    return text if len(text) <= chars else text[:chars] + "…"


def encode_f64(values: np.ndarray) -> str:
    """Base64 of the values as little-endian float64: exact, and about half the size of JSON."""
    return base64.b64encode(np.ascontiguousarray(values, dtype="<f8").tobytes()).decode("ascii")


def decode_f64(text: str) -> np.ndarray:
    """Inverse of :func:`encode_f64`."""
    return np.frombuffer(base64.b64decode(text), dtype="<f8").astype(np.float64)


def gate_cosine(unit: np.ndarray, c: int, j: int) -> float:
    """cos(c, j) exactly as :func:`scar_viz.scoring.scar.select_from_sims` computes it for b(c, j).

    The gate's penalty is ``min(2, max(0, 1 - cos))`` of this value; the browser applies the
    same clip to the same float64, so both sides get the same b bit for bit.
    """
    return float(unit[c] @ unit[j])


def gate_penalty(cos: float) -> float:
    """b = 1 - cos clipped to [0, 2], as in :func:`scar_viz.scoring.scar.select_from_sims`."""
    return min(2.0, max(0.0, float(1.0 - cos)))


def gate_payload(
    chunks: Sequence[Chunk],
    sims: np.ndarray,
    unit: np.ndarray,
    params: GateParams,
    *,
    kmax: int = KMAX,
    rmax: int = RMAX,
    snippet: int = SNIPPET_CHARS,
    focus: int | None = None,
    doc_of: np.ndarray,
    rank: np.ndarray | None = None,
    lex: np.ndarray | None = None,
) -> dict:
    """The data the browser's gate panel needs for one query (JSON-serialisable).

    Keys: ``n``; ``sims`` (all N cos(q, c_i), :func:`encode_f64`); ``order`` (the top
    ``kmax`` chunk indices in rank order, as :func:`scar_viz.scoring.scar.top_k`); ``ncos``
    (for each chunk in ``order``, ``[left, right]``: cos(c, c∓d) for d = 1 … rmax, exactly as
    the gate computes it, :func:`encode_f64`, NaN past a document edge); ``cells`` (index →
    ``[tail, head, section]`` of every chunk within rmax of ``order``: raw text, the panel
    sets it with ``textContent``); ``adj`` (index → b(i, i+1) for the same chunks, for the
    cuts' labels); and ``params``' ``k``, ``radius``, ``lam`` and ``tau`` (what the panel
    shows first; any object with those attributes will do); ``focus``, a chunk to show first
    (a click in the overview: its own row when it is not retrieved), or None; ``files`` maps
    each chunk in ``order`` and the focus to ``[first, last]``, its file's chunk range
    (``doc_of``, the file of each chunk; all zeros for one file): no neighbour is offered past it,
    ``ncos`` is NaN there, and the panel names its edges "document start"/"end" when the range
    is the whole document, "file start"/"end" otherwise. ``rank`` (N,), the retriever's scores
    (:mod:`scar_viz.retrieval`), orders ``order`` (None: ``sims``, dense); ``sims`` stay the
    gate's cosines. ``lex`` (N,), lex(q, c_i) of every chunk
    (:attr:`scar_viz.scoring.lexical.QuestionLex.share`), is sent as ``lex``
    (:func:`encode_f64`) so the panel can add SCAR's lexical term μ·lex(q,n) for any μ.

    Depends on the query only: λ, τ, k ≤ kmax and r ≤ rmax change nothing else, so the
    panel decides every setting in the browser. Size: 8·N bytes (as base64) plus about
    2·``snippet`` characters for each of at most kmax·(2·rmax + 1) chunks: ~45 kB for
    830 chunks, ~150 kB for 10,000.
    """
    sims = np.asarray(sims, dtype=np.float64)
    n = len(sims)
    order = top_k(sims if rank is None else rank, min(kmax, n))
    ncos = np.full((len(order), 2, rmax), np.nan)
    shown: set[int] = set()
    files: dict[str, list[int]] = {}
    for row, c in enumerate(order):
        lo, hi = reach(doc_of, n, c)
        files[str(c)] = [lo, hi - 1]
        for side, step in ((0, -1), (1, 1)):
            for d in range(1, rmax + 1):
                j = c + step * d
                if lo <= j < hi:
                    ncos[row, side, d - 1] = gate_cosine(unit, c, j)
        shown.update(range(max(lo, c - rmax), min(hi, c + rmax + 1)))
    if focus is not None and 0 <= focus < n:
        lo, hi = reach(doc_of, n, focus)
        files[str(focus)] = [lo, hi - 1]
        shown.update(range(max(lo, focus - rmax), min(hi, focus + rmax + 1)))
    else:
        focus = None
    cells = {}
    adj = {}
    for i in sorted(shown):
        text = chunks[i].text
        cells[str(i)] = [
            tail_text(text, snippet),
            head_text(text, snippet),
            chunks[i].section_label,
        ]
        if i + 1 < n and same_file(doc_of, i, i + 1):
            adj[str(i)] = gate_penalty(gate_cosine(unit, i, i + 1))
    extra: dict[str, object] = {}
    if lex is not None:
        lex = np.asarray(lex, dtype=np.float64)
        if lex.shape != sims.shape:
            raise ValueError(f"lex has shape {lex.shape}; the similarities have {sims.shape}.")
        extra["lex"] = encode_f64(lex)
    return {
        **extra,
        "n": n,
        "sims": encode_f64(sims),
        "order": [int(c) for c in order],
        "files": files,
        "rmax": int(rmax),
        "ncos": encode_f64(ncos.reshape(-1)),
        "cells": cells,
        "adj": adj,
        "k": int(min(params.k, len(order))),
        "radius": int(min(params.radius, rmax)),
        "lam": float(params.lam),
        "tau": float(params.tau),
        "focus": None if focus is None else int(focus),
    }


@dataclass(frozen=True)
class PayloadDecision:
    """One decision of :func:`payload_decide` (the fields the browser returns)."""

    chunk: int
    neighbour: int
    side: str
    distance: int
    score: float
    bar: float
    outcome: str


def payload_decide(
    payload: dict, lam: float, tau: float, k: int, radius: int, mu: float = 0.0
) -> list[PayloadDecision]:
    """The gate on a :func:`gate_payload`, step for step as the browser runs it.

    Same rule and order as :func:`scar_viz.scoring.scar.select_from_sims`: retrieved chunks in rank
    order, left side then right, outward from d = 1; a rejection stops that side; a retrieved
    neighbour is counted as ``retrieved`` and expansion goes on past it. With μ > 0 the score
    gains μ·lex(q,n), added after the penalty as the Python gate adds it (the payload must
    carry ``lex``).

    Raises:
        ValueError: for k or r beyond the payload, or μ > 0 on a payload without ``lex``.
    """
    n = payload["n"]
    sims = decode_f64(payload["sims"])
    rmax = payload["rmax"]
    order = payload["order"]
    if k > len(order) or radius > rmax:
        raise ValueError(f"The payload covers k ≤ {len(order)} and r ≤ {rmax}.")
    ncos = decode_f64(payload["ncos"]).reshape(len(order), 2, rmax)
    if mu and "lex" not in payload:
        raise ValueError("μ > 0 needs a payload with lex(q, ·).")
    lex = decode_f64(payload["lex"]) if mu else None
    retrieved = order[:k]
    is_retrieved = set(retrieved)
    out = []
    files = payload.get("files", {})
    for row, c in enumerate(retrieved):
        lo, hi = files.get(str(c), [0, n - 1])
        bar = tau * float(sims[c])
        for side, step, name in ((0, -1, "left"), (1, 1, "right")):
            for d in range(1, radius + 1):
                j = c + step * d
                if not lo <= j <= hi:
                    break
                score = float(sims[j]) - lam * gate_penalty(float(ncos[row, side, d - 1]))
                if lex is not None:
                    score = score + mu * float(lex[j])
                if j in is_retrieved:
                    outcome = "retrieved"
                elif score > bar:
                    outcome = "admitted"
                else:
                    outcome = "rejected"
                out.append(PayloadDecision(c, j, name, d, score, bar, outcome))
                if outcome == "rejected":
                    break
    return out
