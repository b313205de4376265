"""AppTest of the verdict at the top of the Evaluation lab (built-in sample, hashing model): its
sentence, chart and table, and *Apply* for each kind of verdict — a window (retriever and k),
SCAR (λ, τ, μ) and the learned gate (p and the gate refitted on all queries) — after which the
Explorer runs at that setting."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.scoring.learned import LearnedGate
from scar_viz.views.gate_link import gate_digest
from tests.pages.helpers import alerts, go_to

APP = "../../app.py"
TIMEOUT = 180
LEADS = ("Use ", "Try ", "Keep what you have", "No candidate ")
"""How the verdict's sentence may begin (scar_viz.views.verdict_words)."""


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
    found = [a for a in alerts(at, "info") if a.startswith(LEADS)]
    assert len(found) == 1, alerts(at, "info")
    return found[0]


def details(at: AppTest) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Out of fold on "))


def apply(at: AppTest) -> None:
    at.button(key="verdict_apply").click().run()
    assert not at.exception, at.exception
    assert at.button(key="verdict_apply").disabled  # "Applied"


def to_explorer(at: AppTest) -> None:
    go_to(at, "pages/explorer.py")


def test_sentence_chart_and_table(lab):
    said(lab)
    assert details(lab).startswith("Out of fold on 24 queries (4 folds × 3 repeats)")
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
    lab.number_input(key="vbudget").set_value(220).run()  # SCAR (μ 0.5) wins at 220 tokens
    assert said(lab).startswith(("Use SCAR", "Try SCAR"))
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
    digest = gate_digest(LearnedGate.from_json(lab.session_state["learned_gate_json"]))
    assert lab.query_params["gate"] == digest  # the address names the gate in use
    to_explorer(lab)
    assert lab.session_state["policy"] == "learned"
    assert lab.slider(key="p").value == pytest.approx(p)
    assert lab.slider(key="k").value == row["k"]
    assert lab.session_state["retriever"] == row["retriever"]
    assert lab.query_params["gate"] == digest
    # the Explorer's address opened in a fresh session on the same server: the same gate
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)
    fresh.query_params.update(dict(lab.query_params.items()))
    fresh.run()
    fresh.switch_page("pages/explorer.py")
    fresh.query_params["gate"] = digest
    fresh.run()
    assert not fresh.exception, fresh.exception
    assert json.loads(fresh.session_state["learned_gate_json"]) == gate
    # Fit a gate shows the gate in use (the verdict's), its features and weights
    lab.switch_page("pages/fit_gate.py")
    lab.run()
    assert not lab.exception, lab.exception
    shown = next(c.value for c in lab.caption if c.value.startswith("In use:"))
    name = f"the verdict's learned gate {digest} ({len(gate['feature_names'])} features)"
    assert shown.startswith(f"In use: {name}")
    assert "not the one fitted above" in shown  # the page fits its own gate at its k
    tables = [df.value for df in lab.dataframe if "feature" in df.value.columns]
    assert list(tables[-1]["feature"]) == gate["feature_names"]  # the in-use one, last
    # Equal budget and the Explorer's why? box give it the same name
    lab.switch_page("pages/budget.py")
    lab.run()
    assert not lab.exception, lab.exception
    assert f"learned: {name}, p = {p:g}." in [c.value for c in lab.caption]
    to_explorer(lab)
    assert any(c.value.startswith(f"Learned gate: {name};") for c in lab.caption)


def test_headline_puts_recall_beside_chunks(lab):
    line = next(m.value for m in lab.markdown if "window ±1**" in m.value)
    assert "recall **" in line and "points" in line


def test_the_code_box_runs_the_downloaded_settings_file(lab):
    codes = {c.language: c.value for c in lab.code if "scar-viz-settings.json" in c.value}
    cli = next(c.value for c in lab.code if c.language == "bash")
    python = [c.value for c in lab.code if c.language == "python"]
    assert "bash" in codes and len(python) == 2
    assert "scar-viz select harbor_manual.md --query" in cli
    assert "--settings scar-viz-settings.json" in cli and "--model hash" in cli
    assert all(len(line) <= 100 for c in lab.code for line in c.value.splitlines())
    langchain, llamaindex = python
    assert "ScarRetriever.from_settings('scar-viz-settings.json', vectorstore=store)" in langchain
    assert "ScarRetriever.from_settings('scar-viz-settings.json', index=index)" in llamaindex
    assert "MODEL = 'hash'" in langchain and "size=600, overlap=60" in llamaindex
    words = cli.splitlines()[0]
    row = verdict_table(lab).iloc[0]
    assert words.startswith("# window ±1") and f"k = {row['k']}" in words


