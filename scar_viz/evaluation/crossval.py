"""Every candidate of the verdict, cross-validated: one out-of-fold result per query
(docs/method.md §9).

A candidate is a retriever × an expansion × a k (1 … 10):

- ``topk`` (no expansion), ``window1`` (window ±1), SCAR at presets A and B: nothing to tune;
- ``scar``: SCAR with (λ, τ) — and μ when the user enables it — tuned over the sweep's grid;
- ``learned``: the learned gate, fitted on the training queries in each of its
  :func:`gate_shapes` (the five features and the lexical ones at the run's radius, and the
  lexical gate to radius 2), the shape and p tuned over :data:`VERDICT_PS`.

For every fold of every repeat (:mod:`scar_viz.evaluation.folds`) what is tuned is tuned on
the other folds' queries alone, by the verdict's own rule at the budget: the most mean recall
among the settings whose mean tokens stay within it (ties: fewer tokens, then the first in grid
order; when none fits, the fewest tokens). The budget on a training set is the user's, or the
reference's mean tokens on those queries. Each held-out query is then read at its fold's
setting; its figures are the mean over the repeats. The setting a candidate reports (and
*Apply* sets, ``--save`` writes) is the same rule applied on all the queries, the gate refitted
on all of them.

Nothing is evaluated query by query: for each (retriever, k) the candidates are listed once
(:func:`~scar_viz.scoring.learned.features.build_table`), every grid point's per-query recall,
chunks and tokens come from the sweep's machinery (:func:`~scar_viz.scoring.sweep.
query_outcomes`), the gates of all folds are fitted at once
(:func:`~scar_viz.scoring.learned.fit.fit_folds`), and the folds' choices are array reductions.
Tokens are o200k_base tokens of the assembled context, summed chunk by chunk
(:class:`~scar_viz.policies.context.TokenCosts`): the counts ``eval`` gives.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from scar_viz.common.errors import SettingsError
from scar_viz.evaluation.folds import Folds
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.learned import query_lex, ran_on
from scar_viz.evaluation.run import batch_sims
from scar_viz.evaluation.settings import ChosenSettings
from scar_viz.pipeline import PreparedDoc
from scar_viz.policies.context import TokenCosts, token_costs
from scar_viz.retrieval import RETRIEVERS, Retriever
from scar_viz.scoring.learned.features import (
    ALL_FEATURES,
    FEATURE_SETS,
    CandidateTable,
    build_table,
)
from scar_viz.scoring.learned.features import gate_features as feature_names
from scar_viz.scoring.learned.fit import DEFAULT_L2, fit_folds
from scar_viz.scoring.learned.model import LearnedGate, threshold_logit
from scar_viz.scoring.learned.p_curve import DEFAULT_PS
from scar_viz.scoring.params import DEFAULT_RADIUS, PRESETS, GateParams
from scar_viz.scoring.sweep import (
    LAMS,
    TAUS,
    Candidates,
    CandidateSlots,
    admitted_at,
    query_outcomes,
    threshold_outcomes,
)

EXPANSIONS = ("topk", "window1", "scar", "preset A", "preset B", "learned")
"""The expansions, in the order candidates are listed."""
POLICY_OF = {
    "topk": "topk",
    "window1": "window1",
    "scar": "scar",
    "preset A": "scar",
    "preset B": "scar",
    "learned": "learned",
}
"""Each expansion's policy name, as in ``eval``."""
TUNED = ("scar", "learned")
WIDE_RADIUS = 2
"""The radius of the learned gate's wider shape (:func:`gate_shapes`)."""
VERDICT_PS = tuple(sorted({round(float(p), 3) for p in DEFAULT_PS if round(float(p), 3) >= 0.001}))
"""The learned gate's p grid: :data:`~scar_viz.scoring.learned.p_curve.DEFAULT_PS` on the
p slider's 0.001 steps, so the p *Apply* sets is the p that was tuned."""

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Candidate:
    """One candidate's out-of-fold figures and the setting it reports.

    ``recall``, ``chunks`` and ``tokens`` are (Q,) per-query means over the repeats, each query
    read where it was held out. ``lam``/``tau``/``mu`` (SCAR), ``p``/``features`` (learned)
    are None where they do not apply; for a tuned candidate they are the setting tuned on all
    queries, and ``fold_settings`` lists what each training set chose. ``gate`` is the learned
    gate fitted on all queries. ``radius`` is the r it runs to: 1 for top-k and window ±1,
    the run's for SCAR, the chosen shape's for the learned gate (:func:`gate_shapes`).
    """

    retriever: str
    expansion: str
    k: int
    lam: float | None
    tau: float | None
    mu: float | None
    p: float | None
    features: str | None
    recall: np.ndarray = field(repr=False)
    chunks: np.ndarray = field(repr=False)
    tokens: np.ndarray = field(repr=False)
    fold_settings: tuple[tuple[Any, ...], ...] = field(default=(), repr=False)
    gate: LearnedGate | None = field(default=None, repr=False, compare=False)
    nested_recall: np.ndarray | None = field(default=None, repr=False, compare=False)
    """(R, K, Q) the nested choice's figures (docs/method.md §9): for outer fold f of repeat
    r, query q's recall where fold f's training set was split again (q held out by its inner
    fold), or its out-of-fold recall of repeat r when fold f holds q; NaN across an outer
    fold where the candidate could not be fitted on an inner training set. None when K < 3."""
    nested_tokens: np.ndarray | None = field(default=None, repr=False, compare=False)
    """(R, K, Q) tokens, as :attr:`nested_recall`."""
    radius: int = DEFAULT_RADIUS

    @property
    def policy(self) -> str:
        """``topk``, ``window1``, ``scar`` or ``learned`` (``eval``'s names)."""
        return POLICY_OF[self.expansion]

    @property
    def tuned(self) -> bool:
        return self.expansion in TUNED

    def setting(
        self, k_rrf: float, chosen_on: Mapping[str, object] | None = None
    ) -> ChosenSettings:
        """What this candidate runs, as a settings file holds it (``chosen_on``: what it was
        chosen on)."""
        return ChosenSettings(
            *(self.retriever, self.policy, self.k, self.radius, self.lam, self.tau, self.mu),
            *(self.p, self.gate, k_rrf, dict(chosen_on or {})),
        )

    @property
    def option(self) -> tuple[str, str]:
        """(retriever, expansion): what the user picks besides k."""
        return self.retriever, self.expansion

    @property
    def mean_recall(self) -> float:
        return float(self.recall.mean())

    @property
    def mean_chunks(self) -> float:
        return float(self.chunks.mean())

    @property
    def mean_tokens(self) -> float:
        return float(self.tokens.mean())

    def setting_json(self) -> dict[str, object]:
        """The retriever, policy, k and setting: the head of its ``recommend --json`` entry."""
        return {
            "retriever": self.retriever,
            "policy": self.policy,
            "k": self.k,
            "lam": self.lam,
            "tau": self.tau,
            "mu": self.mu,
            "p": self.p,
            "radius": self.radius,
        }


