"""AppTest of the lesson: it runs start to end, and predictions are scored on reveal."""

from __future__ import annotations

import re

from streamlit.testing.v1 import AppTest

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
    assert total == len(guesses) and 0 <= right <= total
    # ticking everything is right exactly for the admitted ones: the score says how many
    assert any(m.label == "Lesson score" and m.value == f"{right} / {total}" for m in at.metric)


def test_lesson_sliders_restore_from_the_address(hash_model):
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["l_lam"] = "1.3"
    at.query_params["l_alpha"] = "0.2"
    at.run()
    at.switch_page("pages/learn.py").run()
    assert at.slider(key="l_lam").value == 1.3
    assert at.slider(key="l_alpha").value == 0.2
