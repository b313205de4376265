"""Learn, step 3: predict-then-reveal rounds picked from the document's real decisions, and
their scoring (each round's prediction kept and scored once).

A round is one question at one (λ, τ) setting: the student ticks the neighbours they expect the
gate to admit, then reveals. Each box shows what the gate reads: cos(q,n), the penalty
b = 1 − cos(c,n) and the bar τ·cos(q,c), so S = cos(q,n) − λ·b can be worked out and compared.
:func:`pick_rounds` searches the labelled questions × a grid of round-number settings for four
rounds, each on its own question and its own chunk pair, whose answers differ:

- ``warm-up``: the lesson question at preset A (docs/method.md §2);
- ``penalty``: the penalty blocks a relevant neighbour: cos(q,n) > bar but S ≤ bar;
- ``low-bar``: a low bar admits a weak neighbour: S > bar although cos(q,n) < ½·cos(q,c)
  and n holds none of the question's evidence;
- ``tau``: τ, not λ, decides: cos(q,n) ≤ bar, so no λ ≥ 0 admits n, while a lower τ on the
  grid does.

Every round can be worked out from what its boxes show: each candidate's numbers are printed
with :data:`SHOWN_DIGITS` decimals, S worked out from them falls on the same side of the
printed bar as the gate's own S, and the gate's margin |S − bar| is at least
:data:`MIN_MARGIN` (:func:`decidable`); a setting with a candidate closer than that is never
picked (the warm-up takes the setting nearest preset A where this holds).

:class:`Answers` records predictions; :func:`score_rounds` scores every revealed round once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from scar_viz.common.edges import one_file
from scar_viz.common.fmt import chunk_list, decides
from scar_viz.queries.gold import GoldQuery
from scar_viz.scoring.params import DEFAULT_K, PRESETS, GateParams
from scar_viz.scoring.scar import Decision, Selection, normalize, select_from_sims

ROUND_LAMS: tuple[float, ...] = (0.0, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0)
"""λ values a round may use (round numbers a student can reason with)."""
ROUND_TAUS: tuple[float, ...] = (0.0, 0.1, 0.3, 0.5, 0.8, 1.0, 1.2)
"""τ values a round may use."""
KINDS = ("warm-up", "penalty", "low-bar", "tau")
WEAK = 0.5
"""A neighbour is weak when cos(q,n) < WEAK · cos(q,c)."""
SHOWN_DIGITS = 3
"""Decimals of the numbers a candidate's box shows (:func:`candidate_label`)."""
MIN_MARGIN = 0.01
"""The smallest |S − bar| of a candidate in a round: nearer the bar, rounding the printed
numbers could tip the comparison a student works out."""


@dataclass(frozen=True)
class RoundQuestion:
    """A labelled question: its unit query vector and gold chunks under the current chunking."""

    id: str
    query: str
    vector: np.ndarray = field(repr=False)
    gold: tuple[int, ...] = ()


@dataclass(frozen=True)
class LessonRound:
    """One round: ``question`` at (λ, τ); ``candidates`` are the neighbours the gate decides on,
    ``admitted`` the right answer; ``focus`` the decision the round is about and ``reason``
    the sentence that explains it (shown after the reveal)."""

    kind: str
    question_id: str
    query: str
    lam: float
    tau: float
    k: int
    candidates: tuple[int, ...]
    admitted: tuple[int, ...]
    focus: Decision | None
    reason: str


@dataclass(frozen=True)
class RoundScore:
    correct: int
    total: int
    false_admits: tuple[int, ...]  # predicted admitted, but rejected
    missed: tuple[int, ...]  # admitted, but not predicted

    @property
    def fraction(self) -> float:
        return self.correct / self.total if self.total else 1.0


@dataclass(frozen=True)
class LessonScore:
    """Per-round scores (None for a round not yet revealed) and the total over revealed rounds."""

    rounds: tuple[RoundScore | None, ...]
    correct: int
    total: int

    @property
    def revealed(self) -> int:
        return sum(s is not None for s in self.rounds)