@dataclass(frozen=True)
class CrossValidation:
    """Every candidate (in :data:`EXPANSIONS` order within each retriever and k), which one is
    the reference, the folds, the queries' ids (in the order figures are given), the radius
    of SCAR and the learned gate, the (retriever, k) where the learned gate could not be
    fitted, and what they ran on."""

    candidates: tuple[Candidate, ...]
    reference: int
    folds: Folds
    ids: tuple[str, ...]
    radius: int = DEFAULT_RADIUS
    left_out: tuple[tuple[str, int], ...] = ()
    meta: dict[str, object] = field(default_factory=dict, compare=False)
    """The document, model, chunking and prepending the candidates ran on."""


def _chooser(recall: np.ndarray, tokens: np.ndarray, budget: np.ndarray) -> np.ndarray:
    """(F,) index of the chosen setting for each row of ``recall``/``tokens`` (F, G): the most
    recall within ``budget`` (F,), ties fewer tokens then the lower index; the fewest tokens
    (ties more recall) where nothing fits."""
    out = np.empty(recall.shape[0], dtype=np.int64)
    order = np.arange(recall.shape[1])
    for f in range(recall.shape[0]):
        r, t = np.round(recall[f], 12), np.round(tokens[f], 9)
        fits = t <= budget[f] + 1e-9
        if fits.any():
            best = np.lexsort((order, t, -np.where(fits, r, -np.inf)))
        else:
            best = np.lexsort((order, -r, t))
        out[f] = int(best[0])
    return out