def test_a_link_naming_a_gate_the_server_does_not_hold_says_so(hash_model):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.switch_page("pages/compare.py")
    at.query_params["gate"] = "0123456789abcdef"
    at.run()
    assert not at.exception, at.exception
    errors = alerts(at, "error")
    assert any(
        "learned gate 0123456789abcdef, which this server does not hold" in e for e in errors
    )
    assert "learned_gate_json" not in at.session_state  # no gate put in its place


def eval_settings_after_apply(lab: AppTest, tmp_path) -> dict:
    """Apply the sample's learned-gate verdict; ``eval --settings`` of the file it downloads
    (read back from what Apply set) on the same queries: the learned policy's "all" figures."""
    from scar_viz.evaluation.settings import ChosenSettings
    from tests.integrations.helpers import SAMPLE_DOC, SAMPLE_QUERIES, cli_json

    lab.number_input(key="vbudget").set_value(300).run()
    assert verdict_table(lab).iloc[0]["expansion"].startswith("learned gate")
    apply(lab)
    s = lab.session_state
    gate = LearnedGate.from_json(s["learned_gate_json"])
    retriever = s["retriever"]
    rrf_k = float(s["rrf_k"]) if retriever == "hybrid" else 60.0
    chosen = ChosenSettings(
        retriever, "learned", s["k"], s["r"], None, None, None, float(s["learned_p"]), gate, rrf_k
    )  # what the download holds, read back from what Apply set
    path = chosen.save(tmp_path / "settings.json")
    ev = cli_json(
        "eval", str(SAMPLE_DOC), str(SAMPLE_QUERIES), "--model", "hash", "--no-cache",
        "--settings", str(path), "--boot", "0",
    )  # fmt: skip
    lab.session_state["applied_file"] = str(path)  # for the per-question checks below
    return ev["policies"]["learned"]["all"]


def test_after_apply_the_labs_learned_row_is_eval_settings_of_the_download(lab, tmp_path):
    want = eval_settings_after_apply(lab, tmp_path)
    assert any(c.value.startswith("Applied: the rows below run this setting") for c in lab.caption)
    rows = next(df.value for df in lab.dataframe if "subset" in df.value.columns)
    got = rows[(rows["policy"] == "learned") & (rows["subset"] == "all")].iloc[0]
    # eval --json writes 6 decimals
    assert got["recall"] == pytest.approx(want["recall"], abs=1e-6)
    assert got["mean chunks"] == pytest.approx(want["mean_chunks"], abs=1e-6)


def test_the_expected_gain_stands_beside_the_verdicts_own(lab):
    labels = {m.label: m.value for m in lab.metric}
    own = labels["Its own gain over the reference"]
    held = labels["Expected gain, the choice held out"]
    assert own.endswith(" points") and held.endswith(" points")  # 24 queries: 4 folds nest
    assert held in said(lab).replace(" recall points", " points")  # the lead gives it


def test_the_app_and_the_command_say_the_same_words(lab):
    """One builder (scar_viz.views.verdict_words): the app's box and caption are recommend's
    sentence and details on the same document, queries and model."""
    from tests.integrations.helpers import SAMPLE_DOC, SAMPLE_QUERIES, cli_json

    out = cli_json(
        "recommend", str(SAMPLE_DOC), str(SAMPLE_QUERIES), "--model", "hash", "--no-cache"
    )["verdict"]
    assert said(lab) == out["sentence"] and details(lab) == out["details"]
    assert len(out["sentence"].split(". ")[0].split()) <= 40


def learned_row(at: AppTest):
    rows = next(df.value for df in at.dataframe if "subset" in df.value.columns)
    return rows[(rows["policy"] == "learned") & (rows["subset"] == "all")].iloc[0]


