"""Learn step 3: rounds picked from the sample's real decisions, each scored once."""

from __future__ import annotations

import re

import pytest

from scar_viz.common.edges import one_file
from scar_viz.documents import samples
from scar_viz.embeddings import HashEmbedder, make_embedder
from scar_viz.pipeline import prepare_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import select_from_sims
from scar_viz.teaching import rounds as rd


def _round(candidates, admitted):
    return rd.LessonRound("x", "q", "?", 0.5, 0.1, 3, tuple(candidates), tuple(admitted), None, "")


ROUNDS = (_round((15, 18, 19, 21), (15, 18)), _round((15, 18, 19, 21), (15,)))


def test_each_round_is_scored_once_from_its_own_prediction():
    answers = rd.Answers().tick(0, {15, 18}).reveal(0)
    first = rd.score_rounds(ROUNDS, answers)
    assert (first.rounds[0].correct, first.rounds[0].total) == (4, 4)
    assert (first.correct, first.total, first.revealed) == (4, 4, 1)
    answers = answers.tick(1, {15}).reveal(1)
    both = rd.score_rounds(ROUNDS, answers)
    assert (both.rounds[1].correct, both.correct, both.total) == (4, 8, 8)
    # going back to round 1 (ticks of the page's widgets cleared) changes nothing
    again = answers.tick(0, set()).reveal(0, set())
    assert rd.score_rounds(ROUNDS, again) == both
    assert again.prediction(0) == frozenset({15, 18})


def test_the_issue_scenario_scores_seven_of_eight():
    rounds = (_round((15, 18, 19, 21), (15, 18)), _round((15, 18, 19, 21), ()))
    answers = rd.Answers().reveal(0, {15, 18}).reveal(1, {15})
    score = rd.score_rounds(rounds, answers)
    assert [s.correct for s in score.rounds] == [4, 3]
    assert (score.correct, score.total) == (7, 8)
    assert score.rounds[1].false_admits == (15,) and score.rounds[1].missed == ()


def test_unrevealed_rounds_do_not_count():
    answers = rd.Answers().tick(1, {15})
    score = rd.score_rounds(ROUNDS, answers)
    assert score.rounds == (None, None) and (score.correct, score.total) == (0, 0)
    assert answers.prediction(1) == frozenset({15})


@pytest.fixture(scope="module")
def sample_rounds():
    doc = samples.load_sample()
    emb = HashEmbedder()
    prep = prepare_document(doc, emb)
    gold = label_queries(parse_queries(samples.sample_queries_text(), doc), doc, prep.chunks)
    questions = rd.round_questions(gold, emb.embed([g.query.query for g in gold]))
    return prep, questions, rd.pick_rounds(prep.unit, questions, lesson_id="harbor-f-01")


def test_sample_rounds_have_every_kind_and_differing_answers(sample_rounds):
    _, _, rounds = sample_rounds
    assert tuple(r.kind for r in rounds) == rd.KINDS
    assert rounds[0].question_id == "harbor-f-01"
    answers = [r.admitted for r in rounds]
    assert any(answers), "every round's answer is 'admit nothing'"
    assert len(set(answers)) == len(answers), answers
    assert all(r.candidates for r in rounds)


def test_sample_rounds_use_their_own_questions_and_pairs(sample_rounds):
    _, _, rounds = sample_rounds
    ids = [r.question_id for r in rounds]
    assert len(set(ids)) == len(ids), ids
    pairs = [(r.focus.chunk, r.focus.neighbour) for r in rounds]
    assert len(set(pairs)) == len(pairs), pairs
    assert len({r.candidates for r in rounds}) == len(rounds)


def test_sample_rounds_match_the_gate_and_their_reasons_hold(sample_rounds):
    prep, questions, rounds = sample_rounds
    by_id = {q.id: q for q in questions}
    for r in rounds:
        q = by_id[r.question_id]
        sel = select_from_sims(
            prep.unit @ q.vector,
            prep.unit,
            GateParams(r.k, r.lam, r.tau, 1),
            doc_of=one_file(len(prep.unit)),
        )
        assert tuple(sel.admitted) == r.admitted
        d = r.focus
        assert d is not None and d in sel.decisions and r.reason
        if r.kind == "penalty":
            assert d.outcome == "rejected" and d.cos_qn > d.bar >= d.score
            assert d.neighbour in q.gold
        elif r.kind == "low-bar":
            assert d.outcome == "admitted" and d.cos_qn < 0.5 * d.cos_qc
            assert d.neighbour not in q.gold
        elif r.kind == "tau":
            assert d.outcome == "rejected" and d.cos_qn <= d.bar
            for lam in (0.0, 0.5, 2.0):  # no λ admits it ...
                other = select_from_sims(
                    prep.unit @ q.vector,
                    prep.unit,
                    GateParams(r.k, lam, r.tau, 1),
                    doc_of=one_file(len(prep.unit)),
                )
                assert d.neighbour not in other.admitted
            lower = select_from_sims(
                prep.unit @ q.vector,
                prep.unit,
                GateParams(r.k, r.lam, 0.0, 1),
                doc_of=one_file(len(prep.unit)),
            )
            assert d.neighbour in lower.admitted  # ... a lower τ does


def test_pick_rounds_is_deterministic_and_handles_no_questions(sample_rounds):
    prep, questions, rounds = sample_rounds
    assert rd.pick_rounds(prep.unit, questions, lesson_id="harbor-f-01") == rounds
    assert rd.pick_rounds(prep.unit, ()) == ()