def _as_candidates(table: CandidateTable) -> Candidates:
    slots = {f.name: getattr(table, f.name) for f in fields(CandidateSlots)}
    x = table.features
    lex = x[:, ALL_FEATURES.index("lex_qn")]
    return Candidates(
        **slots,
        cos_qn=x[:, 0],
        cos_qc=x[:, 1],
        penalty=1.0 - x[:, 2],
        lex_qn=None if np.isnan(lex).any() else lex,
    )


@dataclass(frozen=True)
class _Setup:
    """What every (retriever, k) step shares."""

    prep: PreparedDoc
    sims: np.ndarray
    golds: list[tuple[int, ...]]
    lexical: list | None
    costs: TokenCosts
    training: np.ndarray  # (F+I+1, Q): the training folds, the inner ones, then all queries
    held: np.ndarray  # (R, Q): each query's held-out row of ``training``
    nested: np.ndarray | None  # (R, K, Q): Folds.nested_row (None when K < 3)
    n_outer: int  # F = R·K, the training folds' rows
    budget: np.ndarray  # (F+1,)
    radius: int
    mus: tuple[float, ...]
    l2: float


def _train_means(values: np.ndarray, training: np.ndarray) -> np.ndarray:
    """(F+1, G) means of ``values`` (G, Q) over each row's training queries."""
    w = training / training.sum(axis=1, keepdims=True)
    return w @ values.T


def _held_out(values: np.ndarray, pick: np.ndarray, held: np.ndarray) -> np.ndarray:
    """(Q,): each query's value (``values`` (G, Q)) at its held-out fold's pick, averaged over
    the repeats."""
    q = np.arange(values.shape[1])
    return values[pick[held], q[None, :]].mean(axis=0)


def _nested(s: _Setup, values: np.ndarray, pick: np.ndarray | None = None) -> np.ndarray | None:
    """(R, K, Q) ``values`` read where :attr:`Candidate.nested_recall` says: ``values`` (Q,)
    for a fixed candidate, (G, Q) with ``pick`` (rows,) for a tuned one."""
    if s.nested is None:
        return None
    if pick is None:
        return np.broadcast_to(values, s.nested.shape)
    return values[pick[s.nested], np.arange(values.shape[1])]


def _fixed(
    s: _Setup, retriever: str, expansion: str, k: int, cands: Candidates, admitted: np.ndarray
) -> Candidate:
    chunks, recall, tokens = query_outcomes(cands, admitted, s.costs)
    lam = tau = mu = None
    if expansion.startswith("preset"):
        preset = PRESETS[expansion[-1]]
        lam, tau, mu = float(preset["lam"]), float(preset["tau"]), 0.0
    return Candidate(
        retriever,
        expansion,
        k,
        lam,
        tau,
        mu,
        None,
        None,
        recall[0],
        chunks[0],
        tokens[0],
        nested_recall=_nested(s, recall[0]),
        nested_tokens=_nested(s, tokens[0]),
        radius=s.radius if expansion.startswith("preset") else 1,
    )