@dataclass(frozen=True)
class Answers:
    """The student's predictions, round index -> ticked chunks, frozen once revealed.

    ``draft`` holds the ticks of rounds not yet revealed; ``revealed`` the predictions that
    were scored. Revealing a round again, or going back to it, never changes its prediction.
    """

    draft: Mapping[int, frozenset[int]] = field(default_factory=dict)
    revealed: Mapping[int, frozenset[int]] = field(default_factory=dict)

    def tick(self, index: int, predicted: set[int] | frozenset[int]) -> Answers:
        """Record the ticks of round ``index``; ignored once the round is revealed."""
        if index in self.revealed:
            return self
        return replace(self, draft={**self.draft, index: frozenset(predicted)})

    def reveal(self, index: int, predicted: set[int] | frozenset[int] | None = None) -> Answers:
        """Freeze round ``index``'s prediction (``predicted``, else its draft); once only."""
        if index in self.revealed:
            return self
        chosen = frozenset(self.draft.get(index, ()) if predicted is None else predicted)
        return replace(self, revealed={**self.revealed, index: chosen})

    def prediction(self, index: int) -> frozenset[int]:
        """What round ``index`` shows as ticked: the frozen prediction, else the draft."""
        return self.revealed.get(index, self.draft.get(index, frozenset()))


def score_round(rnd: LessonRound, predicted: set[int] | frozenset[int]) -> RoundScore:
    """One point per candidate whose admit/reject the student got right."""
    truth, pool = set(rnd.admitted), set(rnd.candidates)
    guess = set(predicted) & pool
    return RoundScore(
        sum((c in guess) == (c in truth) for c in pool),
        len(pool),
        tuple(sorted(guess - truth)),
        tuple(sorted(truth - guess)),
    )


def score_rounds(rounds: Sequence[LessonRound], answers: Answers) -> LessonScore:
    """Score each revealed round once, from its frozen prediction; the total sums them."""
    scores = tuple(
        score_round(r, answers.revealed[i]) if i in answers.revealed else None
        for i, r in enumerate(rounds)
    )
    done = [s for s in scores if s is not None]
    return LessonScore(scores, sum(s.correct for s in done), sum(s.total for s in done))


# --- picking rounds from the document's decisions -------------------------------------------


def decidable(d: Decision, digits: int = SHOWN_DIGITS, margin: float = MIN_MARGIN) -> bool:
    """Whether a student can decide ``d`` from its box: S worked out from the printed
    cos(q,n) and b (``digits`` decimals) at the round's λ lands on the gate's side of the
    printed bar, and the gate's own margin is at least ``margin``."""
    worked = round(d.cos_qn, digits) - d.lam * round(d.penalty, digits)
    return abs(d.margin) >= margin and decides(d.passes, worked, d.bar, digits)


def shown_decisions(sel: Selection) -> dict[int, Decision]:
    """The decision each candidate neighbour's box shows (document order): of a neighbour
    between two retrieved chunks, the admitting one if any, else the one with the higher
    score (the one that counts)."""
    best: dict[int, Decision] = {}
    for d in sel.decisions:
        if d.outcome == "retrieved":
            continue
        old = best.get(d.neighbour)
        if old is None or (d.passes, d.score) > (old.passes, old.score):
            best[d.neighbour] = d
    return dict(sorted(best.items()))


def round_decidable(sel: Selection) -> bool:
    """Whether every candidate of ``sel`` can be decided from its box (:func:`decidable`)."""
    return all(decidable(d) for d in shown_decisions(sel).values())


def _candidates(sel: Selection) -> tuple[int, ...]:
    return tuple(sorted({d.neighbour for d in sel.decisions if d.outcome != "retrieved"}))


def _round(kind: str, q: RoundQuestion, sel: Selection, k: int, focus, reason: str) -> LessonRound:
    return LessonRound(
        kind,
        q.id,
        q.query,
        sel.params.lam,
        sel.params.tau,
        k,
        _candidates(sel),
        tuple(sel.admitted),
        focus,
        reason,
    )


def _penalty_focus(d: Decision, gold: set[int]) -> bool:
    return d.outcome == "rejected" and d.cos_qn > d.bar >= d.score and d.neighbour in gold


def _weak_focus(d: Decision, gold: set[int]) -> bool:
    return (
        d.outcome == "admitted"
        and d.neighbour not in gold
        and d.cos_qn < WEAK * d.cos_qc
        and d.score > d.bar
    )


def _tau_focus(d: Decision, lower: float) -> bool:
    return (
        d.outcome == "rejected"
        and d.cos_qn <= d.bar
        and d.cos_qn - d.lam * d.penalty > lower * d.cos_qc
    )


