"""AppTest of the verdict at the top of the Evaluation lab (built-in sample, hashing model): its
sentence, chart and table, and *Apply* for each kind of verdict — a window (retriever and k),
SCAR (λ, τ, μ) and the learned gate (p and the gate refitted on all queries) — after which the
Explorer runs at that setting."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.helpers import alerts

APP = "../../app.py"
TIMEOUT = 180


@pytest.fixture
def lab(hash_model) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.switch_page("pages/evaluate.py")
    at.run()
    assert not at.exception, at.exception
    return at


def verdict_table(at: AppTest):
    return next(df.value for df in at.dataframe if "role" in df.value.columns)


def said(at: AppTest) -> str:
    found = [
        a
        for a in alerts(at, "info")
        if a.startswith(("Use ", "Not sure of ", "Cannot tell ", "No cand"))
    ]
    assert len(found) == 1, alerts(at, "info")
    return found[0]


def apply(at: AppTest) -> None:
    at.button(key="verdict_apply").click().run()
    assert not at.exception, at.exception
    assert at.button(key="verdict_apply").disabled  # "Applied"


def to_explorer(at: AppTest) -> None:
    at.switch_page("pages/explorer.py")
    at.run()
    assert not at.exception, at.exception


def test_sentence_chart_and_table(lab):
    text = said(lab)
    assert "out of fold on 24 queries (4 folds × 3 repeats)" in text
    table = verdict_table(lab)
    assert table["role"].iloc[0].startswith("verdict") and "reference" in set(table["role"])
    chart = next(c for c in lab.get("plotly_chart"))
    names = [t["name"] for t in json.loads(chart.proto.spec)["data"]]
    assert {"dense: front", "bm25: front", "hybrid: front"} <= set(names)
    assert any(n.startswith("verdict") for n in names)
    assert any(n.startswith("reference: window ±1, k = 3") for n in names)


def test_apply_a_window_sets_the_retriever_and_k(lab):
    table = verdict_table(lab)
    row = table.iloc[0]
    assert row["expansion"] == "window ±1"  # the sample's verdict under the hashing model
    apply(lab)
    assert lab.session_state["retriever"] == row["retriever"]
    assert lab.slider(key="k").value == row["k"]
    to_explorer(lab)
    assert lab.slider(key="k").value == row["k"]


def test_apply_scar_sets_lambda_tau_and_mu(lab):
    lab.slider(key="mu").set_value(0.5).run()
    lab.number_input(key="vbudget").set_value(200).run()  # presets win below ~250 tokens
    assert said(lab).startswith(("Cannot tell SCAR", "Use SCAR", "Not sure of SCAR"))
    setting = verdict_table(lab).iloc[0]
    assert setting["expansion"].startswith("SCAR")
    apply(lab)
    lam = float(setting["expansion"].split("λ ")[1].split(",")[0])
    tau = float(setting["expansion"].split("τ ")[1].split(")")[0].split(",")[0])
    assert (lab.slider(key="lam").value, lab.slider(key="tau").value) == (lam, tau)
    assert lab.slider(key="mu").value in (0.0, 0.5)  # tuned SCAR may keep the sliders' μ
    assert lab.slider(key="k").value == setting["k"]
    to_explorer(lab)
    assert lab.session_state["policy"] == "SCAR"
    assert (lab.slider(key="lam").value, lab.slider(key="tau").value) == (lam, tau)


def test_apply_the_learned_gate_sets_p_and_the_gate_refitted_on_all_queries(lab):
    lab.number_input(key="vbudget").set_value(300).run()
    row = verdict_table(lab).iloc[0]
    assert row["expansion"].startswith("learned gate")
    p = float(row["expansion"].split("p ")[1].rstrip(")"))
    apply(lab)
    gate = json.loads(lab.session_state["learned_gate_json"])
    assert gate["fitted_on"]["n_queries"] == 24 and gate["fitted_on"]["k"] == row["k"]
    to_explorer(lab)
    assert lab.session_state["policy"] == "learned"
    assert lab.slider(key="p").value == pytest.approx(p)
    assert lab.slider(key="k").value == row["k"]
    assert lab.session_state["retriever"] == row["retriever"]


def test_headline_puts_recall_beside_chunks(lab):
    line = next(m.value for m in lab.markdown if "window ±1**" in m.value)
    assert "recall **" in line and "points" in line


def test_the_expected_gain_stands_beside_the_verdicts_own(lab):
    labels = {m.label: m.value for m in lab.metric}
    own = labels["Its own gain over the reference"]
    held = labels["Expected gain, the choice held out"]
    assert own.endswith(" points") and held.endswith(" points")  # 24 queries: 4 folds nest
    assert "Following this choice:" in said(lab)
