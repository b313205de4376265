"""AppTest of the lesson: it runs start to end; each round's prediction is kept and scored once;
the rounds' answers differ; step 4's two bars differ at the step's defaults."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.chunking.config import chunk_document
from scar_viz.common import fmt
from scar_viz.documents import samples
from scar_viz.embeddings import make_embedder
from scar_viz.pipeline import prepare_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from scar_viz.teaching.lesson import SCALE_ALPHA, SCALE_BETA, pooled_decisions, scale_demo
from scar_viz.teaching.rounds import pick_rounds, round_questions
from tests.pages.helpers import open_page

APP = "../../app.py"


def learn() -> AppTest:
    return open_page("pages/learn.py", 120)


def core_rounds(spec: str):
    """The lesson's rounds and step-4 decisions computed from the core alone."""
    doc = samples.load_sample(samples.DEFAULT_SAMPLE)
    embedder = make_embedder(spec)
    prep = prepare_document(doc, embedder)
    gold = label_queries(parse_queries(samples.sample_queries_text(), doc), doc, prep.chunks)
    vecs = embedder.embed([g.query.query for g in gold])
    rounds = pick_rounds(prep.unit, round_questions(gold, vecs), lesson_id="harbor-f-01")
    return rounds, pooled_decisions(prep.unit, vecs)


def boxes(at: AppTest, index: int) -> dict[int, object]:
    return {
        int(c.key.rsplit("_", 1)[1]): c for c in at.checkbox if c.key.startswith(f"guess_{index}_")
    }


def lesson_score(at: AppTest) -> str:
    return next(m.value for m in at.metric if m.label == "Lesson score")


def tick_and_reveal(at: AppTest, index: int, ticked: set[int]) -> None:
    at.radio(key="l_round").set_value(index).run()
    for c, box in boxes(at, index).items():
        box.set_value(c in ticked)
    at.run()
    at.button(key=f"reveal_btn_{index}").click().run()
    assert not at.exception, at.exception


def test_lesson_runs_start_to_end(hash_model):
    at = learn()
    headers = [h.value for h in at.header]
    assert headers[:4] == [
        "1 · Boundary fragmentation",
        "2 · The gate",
        "3 · Predict, then reveal",
        "4 · Why the bar is relative",
    ]
    assert len(at.latex) >= 2  # the general formula and the live numbers
    assert [m.label for m in at.metric] == ["Relative bar keeps", "Absolute bar keeps"]


def test_each_round_is_kept_and_scored_once(hash_model):
    rounds, _ = core_rounds("hash")
    at = learn()
    assert len(at.radio(key="l_round").options) == len(rounds) == 4
    first, second = rounds[0], rounds[1]
    assert set(boxes(at, 0)) == set(first.candidates)
    tick_and_reveal(at, 0, set(first.admitted))  # all right
    n1 = len(first.candidates)
    assert at.success[0].value == f"{n1} of {n1} right."
    assert lesson_score(at) == f"{n1} / {n1}"
    wrong = next(c for c in second.candidates if c not in second.admitted)
    tick_and_reveal(at, 1, {wrong, *second.admitted})  # one wrong admit
    n2 = len(second.candidates)
    assert at.success[0].value == f"{n2 - 1} of {n2} right."
    assert any(f"expected them in: chunk {wrong}." in m.value for m in at.markdown)
    assert lesson_score(at) == f"{n1 + n2 - 1} / {n1 + n2}"
    # back on round 1: its own ticks (frozen) and its own score, nothing re-scored as empty
    at.radio(key="l_round").set_value(0).run()
    ticks = {c for c, box in boxes(at, 0).items() if box.value}
    assert ticks == set(first.admitted)
    assert all(box.disabled for box in boxes(at, 0).values())
    assert at.success[0].value == f"{n1} of {n1} right."
    assert not [m for m in at.markdown if "left them out" in m.value]
    assert lesson_score(at) == f"{n1 + n2 - 1} / {n1 + n2}"


def test_rounds_answers_differ_and_reasons_show(hash_model):
    rounds, _ = core_rounds("hash")
    answers = [r.admitted for r in rounds]
    assert any(answers) and len(set(answers)) == len(answers)
    at = learn()
    for i, rnd in enumerate(rounds):
        tick_and_reveal(at, i, set())
        assert any(rnd.reason == x.value for x in at.info), rnd.kind
    # leaving every box empty cannot score everything right
    score = lesson_score(at)
    right, total = map(int, score.split(" / "))
    assert right < total


def test_checkbox_labels_show_cos_and_b_in_full(hash_model):
    """Three decimals, and in every round the printed numbers decide each box: worked out
    from them, cos(q,n) − λ·b > bar exactly for the chunks the gate admits."""
    rounds, _ = core_rounds("hash")
    at = learn()
    pattern = r"cos\(q,n\) (-?\d\.\d{3}) · b (-?\d\.\d{3}) · bar (-?\d\.\d{3})$"
    for i, rnd in enumerate(rounds):
        at.radio(key="l_round").set_value(i).run()
        shown = {c: box.label for c, box in boxes(at, i).items()}
        assert shown and all(re.search(pattern, x) for x in shown.values())
        for c, label in shown.items():
            cos, b, bar = (float(v) for v in re.search(pattern, label).groups())
            assert (cos - rnd.lam * b > bar) == (c in rnd.admitted), (i, label)