def test_the_labs_address_after_apply_holds_the_policy_p_and_gate(lab):
    lab.number_input(key="vbudget").set_value(300).run()
    row = verdict_table(lab).iloc[0]
    assert row["expansion"].startswith("learned gate")
    p = float(row["expansion"].split("p ")[1].rstrip(")"))
    apply(lab)
    address = dict(lab.query_params.items())
    digest = gate_digest(LearnedGate.from_json(lab.session_state["learned_gate_json"]))
    assert address["policy"] == "learned" and address["gate"] == digest
    assert float(address["p"]) == pytest.approx(p)
    want = learned_row(lab)
    # the lab's address opened in a fresh session on the same server: the same learned row
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)
    fresh.switch_page("pages/evaluate.py")
    fresh.query_params.update(address)
    fresh.run()
    assert not fresh.exception, fresh.exception
    assert fresh.slider(key="k").value == row["k"]
    got = learned_row(fresh)
    assert (got["recall"], got["mean chunks"]) == pytest.approx(
        (want["recall"], want["mean chunks"]), abs=1e-9
    )
    # and the Explorer from it runs the learned gate at that p
    fresh.switch_page("pages/explorer.py")
    fresh.query_params.update(address)
    fresh.run()
    assert not fresh.exception, fresh.exception
    assert fresh.session_state["policy"] == "learned"
    assert fresh.slider(key="p").value == pytest.approx(p)


def test_a_session_file_saved_after_apply_carries_the_whole_setting(lab):
    """The file the sidebar's "Save session file" writes (its settings and work, as
    ui.share builds them) restores the verdict's gate, p and policy in a fresh session: the
    lab's learned row is the same."""
    from scar_viz.views.session import SETTING_KEYS, SavedWork, dumps
    from tests.pages.test_hostile_files import restore

    lab.number_input(key="vbudget").set_value(300).run()
    apply(lab)
    want = learned_row(lab)
    s = lab.session_state
    settings = {k: s[k] for k in SETTING_KEYS if k in s}
    assert settings["policy"] == "learned" and settings["retriever"] == s["retriever"]
    work = SavedWork("", {}, None, s["learned_gate_json"], s["p"])
    fresh = AppTest.from_file(APP, default_timeout=TIMEOUT)
    fresh.switch_page("pages/evaluate.py")
    fresh.run()
    fresh.slider(key="k").set_value(5).run()  # what the visitor had is replaced by the file
    restore(fresh, dumps(settings, None, False, work).encode())
    fresh.run()
    assert not fresh.exception, fresh.exception
    assert fresh.session_state["learned_gate_json"] == s["learned_gate_json"]
    assert fresh.query_params["gate"] == lab.query_params["gate"]
    picked = fresh.multiselect(key="pol")
    picked.set_value([*picked.value, "learned"]).run()  # the lab's list is not a setting
    got = learned_row(fresh)
    assert (got["recall"], got["mean chunks"]) == pytest.approx(
        (want["recall"], want["mean chunks"]), abs=1e-9
    )


def test_after_apply_the_sweeps_learned_point_is_eval_settings_of_the_download(lab, tmp_path):
    want = eval_settings_after_apply(lab, tmp_path)
    go_to(lab, "pages/sweep.py")  # the policy list carries "learned", which Apply added
    traces = [
        trace
        for chart in lab.get("plotly_chart")
        for trace in json.loads(chart.proto.spec)["data"]
        if trace.get("name") == "learned"
    ]
    assert len(traces) == 1, [
        t.get("name") for c in lab.get("plotly_chart") for t in json.loads(c.proto.spec)["data"]
    ]
    # eval --json writes 6 decimals
    assert traces[0]["x"][0] == pytest.approx(want["mean_chunks"], abs=1e-6)
    assert traces[0]["y"][0] == pytest.approx(want["recall"], abs=1e-6)


def test_after_apply_compares_learned_row_is_select_settings_of_the_download(lab, tmp_path):
    from tests.integrations.helpers import SAMPLE_DOC, cli_json

    eval_settings_after_apply(lab, tmp_path)
    path = lab.session_state["applied_file"]
    go_to(lab, "pages/compare.py")
    question = lab.text_input(key="q").value
    rows = next(df.value for df in lab.dataframe if "policy" in df.value.columns)
    row = rows[rows["policy"] == "learned"].iloc[0]
    out = cli_json(
        "select", str(SAMPLE_DOC), "--query", question, "--model", "hash", "--no-cache",
        "--settings", path,
    )  # fmt: skip
    assert row["label"] == f"learned (p={float(lab.session_state['p']):g})"
    assert int(row["chunks"]) == len(out["selected"])  # the table holds text