def _reason(kind: str, d: Decision, lower: float = 0.0) -> str:
    c, n = d.chunk, d.neighbour
    if kind == "penalty":
        return (
            f"Chunk {n} holds part of the answer and cos(q,n) = {d.cos_qn:.3f} clears the bar "
            f"{d.bar:.3f} on its own, but the boundary penalty λ·b = {d.lam:g} × {d.penalty:.3f} "
            f"pulls S down to {d.score:.3f} ≤ {d.bar:.3f}: the penalty blocks it."
        )
    if kind == "low-bar":
        return (
            f"Chunk {n} is weak (cos(q,n) = {d.cos_qn:.3f}, under half of chunk {c}'s "
            f"{d.cos_qc:.3f}) and holds none of the answer, yet S = {d.score:.3f} clears the "
            f"low bar τ·cos(q,c) = {d.tau:g} × {d.cos_qc:.3f} = {d.bar:.3f}: it is admitted."
        )
    if kind == "tau":
        return (
            f"Chunk {n}: cos(q,n) = {d.cos_qn:.3f} ≤ bar {d.bar:.3f}, so no penalty weight λ ≥ 0 "
            f"could admit it; at τ = {lower:g} the bar drops to {lower * d.cos_qc:.3f} and "
            f"S = {d.score:.3f} clears it. τ decides, not λ."
        )
    verdict = "admitted" if d.passes else "rejected"
    return (
        f"Chunk {n} next to chunk {c}: S = {d.score:.3f} against the bar {d.bar:.3f}, "
        f"so it is {verdict}."
    )


def _scan(q: RoundQuestion, unit: np.ndarray, k: int, lams: Sequence[float], taus: Sequence[float]):
    sims = unit @ q.vector
    for lam, tau in _grid(lams, taus):
        yield select_from_sims(sims, unit, GateParams(k, lam, tau, 1), doc_of=one_file(len(unit)))


def _grid(
    lams: Sequence[float], taus: Sequence[float], presets: Sequence[str] = tuple(PRESETS)
) -> list[tuple[float, float]]:
    """Grid settings, nearest one of ``presets`` first (ties: lower λ, then lower τ)."""
    points = [(PRESETS[p]["lam"], PRESETS[p]["tau"]) for p in presets]

    def key(point: tuple[float, float]) -> tuple[float, float, float]:
        lam, tau = point
        return (min(abs(lam - a) + abs(tau - b) for a, b in points), lam, tau)

    return sorted(((float(a), float(b)) for a in lams for b in taus), key=key)


def _find(kind: str, q: RoundQuestion, unit, k, lams, taus, taken, pairs) -> LessonRound | None:
    gold = set(q.gold)
    for sel in _scan(q, unit, k, lams, taus):
        answer = tuple(sel.admitted)
        if answer in taken or not round_decidable(sel):
            continue
        for d in sel.decisions:
            if (d.chunk, d.neighbour) in pairs:
                continue
            if kind == "penalty" and _penalty_focus(d, gold):
                return _round(kind, q, sel, k, d, _reason(kind, d))
            if kind == "low-bar" and _weak_focus(d, gold):
                return _round(kind, q, sel, k, d, _reason(kind, d))
            if kind == "tau":
                lower = [t for t in taus if t < sel.params.tau and _tau_focus(d, t)]
                if lower:
                    return _round(kind, q, sel, k, d, _reason(kind, d, max(lower)))
    return None


def pick_rounds(
    unit: np.ndarray,
    questions: Sequence[RoundQuestion],
    *,
    lesson_id: str | None = None,
    k: int = DEFAULT_K,
    lams: Sequence[float] = ROUND_LAMS,
    taus: Sequence[float] = ROUND_TAUS,
) -> tuple[LessonRound, ...]:
    """A warm-up round and up to three rounds on other questions and chunk pairs, with
    different answers (see the module docstring).

    Args:
        unit: (N, d) unit-norm chunk vectors, in document order (``PreparedDoc.unit``).
        questions: the candidate questions with unit vectors and gold chunks; searched in
            order, the lesson question (``lesson_id``, else the first) first.
        k: chunks the retriever returns; r is 1.

    Returns:
        The rounds in order warm-up, penalty, low-bar, tau; each on a question no earlier
        round used and about a (c, n) pair no earlier round was about, while some question
        shows the kind (else a question is reused); a kind that no question and grid setting
        shows is left out. Deterministic for the same inputs.
    """
    if not questions:
        return ()
    first = next((q for q in questions if q.id == lesson_id), questions[0])
    ordered = [first, *(q for q in questions if q is not first)]
    sims = unit @ first.vector
    warm_sel = _warm_up(sims, unit, k, lams, taus)
    pool = [d for d in warm_sel.decisions if d.outcome != "retrieved"]
    focus = next((d for d in pool if d.passes), pool[0] if pool else None)
    warm = _round("warm-up", first, warm_sel, k, focus, _reason("warm-up", focus) if focus else "")
    rounds = [warm]
    used = {first.id}
    taken = {warm.admitted}
    pairs = {(focus.chunk, focus.neighbour)} if focus else set()
    for kind in KINDS[1:]:
        # a new question with an answer unlike the earlier rounds'; failing that, relax in turn
        fresh = [q for q in ordered if q.id not in used]
        for pool_q, avoid in ((fresh, taken), (fresh, set()), (ordered, taken), (ordered, set())):
            found = next(
                (r for q in pool_q if (r := _find(kind, q, unit, k, lams, taus, avoid, pairs))),
                None,
            )
            if found is not None:
                rounds.append(found)
                used.add(found.question_id)
                taken.add(found.admitted)
                if found.focus is not None:
                    pairs.add((found.focus.chunk, found.focus.neighbour))
                break
    return tuple(rounds)


