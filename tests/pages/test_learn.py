"""AppTest of the lesson: it runs start to end, and predictions are scored on reveal."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

from scar_viz import samples
from scar_viz.chunking import ChunkingConfig, chunk_document
from scar_viz.embeddings import make_embedder
from scar_viz.gate import GateParams
from scar_viz.lesson import ROUNDS
from scar_viz.pipeline import embed_query, prepare_document
from scar_viz.queries import label_queries, parse_queries
from scar_viz.scoring import DEFAULT_K, select_from_sims

APP = "../../app.py"


def learn(hash_model) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/learn.py").run()
    assert not at.exception, at.exception
    return at


def test_lesson_runs_start_to_end(hash_model):
    at = learn(hash_model)
    headers = [h.value for h in at.header]
    assert headers[:4] == [
        "1 · Boundary fragmentation",
        "2 · The gate",
        "3 · Predict, then reveal",
        "4 · Why the bar is relative",
    ]
    assert len(at.latex) >= 2  # the general formula and the live numbers
    assert at.metric[0].label == "Relative bar keeps"


def test_predict_then_reveal_scores_the_round(hash_model):
    at = learn(hash_model)
    guesses = [c for c in at.checkbox if c.key.startswith("guess_0_")]
    assert guesses, "round 1 has candidates"
    for box in guesses:
        box.check()
    at.button(key="reveal_btn_0").click().run()
    assert not at.exception
    (ok,) = at.success
    right, total = map(int, re.match(r"(\d+) of (\d+) right", ok.value).groups())
    # ticking everything is right exactly for the neighbours the gate admits: compute those
    # with the core, independently of the page
    admitted = admitted_in_round(0)
    pool = {int(box.key.rsplit("_", 1)[1]) for box in guesses}
    assert admitted and admitted <= pool
    assert (right, total) == (len(admitted), len(pool))
    assert any(m.label == "Lesson score" and m.value == f"{right} / {total}" for m in at.metric)
    # untick one admitted and one rejected neighbour: two fewer right
    rejected = sorted(pool - admitted)
    at.checkbox(key=f"guess_0_{min(admitted)}").uncheck()
    if rejected:
        at.checkbox(key=f"guess_0_{rejected[0]}").uncheck()
    at.run()
    (ok,) = at.success
    expected = len(admitted) - 1 + (1 if rejected else 0)
    assert ok.value.startswith(f"{expected} of {len(pool)} right")


def admitted_in_round(i: int) -> set[int]:
    """The neighbours SCAR admits in round ``i`` of the lesson, from the core alone."""
    doc = samples.load_sample(samples.DEFAULT_SAMPLE)
    embedder = make_embedder("hash")
    prep = prepare_document(doc, embedder, ChunkingConfig())
    lesson = next(q for q in samples.sample_questions() if q["id"] == "harbor-f-01")
    sims = prep.unit @ embed_query(embedder, lesson["query"])
    sel = select_from_sims(sims, prep.unit, GateParams(DEFAULT_K, ROUNDS[i].lam, ROUNDS[i].tau, 1))
    return set(sel.admitted)


def test_lesson_sliders_restore_from_the_address(hash_model):
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["l_lam"] = "1.3"
    at.query_params["l_alpha"] = "0.2"
    at.run()
    at.switch_page("pages/learn.py").run()
    assert at.slider(key="l_lam").value == 1.3
    assert at.slider(key="l_alpha").value == 0.2


def test_lesson_query_type_comes_from_the_shared_rule(hash_model):
    """Step 1 shows the fragmented pair only when query_type calls the lesson query fragmented
    under the lesson's chunking."""
    at = learn(hash_model)
    doc = samples.load_sample(samples.DEFAULT_SAMPLE)
    qs = parse_queries(samples.sample_queries_text(), doc.text)
    (gq,) = label_queries(
        [q for q in qs.queries if q.id == "harbor-f-01"], doc.text, chunk_document(doc)
    )
    assert gq.type == "fragmented"
    assert not [i for i in at.info if "no boundary cuts it" in i.value]
    assert any(f"chunk {gq.gold[0]} and chunk {gq.gold[1]}" in m.value for m in at.markdown)