def test_candidate_label_shows_cos_and_b(sample_rounds):
    _, _, rounds = sample_rounds
    d = rounds[1].focus
    label = rd.candidate_label(d)
    assert f"chunk {d.neighbour}" in label and f"{d.cos_qn:.3f}" in label
    assert f"b {d.penalty:.3f}" in label and f"bar {d.bar:.3f}" in label
    assert label.endswith(f"· bar {d.bar:.3f}") and len(label) <= 64


LABEL = re.compile(r"cos\(q,n\) (-?\d+\.\d+) · b (-?\d+\.\d+) · bar (-?\d+\.\d+)$")


def _worked_out(label: str, lam: float) -> bool:
    """What a student concludes from a box: admitted iff cos(q,n) − λ·b > bar, with the
    numbers as printed."""
    cos, b, bar = (float(x) for x in LABEL.search(label).groups())
    return cos - lam * b > bar


@pytest.fixture(scope="module", params=["hash", "default"])
def model_rounds(request):
    """The lesson's rounds on the sample under the hash embedder and the default model (on
    which a round once showed 0.46 − 0.1·0.32 = 0.428 < 0.43 and admitted the chunk)."""
    doc = samples.load_sample()
    emb = make_embedder(request.param)
    prep = prepare_document(doc, emb)
    gold = label_queries(parse_queries(samples.sample_queries_text(), doc), doc, prep.chunks)
    questions = rd.round_questions(gold, emb.embed([g.query.query for g in gold]))
    return prep, questions, rd.pick_rounds(prep.unit, questions, lesson_id="harbor-f-01")


def test_every_round_is_decidable_from_the_digits_its_boxes_show(model_rounds):
    """Each candidate of each round: S worked out from the box's printed numbers falls on the
    gate's side of the printed bar, with a margin of at least 0.01; and every kind is found."""
    prep, questions, rounds = model_rounds
    assert tuple(r.kind for r in rounds) == rd.KINDS
    by_id = {q.id: q for q in questions}
    for r in rounds:
        sel = rd.round_selection(prep.unit, by_id[r.question_id], r)
        shown = rd.shown_decisions(sel)
        for n, label in rd.candidate_labels(sel).items():
            admitted = n in r.admitted
            assert _worked_out(label, r.lam) == admitted, (r.kind, label, r.lam)
            assert abs(shown[n].margin) >= rd.MIN_MARGIN, (r.kind, n, shown[n].margin)
    assert rounds[0].question_id == "harbor-f-01"


def test_a_round_too_close_to_call_is_not_decidable():
    """The issue's box: cos(q,n) 0.46, b 0.32 at λ = 0.1 against a bar 0.43 reads
    0.46 − 0.032 = 0.428 < 0.43, yet the gate admits (S = 0.4306 > 0.4300)."""
    from scar_viz.scoring.scar import Decision

    d = Decision(
        chunk=1, neighbour=2, side="right", distance=1, score=0.4306, bar=0.4300,
        margin=0.0006, passes=True, outcome="admitted", blocked_by="",
        cos_qn=0.4626, cos_qc=0.5375, penalty=0.32, lam=0.1, tau=0.8,
    )  # fmt: skip
    assert not rd.decidable(d)  # margin 0.0006 < 0.01
    assert rd.decidable(d, margin=0.0) is True  # three digits: 0.463 − 0.032 = 0.431 > 0.430
    assert not rd.decidable(d, digits=2, margin=0.0)  # two: 0.46 − 0.032 = 0.428 ≤ 0.43


def test_round_selection_and_labels_follow_the_round(sample_rounds):
    prep, questions, rounds = sample_rounds
    by_id = {q.id: q for q in questions}
    for r in rounds:
        sel = rd.round_selection(prep.unit, by_id[r.question_id], r)
        assert tuple(sel.admitted) == r.admitted
        labels = rd.candidate_labels(sel)
        assert tuple(labels) == r.candidates
        assert all(label.startswith(f"chunk {c} (next to ") for c, label in labels.items())


def test_candidate_labels_prefer_the_admitting_decision():
    import numpy as np

    from scar_viz.scoring.scar import scar_select

    # chunks 0 and 2 retrieved, neighbour 1 between them: admitted by one side is admitted
    unit = np.array([[1.0, 0.0], [0.6, 0.8], [0.9, 0.436], [0.0, 1.0]])
    sel = scar_select(np.array([1.0, 0.0]), unit, GateParams(2, 0.5, 0.5, 1))
    ones = [d for d in sel.decisions if d.neighbour == 1]
    assert len(ones) == 2
    best = max(ones, key=lambda d: (d.passes, d.score))
    assert rd.candidate_labels(sel)[1] == rd.candidate_label(best)


def test_feedback_in_words_and_round_title():
    rnd = ROUNDS[1]
    (line,) = rd.feedback(rd.score_round(rnd, {15}))
    assert line == "4 of 4 right."
    lines = rd.feedback(rd.score_round(rnd, {19, 21}))
    assert lines == (
        "1 of 4 right.",
        "Rejected, though you expected them in: chunks 19 and 21.",
        "Admitted, though you left them out: chunk 15.",
    )
    assert "[" not in " ".join(lines)
    assert rd.round_title(0, rnd) == "Round 1: λ = 0.5, τ = 0.1"


def test_round_from_address_reads_a_number_or_an_older_label():
    from scar_viz.teaching.rounds import round_from_address

    assert round_from_address("3", 4) == 2
    assert round_from_address("Round 2: λ = 0.1, τ = 0.8", 4) == 1
    assert round_from_address("round 4", 4) == 3
    for unreadable in (None, "", "x", "0", "5", "-1"):
        assert round_from_address(unreadable, 4) == 0, unreadable
