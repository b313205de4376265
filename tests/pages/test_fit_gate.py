"""AppTest of the Fit a gate page: fit on the set or its tune half, weights, the p-curve beside
SCAR's front, picking a point sets p, keeping / downloading / uploading a gate."""

from __future__ import annotations

import base64
import json

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.scoring.learned import LearnedGate, default_gate
from tests.pages.helpers import (
    alerts,
    assert_corpus_files,
    by_file,
    kestrel_queries,
    open_corpus,
    open_page,
)

TIMEOUT = 120


@pytest.fixture
def at(hash_model) -> AppTest:
    return open_page("pages/fit_gate.py", TIMEOUT)


def values(array) -> list[float]:
    """A trace's coordinates as sent: a list, or plotly's typed array ``{dtype, bdata}``."""
    if isinstance(array, dict):
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return list(array)


def frame_with(at: AppTest, column: str) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if column in d.value.columns)


def weights(at: AppTest) -> pd.Series:
    return frame_with(at, "weight").set_index("feature")["weight"].astype(float)


def test_fit_shows_weights_with_meaning_and_the_curve_beside_scar(at):
    assert at.title[0].value == "Fit a gate"
    table = frame_with(at, "weight")
    assert list(table["feature"]) == ["cos_qn", "cos_qc", "cos_cn", "rank", "right"]
    assert table["meaning"].str.len().min() > 10
    halves = frame_with(at, "part")
    assert list(halves["part"]) == [
        "all (fitted on: in sample)",
        "all (cross-validated, 5 folds × 3 repeats)",
    ]
    assert halves["queries"].astype(int).tolist() == [24, 24]
    names = [t.get("name", "") for t in json.loads(at.get("plotly_chart")[1].proto.spec)["data"]]
    refs = {"preset A", "preset B", "top-k", "window ±1", "Pareto frontier"}
    headline = "learned gate, cross-validated (5 folds × 3 repeats)"
    assert refs | {headline, "learned gate, in sample (fitted on these queries)"} <= set(names)
    # a click on the chart reads p from the headline (held-out) curve, whatever its position
    assert names[at.session_state["_fg_trace"]] == headline


def test_the_headline_curve_is_cross_validated_and_the_in_sample_one_is_labelled(at):
    """The purple curve the chart leads with, and its p points, are the cross-validated
    reading (each query under a gate not fitted on it); the in-sample curve is drawn beside
    it, dotted, named "in sample", and sits no lower."""
    from scar_viz.evaluation.learned import crossval_p_curve, fit_gate_on, p_curve_on
    from tests.evaluation_sample import hash_sample

    prep, labelled, vecs, _, _ = hash_sample()
    k = at.slider(key="k").value
    cv = crossval_p_curve(LabelledRun(prep, labelled, vecs), k, 1)
    ins = p_curve_on(
        LabelledRun(prep, labelled, vecs), fit_gate_on(LabelledRun(prep, labelled, vecs), k), k, 1
    )
    data = json.loads(at.get("plotly_chart")[1].proto.spec)["data"]
    head = data[at.session_state["_fg_trace"]]
    assert sorted(values(head["y"])) == pytest.approx(sorted(cv.recall.tolist()))
    dotted = next(t for t in data if "in sample" in t.get("name", ""))
    assert dotted["line"]["dash"] == "dot" and "customdata" not in dotted
    assert sorted(values(dotted["y"])) == pytest.approx(sorted(ins.recall.tolist()))
    assert ins.recall != pytest.approx(cv.recall)
    assert any("cross-validated" in c.value and "in sample" in c.value for c in at.caption)


def test_a_set_too_small_to_cross_validate_says_its_curve_is_in_sample(hash_model):
    from scar_viz.documents import samples
    from tests.pages.helpers import stash_queries

    text = samples.sample_queries_text()
    lines = [x for x in text.splitlines() if x.strip()][:8]
    app = AppTest.from_file("../../app.py", default_timeout=TIMEOUT)
    app.run()
    stash_queries(app, samples.load_sample().text, "few.jsonl", "\n".join(lines) + "\n")
    app.switch_page("pages/fit_gate.py").run()
    assert not app.exception, app.exception
    names = [t.get("name", "") for t in json.loads(app.get("plotly_chart")[1].proto.spec)["data"]]
    assert names[app.session_state["_fg_trace"]].startswith("learned gate, in sample")
    notes = alerts(app, "info")
    assert any("Not cross-validated" in n and "in sample" in n for n in notes), notes


def test_lexical_features_can_be_chosen(at):
    at.radio(key="fg_features").set_value("lexical").run()
    assert not at.exception, at.exception
    assert list(frame_with(at, "weight")["feature"]) == [
        "cos_qn", "cos_qc", "cos_cn", "rank", "right", "lex_qn", "lex_qc", "lex_new"
    ]  # fmt: skip
    at.button(key="fg_use").click().run()
    kept = LearnedGate.from_json(at.session_state["learned_gate_json"])
    assert kept.uses_lexical and kept.fitted_on["features"] == "lexical"


