"""Similarities, boundary penalties and the SCAR gate (docs/method.md §2).

Notation as in the paper: q the query, c a retrieved chunk, n a candidate neighbour of c,
e_x the L2-normalised embedding of x, cos the cosine similarity.

    b(c, n) = 1 - cos(e_c, e_n)                  boundary penalty
    S(c, n) = cos(e_q, e_n) - λ · b(c, n)        expansion score
    admit n  iff  S(c, n) > τ · cos(e_q, e_c)    the gate (strict), bar = τ · cos(e_q, e_c)

With μ > 0 (this project's extension, docs/method.md §8) the score gains a lexical term,
S(c, n) = cos(e_q, e_n) − λ · b(c, n) + μ · lex(q, n), lex from :mod:`scar_viz.scoring.lexical`;
μ = 0 computes exactly the paper's S (the term is not added).

Candidates lie at distance d = 1 … r on each side of c; the chunk at distance d is a candidate
only if the one at distance d-1 on that side was admitted or is itself retrieved, and its
penalty is always taken against c. The context is the union of the retrieved chunks and the
admitted neighbours, in document order. The walk over candidates is
:func:`scar_viz.scoring.walk.walk_neighbours`, shared with the learned gate; SCAR is its judge
:func:`scar_judge`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic

import numpy as np

from scar_viz.common.edges import one_file, reach
from scar_viz.common.errors import SettingsError
from scar_viz.common.vectors import normalize
from scar_viz.scoring.lexical import QuestionLex
from scar_viz.scoring.params import DEFAULT_K, DEFAULT_PARAMS, PRESETS, GateParams  # noqa: F401
from scar_viz.scoring.walk import D, GateDecision, Judge, Neighbour, walk_neighbours


def query_similarities(query_vec: np.ndarray, chunk_vecs: np.ndarray) -> np.ndarray:
    """Returns s with s[i] = cos(e_q, e_{c_i}), shape (N,)."""
    return normalize(chunk_vecs) @ normalize(query_vec)


def pairwise_cos_sim(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Returns v with v[i] = cos(a[i], b[i]), shape (n,)."""
    return np.sum(normalize(a) * normalize(b), axis=-1)


def boundary_penalties(chunk_vecs: np.ndarray) -> np.ndarray:
    """Returns p with p[i] = b(c_i, c_{i+1}) = 1 - cos(e_{c_i}, e_{c_{i+1}}), shape (N-1,).

    Clipped to [0, 2], the range of 1 - cos, so rounding never makes a penalty negative.
    """
    vecs = np.asarray(chunk_vecs)
    if len(vecs) < 2:
        return np.zeros(0)
    return np.clip(1.0 - pairwise_cos_sim(vecs[:-1], vecs[1:]), 0.0, 2.0)


def top_k(sims: np.ndarray, k: int) -> list[int]:
    """Indices of the k highest similarities in rank order; ties go to the lower index.

    The same order as a stable sort of all N (``np.argsort(-sims, kind="stable")[:k]``), found
    in O(N) by a partition first: on a corpus of 50,000 chunks the full sort cost ~10 ms a call.
    """
    sims = np.asarray(sims)
    n = len(sims)
    k = max(0, min(int(k), n))
    if k == 0:
        return []
    if 4 * k >= n:
        return [int(i) for i in np.argsort(-sims, kind="stable")[:k]]
    neg = -sims
    bar = np.partition(neg, k - 1)[k - 1]  # the k-th best value
    above = np.flatnonzero(neg < bar)
    ties = np.flatnonzero(neg == bar)[: k - len(above)]  # lowest indices first
    pool = np.concatenate((above, ties))
    pool.sort()  # index order, so the stable sort below breaks ties by index
    return [int(i) for i in pool[np.argsort(neg[pool], kind="stable")]]


def window(retrieved: list[int], n_chunks: int, w: int, doc_of: np.ndarray) -> list[int]:
    """Static window: every chunk within ``w`` of a retrieved chunk, in document order, never
    past the edge of the retrieved chunk's file (``doc_of``, :mod:`scar_viz.common.edges`)."""
    keep: set[int] = set()
    for c in retrieved:
        lo, hi = reach(doc_of, n_chunks, c)
        keep.update(range(max(lo, c - w), min(hi, c + w + 1)))
    return sorted(keep)


@dataclass(frozen=True, kw_only=True)
class Decision(GateDecision):
    """SCAR's evaluation of one candidate (:class:`GateDecision`): S = cos(q,n) − λ·b(c,n)
    (+ μ·lex(q,n) when μ > 0) against the bar τ·cos(q,c). ``blocked_by`` is ``relevance`` when
    cos(q,n) (+ μ·lex(q,n)) alone is not above the bar, ``penalty`` when it clears the bar but
    λ·b(c,n) pulls S under.
    """

    cos_qn: float
    cos_qc: float
    penalty: float
    lam: float
    tau: float
    mu: float = 0.0
    lex_qn: float = 0.0

    @property
    def lexical_term(self) -> float:
        """μ·lex(q,n), 0 when μ = 0."""
        return self.mu * self.lex_qn if self.mu else 0.0

    def as_row(self) -> dict[str, object]:
        lexical = {"lex(q,n)": self.lex_qn, "μ·lex(q,n)": self.lexical_term} if self.mu else {}
        return {
            **self._where(),
            "cos(q,n)": self.cos_qn,
            "b(c,n)": self.penalty,
            **lexical,
            "S": self.score,
            "bar τ·cos(q,c)": self.bar,
            "margin": self.margin,
            "outcome": self.outcome,
            "blocked by": self.blocked_by,
        }


