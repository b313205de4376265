"""The Compare page's core: policy knobs, labels, the cost table, evidence lookup, the diff
and the learned gate's "why?" options."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.qasc import QascParams
from scar_viz.common.edges import one_file
from scar_viz.common.fmt import EMPTY_CELL
from scar_viz.documents.reading import document_from_text
from scar_viz.policies import ALL_ORDER, PolicyResult, policy_knobs
from scar_viz.queries.reading import parse_queries
from scar_viz.scoring.learned import LearnedGate, learned_select
from scar_viz.scoring.params import GateParams
from scar_viz.views import compare
from scar_viz.views.compare_settings import CompareSettings

TEXT = "alpha beta.\n\ngamma delta.\n\nepsilon zeta.\n\neta theta."
#       0          11  13          25  27           40  42


def result(name: str, spans, chunk_ids=None) -> PolicyResult:
    chars = sum(e - s for s, e in spans)
    return PolicyResult(name, tuple(spans), chunk_ids, "x" * chars, chars, chars // 4, 0.001)


def test_rerank_only_when_a_cross_encoder_loads():
    knobs = CompareSettings(reranker="/some/folder")
    without = compare.policy_settings(knobs, rerank_ok=False)
    with_ = compare.policy_settings(knobs, rerank_ok=True)
    assert "rerank" not in without and without["rse"]["reranker"] == ""
    assert list(with_) == list(ALL_ORDER)
    assert with_["rse"]["reranker"] == "/some/folder"
    assert list(without) == [n for n in ALL_ORDER if n != "rerank"]


def test_every_setting_is_a_knob_its_policy_takes():
    knobs = CompareSettings(qasc=QascParams(window_m=4), all_windows=True, p=0.2, sentence_w=5)
    settings = compare.policy_settings(knobs, rerank_ok=True)
    for name, values in settings.items():
        assert set(values) <= set(policy_knobs(name)), name
    assert settings["qasc"]["all_windows"] is True and settings["qasc"]["window_m"] == 4
    assert "max_seeds" not in settings["qasc-hybrid"]
    assert settings["learned"] == {"gate": None, "p": 0.2}
    assert settings["sentence-window"] == {"w": 5}


def test_labels_name_the_knobs_that_matter():
    labels = compare.policy_labels(CompareSettings(w=2, all_windows=True, p=0.1), GateParams(k=5))
    assert labels["topk"] == "topk (k=5)" and labels["window"] == "window ±2"
    assert labels["qasc"].endswith("all windows") and labels["learned"] == "learned (p=0.1)"
    assert set(labels) == set(ALL_ORDER)


def test_cost_rows_count_runs_mark_evidence_and_show_no_none():
    results = {
        "topk": result("topk", [(0, 11), (13, 25)], (0, 1)),  # one run: only a blank line between
        "scar": result("scar", [(0, 11), (27, 40)], (0, 2)),  # two runs
        "rerank": "cannot be loaded offline",
    }
    labels = {"topk": "topk (k=2)", "scar": "scar (r=1)"}
    rows = compare.cost_rows(results, TEXT, labels, evidence=[(13, 25)])
    by = {r["policy"]: r for r in rows}
    assert by["topk"]["spans"] == "1" or by["topk"]["spans"] == 1
    assert str(by["scar"]["spans"]) == "2"
    assert by["topk"][compare.COVERS] == "full" and by["scar"][compare.COVERS] == "none"
    assert by["rerank"][compare.COVERS] == EMPTY_CELL and by["rerank"]["label"] == "rerank"
    assert all(v is not None for r in rows for v in r.values())
    assert list(rows[0])[:4] == ["label", "policy", "spans", compare.COVERS]


def test_cost_rows_without_evidence_have_no_evidence_column():
    rows = compare.cost_rows({"scar": result("scar", [(0, 11)], (0,))}, TEXT, {"scar": "scar"})
    assert (
        compare.COVERS not in rows[0]
        and rows[0]["spans"] == 1
        and rows[0]["jaccard vs scar"] == 1.0
    )


def test_partial_evidence_is_a_share():
    rows = compare.cost_rows(
        {"topk": result("topk", [(13, 18)], (1,))}, TEXT, {}, evidence=[(13, 25)]
    )
    assert rows[0][compare.COVERS].startswith("partial (")


def test_split_notes_moves_long_notes_out_of_the_table():
    rows = [
        {"label": "qasc m=2", "ms": 3.0, "notes": "248 sentences; " * 20},
        {"label": "topk (k=3)", "ms": 1.0, "notes": ""},
        {"label": "rerank", "ms": EMPTY_CELL, "notes": EMPTY_CELL},
    ]
    table, notes = compare.split_notes(rows)
    assert all("notes" not in r for r in table) and [r["label"] for r in table][0] == "qasc m=2"
    assert notes == [("qasc m=2", "248 sentences; " * 20)]
    assert "notes" in rows[0]  # the rows given are left as they were


def test_uniform_columns_make_a_mixed_column_text():
    rows = compare.uniform_columns([{"a": 1, "b": "x"}, {"a": EMPTY_CELL, "b": "y"}])
    assert [r["a"] for r in rows] == ["1", EMPTY_CELL]
    assert compare.uniform_columns([{"a": 1}, {"a": 2}]) == [{"a": 1}, {"a": 2}]


def test_diff_with_scar():
    d = compare.diff_with_scar(result("window", [(0, 25)]), result("scar", [(13, 40)]))
    assert d.only_theirs == ((0, 13),) and d.only_scar == ((25, 40),)
    assert (d.theirs_chars, d.scar_chars) == (13, 15)


def test_find_evidence_matches_ignoring_case_and_spaces():
    jsonl = (
        '{"id": "a", "query": "What  is Gamma?", "evidence": '
        '[{"text": "gamma delta.", "start": 13, "end": 25}]}\n'
    )
    qset = parse_queries(jsonl, document_from_text("t.txt", TEXT), "x")
    assert compare.find_evidence("what is gamma? ", [qset]) == ((13, 25),)
    assert compare.find_evidence("what is delta?", [qset]) == ()
    assert compare.find_evidence("anything", []) == ()


def test_why_options_list_the_gate_decisions():
    rng = np.random.default_rng(3)
    unit = rng.normal(size=(12, 6))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    sims = unit @ unit[5]
    sel = learned_select(
        sims, unit, 2, LearnedGate.scar(0.5, 0.1), p=0.5, radius=1, doc_of=one_file(len(unit))
    )
    options = compare.why_options(sel)
    judged = [d for d in sel.decisions if d.outcome != "retrieved"]
    assert len(options) == len(judged) > 0
    label, decision = next(iter(options.items()))
    assert label.startswith(f"chunk {decision.neighbour} (") and decision.outcome in label
    table = compare.why_table(decision)
    assert table[-1]["term"] == "intercept" and table[-1]["value"] == EMPTY_CELL
    assert sum(float(r["contribution"]) for r in table) == pytest.approx(decision.score, abs=5e-3)
    assert compare.why_options(None) == {} and compare.why_options(object()) == {}


def test_qasc_steps_summarise_and_list_the_windows():
    from types import SimpleNamespace

    from scar_viz.chunking.qasc import ScoredWindow
    from scar_viz.views.compare import qasc_steps

    detail = SimpleNamespace(
        threshold=0.25,
        seeds=(3, 9),
        keep_bar=0.15,
        windows=(ScoredWindow(3, 1, 5, 0.31234, True), ScoredWindow(9, 8, 10, 0.1, False)),
        merged=((1, 5),),
        chosen=((1, 5),),
    )
    summary, rows = qasc_steps(detail, 75)
    assert summary.startswith("θ = 0.250 (p75); 2 seeds")
    assert "1 of 2 windows kept; 1 after merging; 1 sent." in summary
    assert rows[0] == {"seed": 3, "first": 1, "last": 5, "W": 0.312, "kept": True}
    assert qasc_steps(None, 75) == ("", [])


def test_hit_files_are_the_hits_files_in_their_order_and_the_rest_are_counted():
    parts = [("a.md", 0, 100), ("b.md", 100, 200), ("c.md", 200, 300), ("d.md", 300, 400)]
    files, more = compare.hit_files(parts, [(250, 260), (10, 20)], [[(110, 120)], None])
    assert [f[0] for f in files] == ["c.md", "a.md"] and more == 1  # b.md: not a hit's file
    files, more = compare.hit_files(parts, [(250, 260), (10, 20)], [[(0, 400)]], limit=1)
    assert [f[0] for f in files] == ["c.md"] and more == 3
    files, more = compare.hit_files(parts, [], [[(110, 120)]])  # no hits: the spans' files
    assert [f[0] for f in files] == ["b.md"] and more == 0