def test_the_k_note_shows_only_when_k_changes_a_decision_and_its_button_fixes_it(at):
    """The default gate was fitted at k = 4: at the page's k = 3 every rank is one it knows
    (no note); at k = 10 some of its decisions change (the note, and a button to k = 4)."""
    from scar_viz.scoring.learned import fitted_k

    k_fit = fitted_k(default_gate())
    assert at.slider(key="k").value < k_fit
    assert not any("fitted with k" in w for w in alerts(at, "warning"))
    assert not [b for b in at.button if b.key == "k_fix"]
    at.slider(key="k").set_value(10).run()
    notes = [w for w in alerts(at, "warning") if "fitted with k" in w]
    assert len(notes) == 1 and f"k = {k_fit}" in notes[0] and "changes" in notes[0], notes
    at.button(key="k_fix").click().run()
    assert not at.exception, at.exception
    assert at.slider(key="k").value == k_fit
    assert not any("fitted with k" in w for w in alerts(at, "warning"))


def test_the_tune_half_changes_the_weights_and_reports_both_halves(at):
    full = weights(at)
    at.radio(key="fit_on").set_value("tune").run()
    assert not at.exception
    tune = weights(at)
    assert not full.round(6).equals(tune.round(6))
    halves = frame_with(at, "part")
    assert list(halves["part"]) == ["tune (fitted on: in sample)", "check (held out)"]
    assert halves["queries"].astype(int).sum() == 24


def test_k_refits(at):
    before = weights(at)
    at.slider(key="k").set_value(6).run()
    assert not weights(at).round(6).equals(before.round(6))


def test_picking_a_curve_point_sets_p(at):
    pick = at.selectbox(key="fg_point")
    option = pick.options[10]
    pick.set_value(pick.options[10]).run()
    assert not at.exception
    p = at.slider(key="p").value
    assert p == pytest.approx(float(option.split("p = ")[1].split(":")[0]), abs=6e-4)
    assert frame_with(at, "part")["p"].astype(float)[0] == pytest.approx(p, rel=0.1)
    at.switch_page("pages/compare.py").run()  # p follows the user to Compare
    assert not at.exception
    assert at.slider(key="p").value == pytest.approx(p)
    assert any(r.startswith(f"learned (p={p:g})") for r in at.dataframe[0].value["label"])


def test_use_download_and_back_to_default(at):
    assert "learned_gate_json" not in at.session_state
    at.button(key="fg_use").click().run()
    kept = LearnedGate.from_json(at.session_state["learned_gate_json"])
    assert list(kept.weights) == pytest.approx(list(weights(at)), abs=1e-3)
    assert any("In use: this session's learned gate" in c.value for c in at.caption)
    at.switch_page("pages/compare.py").run()
    assert any("Gate: this session's learned gate" in c.value for c in at.caption)
    at.switch_page("pages/fit_gate.py").run()
    assert at.get("download_button")
    at.button(key="fg_default").click().run()
    assert "learned_gate_json" not in at.session_state
    assert any("In use: the default learned gate" in c.value for c in at.caption)


def test_uploading_a_broken_gate_gives_one_message(at):
    at.file_uploader(key="gate_file").upload("gate.json", b'{"weights": [1, 2', "application/json")
    at.run()
    assert not at.exception
    errors = alerts(at, "error")
    assert len(errors) == 1 and "'gate.json' is not a gate file" in errors[0]
    assert "learned_gate_json" not in at.session_state


def test_uploading_a_gate_uses_it_and_warns_about_the_setting(at):
    text = default_gate().to_json().encode()
    at.file_uploader(key="gate_file").upload("default.json", text, "application/json")
    at.run()
    assert not at.exception and not alerts(at, "error")
    assert at.session_state["learned_gate_json"] == default_gate().to_json()
    assert any("fitted with model" in w for w in alerts(at, "warning"))


def test_fit_a_gate_runs_at_the_lab_k(hash_model):
    from streamlit.testing.v1 import AppTest

    lab = AppTest.from_file("../../app.py", default_timeout=120)
    lab.run()
    lab.switch_page("pages/evaluate.py")
    lab.run()
    lab.slider(key="k").set_value(5).run()
    lab.switch_page("pages/fit_gate.py")
    lab.run()
    assert not lab.exception, lab.exception
    assert lab.slider(key="k").value == 5  # one k on every page of the lab


def test_on_the_sample_corpus_the_held_out_half_is_broken_down_by_file(hash_model):
    app = open_corpus("pages/fit_gate.py", TIMEOUT)
    frame = by_file(app)
    assert_corpus_files(frame)  # fitted on all: the chart shows all
    assert {"window1 recall", "window1 chunks", "learned recall", "learned chunks"} <= set(frame)
    app.radio(key="fit_on").set_value("tune").run()
    assert not app.exception, app.exception
    held_out = int(frame_with(app, "part")["queries"].iloc[1])
    assert by_file(app)["queries"].sum() == held_out < kestrel_queries()


def test_one_document_has_no_breakdown_by_file(at):
    assert by_file(at) is None