@dataclass(frozen=True)
class Selection(Generic[D]):
    """Result of :func:`scar_select`.

    ``retrieved`` is the top-k in rank order; ``selected`` the sorted unique union of retrieved
    and admitted chunks; ``admitted`` the neighbours added by the gate (sorted, not retrieved).
    """

    retrieved: list[int]
    selected: list[int]
    admitted: list[int]
    decisions: tuple[D, ...]
    sims: np.ndarray = field(repr=False)
    params: GateParams = DEFAULT_PARAMS

    @property
    def rejected(self) -> list[int]:
        """Candidates rejected by every gate that saw them (and not otherwise in the context)."""
        chosen = set(self.selected)
        return sorted({d.neighbour for d in self.decisions if d.outcome == "rejected"} - chosen)


def gate(cos_qn, cos_qc, penalty, lam, tau, mu=0.0, lex_qn=0.0):
    """The gate, on scalars or on arrays (numpy broadcasting): returns (S, bar, passes).

    S = cos_qn − lam·penalty (+ mu·lex_qn when mu ≠ 0), bar = tau·cos_qc, passes = S > bar
    (strict). Scalars give numpy scalars; the one formula serves :func:`select_from_sims`, the
    vectorised sweep and the lesson's rescaled decisions. With mu = 0 the lexical term is not
    computed at all, so the paper's gate is reproduced bit for bit.
    """
    score = np.subtract(cos_qn, np.multiply(lam, penalty))
    if np.any(mu):
        score = np.add(score, np.multiply(mu, lex_qn))
    bar = np.multiply(tau, cos_qc)
    return score, bar, np.greater(score, bar)


def scar_select(
    query_vec: np.ndarray, chunk_vecs: np.ndarray, params: GateParams
) -> Selection[Decision]:
    """SCAR selection over chunk embeddings (need not be normalised).

    Args:
        query_vec: shape (d,).
        chunk_vecs: shape (N, d), chunks in document order.
        params: k (clipped to N), λ, τ and r (the farthest neighbour on each side).

    Returns:
        A :class:`Selection` with one :class:`Decision` per candidate examined.
    """
    chunks = normalize(np.atleast_2d(np.asarray(chunk_vecs, dtype=np.float64)))
    query = normalize(np.asarray(query_vec, dtype=np.float64).reshape(-1))
    if chunks.shape[0] and chunks.shape[1] != query.shape[0]:
        raise SettingsError(
            f"Query has dimension {query.shape[0]} but chunks have dimension {chunks.shape[1]}."
        )
    sims = chunks @ query if len(chunks) else np.zeros(0)
    return select_from_sims(sims, chunks, params, doc_of=one_file(len(chunks)))


def scar_judge(
    sims: np.ndarray,
    unit_chunks: np.ndarray,
    lam: float,
    tau: float,
    mu: float = 0.0,
    lex: np.ndarray | None = None,
) -> Judge[Decision]:
    """SCAR's judge for :func:`~scar_viz.scoring.walk.walk_neighbours`: S(c, n) against
    τ·cos(q,c), with b(c, n) clipped to [0, 2]; a rejection is blocked by ``relevance`` or
    ``penalty`` (:class:`Decision`). With μ > 0, ``lex`` (N,) holds lex(q, x) per chunk.

    Raises:
        SettingsError: for μ > 0 without ``lex`` (μ ≥ 0 is :class:`GateParams`' check).
    """
    mu = float(mu)
    if mu and lex is None:
        raise SettingsError("μ > 0 needs the question's lexical evidence (the chunk texts).")

    def judge(cand: Neighbour) -> Decision:
        c, j = cand.chunk, cand.neighbour
        penalty = min(2.0, max(0.0, float(1.0 - unit_chunks[c] @ unit_chunks[j])))
        lex_qn = float(lex[j]) if mu and lex is not None else 0.0
        score, bar, passes = gate(float(sims[j]), float(sims[c]), penalty, lam, tau, mu, lex_qn)
        score, bar, passes = float(score), float(bar), bool(passes)
        relevance = float(sims[j]) + mu * lex_qn if mu else sims[j]
        blocked = "relevance" if relevance <= bar else "penalty"
        return Decision(
            **cand.verdict(score, bar, passes, blocked),
            cos_qn=float(sims[j]),
            cos_qc=float(sims[c]),
            penalty=penalty,
            lam=lam,
            tau=tau,
            mu=mu,
            lex_qn=lex_qn,
        )

    return judge


def select_from_sims(
    sims: np.ndarray,
    unit_chunks: np.ndarray,
    params: GateParams,
    doc_of: np.ndarray,
    lexical: QuestionLex | None = None,
    rank: np.ndarray | None = None,
) -> Selection[Decision]:
    """:func:`scar_select` given s[i] = cos(q, c_i) and unit-norm chunk vectors; ``doc_of``
    (the file of each chunk in a corpus) keeps every neighbour inside its chunk's file;
    ``lexical`` (the question's lexical evidence) is needed when ``params.mu`` > 0. ``rank``
    (N,) is what the top-k is taken by (the retriever's score, :mod:`scar_viz.retrieval`;
    None: ``sims``); the gate always uses ``sims``.

    Raises:
        SettingsError: for μ > 0 without ``lexical``.
    """
    retrieved = top_k(sims if rank is None else rank, params.k)
    lex = lexical.share if lexical is not None and params.mu else None
    judge = scar_judge(sims, unit_chunks, params.lam, params.tau, params.mu, lex)
    selected, admitted, decisions = walk_neighbours(
        retrieved, len(sims), params.radius, judge, doc_of
    )
    return Selection(
        retrieved=retrieved,
        selected=selected,
        admitted=admitted,
        decisions=decisions,
        sims=sims,
        params=params,
    )
