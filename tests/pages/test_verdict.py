"""AppTest of the verdict at the top of the Evaluation lab (built-in sample, hashing model):
its sentence and table, and *Apply*, after which the Explorer's sliders hold the tuned k, λ, τ."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.helpers import alerts

APP = "../../app.py"
TIMEOUT = 120


@pytest.fixture
def lab(hash_model) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.switch_page("pages/evaluate.py")
    at.run()
    assert not at.exception, at.exception
    return at


def verdict_table(at: AppTest):
    return next(df.value for df in at.dataframe if "k" in df.value.columns)


def test_verdict_sentence_table_and_apply_reach_the_explorer(lab):
    said = [a for a in alerts(lab, "info") if a.startswith(("Keep the window", "Use "))]
    assert len(said) == 1
    table = verdict_table(lab)
    assert list(table["policy"])[:2] == ["SCAR", "window ±1"]
    k = int(table["k"].iloc[0])
    lab.slider(key="mu").set_value(
        0.5
    ).run()  # the verdict tunes the paper's gate: Apply sets μ = 0
    button = lab.button(key="verdict_apply")
    label = button.help
    assert f"k = {k}, λ = " in label
    lam = float(label.split("λ = ")[1].split(",")[0])
    tau = float(label.split("τ = ")[1].rstrip("."))
    button.click().run()
    assert not lab.exception, lab.exception
    assert (lab.slider(key="k").value, lab.slider(key="lam").value) == (k, lam)
    assert lab.slider(key="tau").value == pytest.approx(tau)
    assert lab.slider(key="mu").value == 0.0
    assert lab.button(key="verdict_apply").disabled  # "Applied"
    lab.switch_page("pages/explorer.py")
    lab.run()
    assert not lab.exception, lab.exception
    assert lab.slider(key="k").value == k
    assert lab.slider(key="lam").value == pytest.approx(lam)
    assert lab.slider(key="tau").value == pytest.approx(tau)


def test_headline_puts_recall_beside_chunks(lab):
    line = next(m.value for m in lab.markdown if "SCAR against window ±1" in m.value)
    assert "chunks **" in line and "recall **" in line and "points" in line