def test_after_apply_the_explorers_selection_is_select_settings_of_the_download(lab, tmp_path):
    from tests.integrations.helpers import SAMPLE_DOC, cli_json

    eval_settings_after_apply(lab, tmp_path)
    path = lab.session_state["applied_file"]
    to_explorer(lab)
    assert lab.session_state["policy"] == "learned"
    question = lab.text_input(key="q").value
    out = cli_json(
        "select", str(SAMPLE_DOC), "--query", question, "--model", "hash", "--no-cache",
        "--settings", path,
    )  # fmt: skip
    values = [m.value for m in lab.metric]
    retrieved, admitted = int(values[0]), int(values[1])
    assert retrieved == lab.slider(key="k").value
    assert retrieved + admitted == len(out["selected"])


def test_after_apply_equal_budgets_learned_point_is_eval_settings_of_the_download(lab, tmp_path):
    """Equal budget runs every policy at k = 1 … 10: its learned point at the applied k (on
    every question: the sample's 24 are fewer than it samples) is ``eval --settings`` of the
    download, and so is the chart's learned trace there."""
    want = eval_settings_after_apply(lab, tmp_path)
    k = int(lab.session_state["k"])
    go_to(lab, "pages/budget.py")
    points = next(df.value for df in lab.dataframe if "on the front" in df.value.columns)
    got = points[(points["policy"] == "learned") & (points["k"] == k)].iloc[0]
    # the table rounds to 3 decimals, eval --json to 6; the chart holds the full floats
    shown = (got["recall"], got["mean tokens"], got["mean chunks"])
    wanted = (want["recall"], want["mean_tokens"], want["mean_chunks"])
    assert shown == pytest.approx(wanted, abs=5e-4 + 1e-6)
    traces = [
        t
        for c in lab.get("plotly_chart")
        for t in json.loads(c.proto.spec)["data"]
        if t.get("name") == "learned" and t.get("customdata")
    ]
    assert len(traces) == 1, [t.get("name") for t in traces]
    at_k = [i for i, (_, k_i) in enumerate(traces[0]["customdata"]) if k_i == k]
    assert len(at_k) == 1
    x, y = traces[0]["x"][at_k[0]], traces[0]["y"][at_k[0]]
    assert (x, y) == pytest.approx((want["mean_tokens"], want["recall"]), abs=1e-6)


@pytest.mark.parametrize("page", ["pages/budget.py", "pages/compare.py", "pages/explorer.py"])
def test_a_page_running_the_applied_gate_names_it_again_in_the_address(lab, page):
    """A browser's page change keeps only the widget-bound parameters of the address, and no
    widget holds the gate (tests/browser/test_verdict_travels.py found the Explorer's link
    without it): each page that runs the session's gate writes its name back."""
    lab.number_input(key="vbudget").set_value(300).run()
    apply(lab)
    digest = lab.query_params["gate"]
    del lab.query_params["gate"]  # what the browser sends after a page change
    go_to(lab, page)
    assert lab.query_params.get("gate") == digest


def test_a_large_query_set_waits_for_the_click_and_the_lab_opens_first(hash_model, monkeypatch):
    import ui.cache
    import ui.verdict

    ui.cache.clear()  # an earlier test's verdict on the sample is not kept
    # the sample's 24 questions stand for a large set: the bar is moved below them
    monkeypatch.setattr(ui.verdict, "AUTO_QUESTIONS", 20)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    go_to(at, "pages/evaluate.py")
    assert not at.exception, at.exception
    run = at.button(key="verdict_run")
    assert run.label.startswith("Run the verdict on these 24 questions (about ")
    assert not [a for a in alerts(at, "info") if a.startswith(LEADS)]  # no verdict yet
    assert any(df.value.columns[0] == "policy" for df in at.dataframe)  # the metrics are there
    run.click().run()
    assert not at.exception, at.exception
    said(at)
    apply(at)  # a rerun after the click finds the verdict kept: no button, the same verdict
    said(at)
    assert not [b for b in at.button if b.key == "verdict_run"]
