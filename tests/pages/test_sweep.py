"""AppTest of the λ×τ sweep page: the frugal best mark, the Pareto chart with every policy,
picking a frontier point, tune/check on two query sets."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.documents import samples
from tests.pages.helpers import (
    alerts,
    assert_corpus_files,
    by_file,
    open_corpus,
    open_page,
    stash_queries,
)

TIMEOUT = 90
PAGE = "pages/sweep.py"


@pytest.fixture
def at(hash_model) -> AppTest:
    return open_page(PAGE, TIMEOUT)


def figure(at: AppTest, title: str | None = None, trace: str | None = None) -> dict:
    """The first plotly figure with this title text or a trace of this name."""
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        layout_title = spec["layout"].get("title", {}).get("text")
        names = {t.get("name") for t in spec["data"]}
        if (title and layout_title == title) or (trace and trace in names):
            return spec
    raise AssertionError(f"no chart {title or trace}")


def marks(spec: dict) -> dict[str, tuple[float, float]]:
    """Heatmap mark label -> (λ, τ), from the annotations."""
    return {a["text"]: (a["y"], a["x"]) for a in spec["layout"].get("annotations", [])}


def caption(at: AppTest, start: str) -> str:
    return next(c.value for c in at.caption if start in c.value)


def test_page_title_and_three_heatmaps_with_a_b_and_best(at):
    assert at.title[0].value == "λ×τ sweep"
    for title in ("recall", "mean chunks", "efficiency"):
        got = marks(figure(at, title))
        assert got["A"] == (0.5, 0.1) and got["B"] == (0.1, 0.8)
        assert "best" in got
    assert "within 1 point of window ±1" in caption(at, "grid at k")


def test_recall_floor_moves_the_best_mark(at):
    default = marks(figure(at, "recall"))["best"]
    at.number_input(key="floor").set_value(0.3).run()
    low = marks(figure(at, "recall"))["best"]
    assert "recall ≥ 0.300" in caption(at, "grid at k")
    at.number_input(key="floor").set_value(1.0).run()
    text = caption(at, "grid at k")
    assert default != low
    if "best" in marks(figure(at, "recall")):  # a perfect-recall setting exists
        assert marks(figure(at, "recall"))["best"] != low
    else:
        assert "no best mark" in text


def test_pareto_chart_has_every_policy_that_ran(at):
    at.multiselect(key="pol").set_value(["topk", "window1", "scar", "rse", "automerge"]).run()
    assert not at.exception, at.exception
    spec = figure(at, trace="Pareto frontier")
    names = {t.get("name") for t in spec["data"]}
    assert {"preset A", "preset B", "topk", "window1", "rse", "automerge"} <= names
    assert "scar" not in names


def test_frontier_pick_sets_the_sliders(at):
    front = at.selectbox(key="front")
    assert len(front.options) >= 2
    i = len(front.options) // 2
    label = front.options[i]
    front.select_index(i).run()
    assert not at.exception, at.exception
    lam, tau = at.slider(key="lam").value, at.slider(key="tau").value
    assert (lam, tau) != (0.5, 0.1)
    assert f"λ = {lam:.2f}, τ = {tau:.2f}" in label
    star = next(t for t in figure(at, "recall")["data"] if t.get("name") == "sliders")
    assert (star["y"][0], star["x"][0]) == (lam, tau)


def test_two_query_sets_split_and_upload(at):
    # the default tunes for the fewest chunks at window ±1's recall, not for efficiency
    # (which lands on plain top-k)
    assert at.selectbox(key="obj").value == "frugal"
    assert any(m.label == "mean chunks on tune set (tuned)" for m in at.metric)
    at.selectbox(key="obj").set_value("efficiency").run()
    gap = next(m for m in at.metric if m.label == "Gap to the check set's own best")
    assert float(gap.value) >= 0
    table = next(d.value for d in at.dataframe if "setting" in d.value.columns)
    assert list(table["set"])[:3] == ["half A", "half B", "half B"]
    at.selectbox(key="obj").set_value("recall").run()
    assert any(m.label == "recall on tune set (tuned)" for m in at.metric)
    at.radio(key="chk").set_value("upload").run()
    assert any("Give a check set" in i.value for i in at.info)
    lines = samples.sample_queries_text().splitlines()
    at.session_state["chk_data"] = ("check.jsonl", "\n".join(lines[:6]).encode())
    at.run()
    assert not at.exception, at.exception
    table = next(d.value for d in at.dataframe if "setting" in d.value.columns)
    assert "check.jsonl" in set(table["set"])


def test_uploaded_set_drives_the_sweep(hash_model):
    at = open_page(PAGE, TIMEOUT)
    before = caption(at, "grid at k")
    lines = samples.sample_queries_text().splitlines()
    stash_queries(at, samples.load_sample().text, "few.jsonl", "\n".join(lines[:3]).encode())
    at.run()
    assert not at.exception, at.exception
    assert next(m.value for m in at.metric if m.label == "Queries") == "3"
    assert caption(at, "grid at k") != before


def test_mu_sweeps_with_the_questions_words_and_compares_the_best(at):
    plain = figure(at, "recall")
    assert not any(a.startswith("Words:") for a in alerts(at))
    assert "μ = 0: the paper's gate" in caption(at, "μ = 0")
    at.slider(key="mu").set_value(0.5).run()
    assert not at.exception, at.exception
    assert "μ = 0.5;" in caption(at, "grid at k")
    words = figure(at, "recall")
    assert words["data"][0]["z"] != plain["data"][0]["z"]  # the words move recall on the grid
    line = next(a for a in alerts(at, "info") if a.startswith("Words:"))
    assert "the best at μ = 0.5 takes" in line and "at μ = 0, the paper's gate" in line


def test_mu_in_the_address_sets_the_sweeps_slider(hash_model):
    app = AppTest.from_file("../../app.py", default_timeout=TIMEOUT)
    app.query_params["mu"] = "0.5"
    at = open_page(PAGE, TIMEOUT, app)
    assert at.slider(key="mu").value == 0.5
    # AppTest's page switch draws the first run at the default (λ from the address does the
    # same); the page's own next run reads the address
    at.run()
    assert "μ = 0.5;" in caption(at, "grid at k")


def test_on_the_sample_corpus_the_best_cell_is_broken_down_by_file(hash_model):
    app = open_corpus(PAGE, TIMEOUT)
    frame = by_file(app)
    assert_corpus_files(frame)
    assert {"window1 recall", "window1 chunks", "scar recall", "scar chunks"} <= set(frame)
    assert app.radio(key="sweep_by_file_at").value == "best"
    best = frame.copy()
    app.radio(key="sweep_by_file_at").set_value("sliders").run()
    assert not app.exception, app.exception
    sliders = by_file(app)
    assert list(sliders["window1 chunks"]) == list(best["window1 chunks"])
    assert caption(app, "Window ±1 and SCAR at λ").startswith(
        f"Window ±1 and SCAR at λ = {app.slider(key='lam').value:.2f}"
    )


def test_one_document_has_no_breakdown_by_file(at):
    assert by_file(at) is None
    assert not [r for r in at.radio if r.key == "sweep_by_file_at"]