def _scar_tuned(s: _Setup, retriever: str, k: int, cands: Candidates) -> Candidate:
    grid = [(mu, lam) for mu in s.mus for lam in LAMS]
    shape = (len(grid) * len(TAUS), cands.n_queries)
    recall, chunks, tokens = np.empty(shape), np.empty(shape), np.empty(shape)
    for i, (mu, lam) in enumerate(grid):
        rows = slice(i * len(TAUS), (i + 1) * len(TAUS))
        admitted = admitted_at(cands, float(lam), TAUS, "relative", float(mu))
        chunks[rows], recall[rows], tokens[rows] = query_outcomes(cands, admitted, s.costs)
    pick = _chooser(_train_means(recall, s.training), _train_means(tokens, s.training), s.budget)

    def setting(g: int) -> tuple[float, float, float]:
        mu, lam = grid[g // len(TAUS)]
        return float(lam), float(TAUS[g % len(TAUS)]), float(mu)

    lam, tau, mu = setting(int(pick[-1]))
    return Candidate(
        retriever,
        "scar",
        k,
        lam,
        tau,
        mu,
        None,
        None,
        _held_out(recall, pick, s.held),
        _held_out(chunks, pick, s.held),
        _held_out(tokens, pick, s.held),
        tuple(setting(int(g)) for g in pick[: s.n_outer]),
        nested_recall=_nested(s, recall, pick),
        nested_tokens=_nested(s, tokens, pick),
        radius=s.radius,
    )


def gate_shapes(radius: int) -> tuple[tuple[str, int], ...]:
    """The learned gate's (feature set, radius) the verdict tunes over: each feature set at the
    run's ``radius``, and below :data:`WIDE_RADIUS` the lexical gate to it, the neighbour two
    away a candidate where the one between is admitted (with the distance as a feature). On
    the development benchmark the wider gate was the only one within a point of window ±1 at
    ≤ 70 % of its tokens at every k with the hashing model, and at k ≤ 2 with the default
    model (docs/learned-gate.md, "Radius 2")."""
    shapes = tuple((f, radius) for f in FEATURE_SETS)
    return shapes + ((("lexical", WIDE_RADIUS),) if radius < WIDE_RADIUS else ())


def _learned(
    s: _Setup,
    retriever: str,
    k: int,
    tables: Callable[[int], CandidateTable],
    meta: dict[str, object],
) -> Candidate | None:
    """The learned gate at (retriever, k), its shape (:func:`gate_shapes`) and p tuned; None
    when a training set has no gold neighbour (or no other one) among its candidates; where
    only an inner training set of the nested choice has none, the gate is no choice in that
    outer fold (NaN figures there). ``tables(r)`` lists the candidates to radius r."""
    bars = np.array([threshold_logit(p) for p in VERDICT_PS])
    n_rows, n_p = s.training.shape[0], len(bars)
    shapes = gate_shapes(s.radius)
    per_shape = []
    failed = np.zeros(n_rows, dtype=bool)
    for features, radius in shapes:
        table = tables(radius)
        fit_rows = table.training_rows(radius)[None, :] & s.training[:, table.query]
        names = feature_names(features, radius)
        x = table.features[:, [ALL_FEATURES.index(f) for f in names]]
        fits = fit_folds(x, table.gold, fit_rows, s.l2)
        failed |= ~fits.ok
        if failed[: s.n_outer].any() or failed[-1]:
            return None
        scores = fits.scores(table.features, names)  # (rows, M)
        per_shape.append((names, fits, threshold_outcomes(table, scores, bars, s.costs)))
    # each shape's (chunks, recall, tokens), (rows, P, Q) each, every row's own gates; the
    # choice runs over the shapes' P settings side by side (column g: shape g // P), the big
    # arrays read in place (concatenating them was 3 s of a 17 s verdict)
    outcomes = [out for _, _, out in per_shape]
    w = s.training / s.training.sum(axis=1, keepdims=True)
    recall_means, token_means = (
        np.concatenate([np.einsum("fgq,fq->fg", o[i], w) for o in outcomes], axis=1) for i in (1, 2)
    )
    pick = _chooser(recall_means, token_means, s.budget)
    q = np.arange(s.training.shape[1])

    def at(i: int, rows: np.ndarray) -> np.ndarray:
        """Outcome ``i`` (0 chunks, 1 recall, 2 tokens) of each query at ``rows``' picks."""
        rows, queries = np.broadcast_arrays(rows, q)
        cols = pick[rows]
        out = np.empty(rows.shape)
        for j, o in enumerate(outcomes):
            mine = cols // n_p == j
            out[mine] = o[i][rows[mine], cols[mine] % n_p, queries[mine]]
        return out

    def held(i: int) -> np.ndarray:
        return at(i, s.held).mean(axis=0)

    def nested(i: int) -> np.ndarray | None:
        if s.nested is None:
            return None
        out = at(i, s.nested)
        out[failed[s.nested].any(axis=2)] = np.nan
        return out

    def setting(g: int) -> tuple[str, float, int]:
        features, radius = shapes[g // n_p]
        return features, VERDICT_PS[g % n_p], radius

    chosen = int(pick[-1])
    features, p, radius = setting(chosen)
    names, fits, _ = per_shape[chosen // n_p]
    fitted_on = {**meta, "k": k, "radius": radius, "n_queries": len(s.golds)}
    if features != "base":
        fitted_on["features"] = features
    return Candidate(
        retriever,
        "learned",
        k,
        None,
        None,
        None,
        p,
        features,
        held(1),
        held(0),
        held(2),
        tuple(setting(int(g)) for g in pick[: s.n_outer]),
        fits.gate(n_rows - 1, names, fitted_on),
        nested(1),
        nested(2),
        radius,
    )


def _step(
    s: _Setup,
    retriever: Retriever,
    rank: np.ndarray | None,
    k: int,
    expansions: Sequence[str],
    meta: dict[str, object],
) -> tuple[list[Candidate], bool]:
    """The candidates at (retriever, k); the flag says the learned gate was left out."""

    @functools.cache
    def table_to(radius: int) -> CandidateTable:
        return build_table(
            s.sims,
            s.prep.unit,
            s.golds,
            k,
            radius,
            doc_of=s.prep.doc_of,
            lexical=s.lexical,
            rank=rank,
        )

    table = table_to(s.radius)
    cands = _as_candidates(table)
    name, out, dropped = retriever.name, [], False
    m = len(table.query)
    for expansion in expansions:
        if expansion == "topk":
            out.append(_fixed(s, name, expansion, k, cands, np.zeros((1, m), dtype=bool)))
        elif expansion == "window1":
            window = (table.distance == 1) & ~table.is_retrieved
            out.append(_fixed(s, name, expansion, k, cands, window[None, :]))
        elif expansion.startswith("preset"):
            preset = PRESETS[expansion[-1]]
            admitted = admitted_at(cands, preset["lam"], np.array([preset["tau"]]))
            out.append(_fixed(s, name, expansion, k, cands, admitted))
        elif expansion == "scar":
            out.append(_scar_tuned(s, name, k, cands))
        elif expansion == "learned":
            learned = _learned(s, name, k, table_to, meta)
            if learned is None:
                dropped = True
            else:
                out.append(learned)
    return out, dropped


def cross_validate(
    run: LabelledRun,
    folds: Folds,
    *,
    reference: tuple[str, int],
    ks: Sequence[int],
    retrievers: Sequence[str] = RETRIEVERS,
    expansions: Sequence[str] = EXPANSIONS,
    budget: float | None = None,
    radius: int = DEFAULT_RADIUS,
    mus: Sequence[float] = (0.0,),
    l2: float = DEFAULT_L2,
    progress: Progress | None = None,
) -> CrossValidation:
    """Every candidate's out-of-fold figures on the run's queries (module docstring); the
    run's retriever gives the RRF constant of hybrid.

    Args:
        folds: the folds of the queries (:func:`~scar_viz.evaluation.folds.assign_folds`).
        reference: (retriever, k) of the reference, window ±1: always a candidate.
        ks: the k of every candidate.
        retrievers, expansions: the candidates' retrievers and expansions.
        budget: the token budget tuning aims at (None: the reference's mean tokens on each
            training set).
        radius: r of SCAR and the learned gate (window ±1 stays ±1).
        mus: the μ values tuned SCAR chooses from ((0,): the paper's gate).
        progress: ``progress(done, total)`` after each (retriever, k).

    Raises:
        SettingsError: for an unknown retriever or expansion, k < 1, r < 0 or μ < 0.
    """
    prep, queries, k_rrf = run.prep, run.queries, run.retriever.k_rrf
    n = len(queries)
    if folds.n_queries != n:
        raise SettingsError(f"Folds for {folds.n_queries} queries, but {n} queries.")
    unknown = [e for e in expansions if e not in EXPANSIONS]
    if unknown or not expansions:
        raise SettingsError(f"Unknown expansion(s) {unknown}; use {', '.join(EXPANSIONS)}.")
    ks = tuple(sorted({int(k) for k in ks}))
    ref_retriever, ref_k = reference[0], int(reference[1])
    if not ks:
        raise SettingsError("Give at least one k.")
    for mu in mus or (0.0,):
        GateParams(k=min(ks[0], ref_k), radius=int(radius), mu=mu)  # GateParams' one check
    order = [r for r in RETRIEVERS if r in set(retrievers) | {ref_retriever}]
    for r in (*retrievers, ref_retriever):
        Retriever(r, k_rrf)  # names an unknown retriever in one sentence
    block = batch_sims(prep.unit, run.vecs)
    sims = np.stack([block(qi) for qi in range(n)]) if n else np.zeros((0, len(prep.chunks)))
    questions = run.questions
    needs_lex = "learned" in expansions or any(mus)
    setup = _Setup(
        prep,
        sims,
        [tuple(q.gold) for q in queries],
        query_lex(prep, questions) if needs_lex else None,
        token_costs(prep.chunks),
        np.vstack([folds.training(), folds.inner_training(), np.ones((1, n), dtype=bool)]),
        folds.held_row(),
        folds.nested_row() if folds.nestable else None,
        folds.repeats * folds.k,
        np.zeros(0),
        max(1, int(radius)),
        tuple(float(m) for m in dict.fromkeys((0.0, *mus))),
        float(l2),
    )
    ranks = {
        r: None if r == "dense" else prep.ranking(Retriever(r, k_rrf), sims, questions)
        for r in order
    }
    ref_table = build_table(
        sims,
        prep.unit,
        setup.golds,
        ref_k,
        1,
        doc_of=prep.doc_of,
        lexical=None,
        rank=ranks[ref_retriever],
    )
    window = (ref_table.distance == 1) & ~ref_table.is_retrieved
    _, _, ref_tokens = query_outcomes(ref_table, window[None, :], setup.costs)
    budgets = (
        np.full(setup.training.shape[0], float(budget))
        if budget is not None
        else _train_means(ref_tokens, setup.training)[:, 0]
    )
    setup = replace(setup, budget=budgets)
    meta = ran_on(prep)
    steps = [(r, k) for r in order for k in sorted({*ks, *([ref_k] if r == ref_retriever else [])})]
    out: list[Candidate] = []
    left_out: list[tuple[str, int]] = []
    for i, (name, k) in enumerate(steps):
        wanted = [
            e
            for e in EXPANSIONS
            if (name in retrievers and k in ks and e in expansions)
            or (name == ref_retriever and k == ref_k and e == "window1")
        ]
        got, dropped = _step(setup, Retriever(name, k_rrf), ranks[name], k, wanted, meta)
        out.extend(got)
        if dropped:
            left_out.append((name, k))
        if progress:
            progress(i + 1, len(steps))
    ref = next(
        i for i, c in enumerate(out) if c.option == (ref_retriever, "window1") and c.k == ref_k
    )
    ids = tuple(q.id for q in queries)
    return CrossValidation(tuple(out), ref, folds, ids, setup.radius, tuple(left_out), meta)