def test_rounds_show_their_own_questions(hash_model):
    rounds, _ = core_rounds("hash")
    at = learn()
    shown = []
    for i in range(len(rounds)):
        at.radio(key="l_round").set_value(i).run()
        shown.append(next(m.value for m in at.markdown if ", r = 1" in m.value))
        assert set(boxes(at, i)) == set(rounds[i].candidates)
    assert len(set(shown)) == len(rounds), shown


def test_step4_bars_differ_at_the_defaults(hash_model):
    _, decisions = core_rounds("hash")
    expected = scale_demo(decisions, SCALE_ALPHA, SCALE_BETA)
    at = learn()
    assert at.slider(key="l_alpha").value == SCALE_ALPHA
    assert at.slider(key="l_beta").value == SCALE_BETA
    rel = next(m.value for m in at.metric if m.label == "Relative bar keeps")
    ab = next(m.value for m in at.metric if m.label == "Absolute bar keeps")
    assert rel == "100%" and ab != rel
    assert expected.changed_abs and not expected.changed_rel
    table = at.dataframe[0].value
    assert len(table) == len(expected.changed_abs)
    assert any("At α = 0 (spread only) the relative bar keeps 100%" in c.value for c in at.caption)
    # a pure offset: neither bar is invariant, as the caption then says
    at.slider(key="l_alpha").set_value(0.2).run()
    at.slider(key="l_beta").set_value(1.0).run()
    offset = scale_demo(decisions, 0.2, 1.0)
    rel = next(m.value for m in at.metric if m.label == "Relative bar keeps")
    ab = next(m.value for m in at.metric if m.label == "Absolute bar keeps")
    assert rel != "100%" and ab != "100%"
    assert (rel, ab) == (fmt.percent(offset.keep_rel), fmt.percent(offset.keep_abs))
    assert any("neither bar is invariant" in c.value for c in at.caption)


def test_lesson_sliders_restore_from_the_address(hash_model):
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["l_lam"] = "1.3"
    at.query_params["l_alpha"] = "0.2"
    at.switch_page("pages/learn.py").run()  # a link to /learn?l_lam=…
    assert at.slider(key="l_lam").value == 1.3
    assert at.slider(key="l_alpha").value == 0.2


def test_lesson_query_type_comes_from_the_shared_rule(hash_model):
    """Step 1 shows the fragmented pair only when query_type calls the lesson query fragmented
    under the lesson's chunking."""
    at = learn()
    doc = samples.load_sample(samples.DEFAULT_SAMPLE)
    qs = parse_queries(samples.sample_queries_text(), doc)
    (gq,) = label_queries(
        [q for q in qs.queries if q.id == "harbor-f-01"], doc, chunk_document(doc)
    )
    assert gq.type == "fragmented"
    assert not [i for i in at.info if "no boundary cuts it" in i.value]
    assert any(f"chunk {gq.gold[0]} and chunk {gq.gold[1]}" in m.value for m in at.markdown)


@pytest.mark.model
def test_default_model_click_sequence_scores_seven_of_eight():
    """On the default model, round 1 (the lesson question): tick 15 and 18, Reveal (4 of 4);
    round 2 (another question, chunks 39–45): tick 42, Reveal (3 of 4): 7 / 8; back on round 1,
    its ticks and its 4 of 4 remain."""
    rounds, _ = core_rounds("default")
    assert rounds[0].candidates == (15, 18, 19, 21) and rounds[0].admitted == (15, 18)
    assert rounds[1].candidates == (39, 42, 43, 45) and rounds[1].admitted == ()
    at = learn()
    tick_and_reveal(at, 0, {15, 18})
    assert at.success[0].value == "4 of 4 right."
    assert lesson_score(at) == "4 / 4"
    tick_and_reveal(at, 1, {42})
    assert at.success[0].value == "3 of 4 right."
    assert lesson_score(at) == "7 / 8"
    at.radio(key="l_round").set_value(0).run()
    assert {c for c, box in boxes(at, 0).items() if box.value} == {15, 18}
    assert at.success[0].value == "4 of 4 right."
    assert not [m for m in at.markdown if "left them out" in m.value]
    assert lesson_score(at) == "7 / 8"


def test_the_address_names_the_round_by_number(hash_model):
    """``?l_round=3`` opens the third round, and the address says the number the round has
    (not its label); an older link's label ("Round 2: λ = …") still opens its round."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["l_round"] = "3"
    at = open_page("pages/learn.py", 120, app=at)
    assert at.radio(key="l_round").value == 2
    assert at.query_params["l_round"] == "3"
    at.radio(key="l_round").set_value(1).run()
    assert at.query_params["l_round"] == "2"
    old = AppTest.from_file(APP, default_timeout=120)
    old.query_params["l_round"] = "Round 2: λ = 0.1, τ = 0.8"
    old = open_page("pages/learn.py", 120, app=old)
    assert old.radio(key="l_round").value == 1 and old.query_params["l_round"] == "2"