def _warm_up(sims, unit, k: int, lams: Sequence[float], taus: Sequence[float]) -> Selection:
    """The warm-up's selection: at preset A, or failing :func:`round_decidable` there, at the
    nearest grid setting where every candidate can be decided from its box (preset A when
    none can)."""
    preset = PRESETS["A"]
    at_a = select_from_sims(
        sims, unit, GateParams(k, preset["lam"], preset["tau"], 1), doc_of=one_file(len(unit))
    )
    if round_decidable(at_a):
        return at_a
    for lam, tau in _grid(lams, taus, ("A",)):
        sel = select_from_sims(sims, unit, GateParams(k, lam, tau, 1), doc_of=one_file(len(unit)))
        if round_decidable(sel):
            return sel
    return at_a


def round_questions(
    gold_queries: Sequence[GoldQuery], vectors: np.ndarray
) -> tuple[RoundQuestion, ...]:
    """:class:`RoundQuestion` s from labelled queries
    (:func:`scar_viz.queries.gold.label_queries`) and their query vectors, row i for query i
    (normalised here)."""
    unit = normalize(np.atleast_2d(np.asarray(vectors, dtype=np.float64)))
    if len(unit) != len(gold_queries):
        raise ValueError("Give one query vector per question.")
    return tuple(
        RoundQuestion(g.id, g.query.query, unit[i], tuple(g.gold))
        for i, g in enumerate(gold_queries)
    )


def candidate_label(d: Decision) -> str:
    """A checkbox label with every number the gate reads, to :data:`SHOWN_DIGITS` decimals:
    cos(q,n), b = 1 − cos(c,n) and the bar τ·cos(q,c):
    ``"chunk 15 (next to 16) · cos(q,n) 0.423 · b 0.312 · bar 0.061"``."""
    g = SHOWN_DIGITS
    return (
        f"chunk {d.neighbour} (next to {d.chunk}) · cos(q,n) {d.cos_qn:.{g}f} · "
        f"b {d.penalty:.{g}f} · bar {d.bar:.{g}f}"
    )


def round_selection(unit: np.ndarray, question: RoundQuestion, rnd: LessonRound) -> Selection:
    """The gate's selection for ``rnd`` (its question at its k, λ, τ and r = 1): the answer
    the reveal shows, and the decisions the decision plane draws."""
    return select_from_sims(
        unit @ question.vector,
        unit,
        GateParams(rnd.k, rnd.lam, rnd.tau, 1),
        doc_of=one_file(len(unit)),
    )


def candidate_labels(sel: Selection) -> dict[int, str]:
    """Each candidate neighbour (document order) -> its checkbox label
    (:func:`candidate_label`) of the decision that counts (:func:`shown_decisions`)."""
    return {n: candidate_label(d) for n, d in shown_decisions(sel).items()}


def round_title(index: int, rnd: LessonRound) -> str:
    """The round's name in the round picker: ``"Round 1: λ = 0.5, τ = 0.1"``."""
    return f"Round {index + 1}: λ = {rnd.lam:g}, τ = {rnd.tau:g}"


def round_from_address(raw: str | None, n: int) -> int:
    """The round (0-based) an address names among ``n``: ``?l_round=3`` is the third; an older
    link's label (``Round 3: λ = …``) names it too. 0 when none, unreadable or out of range."""
    found = re.match(r"\s*(?:round\s*)?(\d+)", raw or "", re.IGNORECASE)
    index = int(found.group(1)) - 1 if found else 0
    return index if 0 <= index < n else 0


def feedback(score: RoundScore) -> tuple[str, ...]:
    """The reveal's sentences: how many right, then the misses in words (no Python lists)."""
    lines = [f"{score.correct} of {score.total} right."]
    if score.false_admits:
        lines.append(f"Rejected, though you expected them in: {chunk_list(score.false_admits)}.")
    if score.missed:
        lines.append(f"Admitted, though you left them out: {chunk_list(score.missed)}.")
    return tuple(lines)
