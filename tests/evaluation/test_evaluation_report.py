"""scar_viz.evaluation.report: the Evaluation lab's tables, built from one evaluation."""

from __future__ import annotations

import pytest

from scar_viz.evaluation import evaluate, significance
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.report import (
    chunk_sentence,
    chunker_rows,
    issue_rows,
    miss_reason_rows,
    per_query_rows,
    reduction,
    significance_lines,
    significance_rows,
    summary_lines,
    summary_rows,
    transfer_rows,
    tune_rows,
)
from scar_viz.evaluation.tune import GridPoint, TuneCheck
from scar_viz.scoring.params import GateParams
from tests.evaluation_sample import hash_sample


@pytest.fixture(scope="module")
def ev():
    prep, labelled, vecs, _, qset = hash_sample()
    return evaluate(
        LabelledRun(prep, labelled, vecs), ["topk", "window1", "scar"], GateParams(3, 0.5, 0.1, 1),
        issues=qset.issues,
    )  # fmt: skip


def test_summary_rows_one_per_policy_and_subset(ev):
    rows = summary_rows(ev)
    subsets = [r["subset"] for r in rows if r["policy"] == "scar"]
    assert subsets == ["all", "fragmented", "atomic"]  # no scattered query in the sample
    scar = next(r for r in rows if r["policy"] == "scar" and r["subset"] == "all")
    s = ev.policies["scar"].summaries["all"]
    assert (scar["recall"], scar["mean chunks"], scar["n"]) == (s.recall, s.mean_chunks, s.n)
    assert all(r["model"] == "m" for r in summary_rows(ev, model="m"))
    lines = summary_lines(ev)
    assert lines[0].split() == ["policy", "subset", "n", "recall", "chunks", "effic.", "tokens"]
    assert len(lines) == 1 + len(rows)
    assert f"{s.recall:.3f}" in next(x for x in lines if x.startswith("scar") and " all " in x)


def test_per_query_rows_show_gold_selection_and_misses(ev):
    rows = per_query_rows(ev, "topk")
    assert [r["id"] for r in rows] == [q.id for q in ev.queries]
    for row, q, o in zip(rows, ev.queries, ev.policies["topk"].outcomes, strict=True):
        assert row["gold"] == ", ".join(map(str, q.gold))
        assert row["selected"] == ", ".join(map(str, o.selected))
        assert row["missed → why"].count(":") == len(o.misses)


def test_miss_reasons_count_every_miss(ev):
    rows = miss_reason_rows(ev)
    assert [r["policy"] for r in rows] == ["topk", "window1", "scar"]
    for row in rows:
        misses = sum(len(o.misses) for o in ev.policies[row["policy"]].outcomes)
        assert sum(v for k, v in row.items() if k != "policy") == misses
    topk = rows[0]
    assert topk["not expanded"] > 0 and rows[1]["not expanded"] == 0  # windows relabel it


def test_significance_rows_and_lines(ev):
    tests = significance(ev, n_boot=200)
    rows = significance_rows(tests)
    assert len(rows) == len(tests) == 2 * 3
    assert rows[0]["SCAR vs"] == "topk" and rows[0]["mean diff"] == tests[0].result.mean_diff
    assert significance_lines(tests)[0].startswith(f"scar − topk {tests[0].metric}: ")


def test_chunk_sentence_and_reduction(ev):
    text = chunk_sentence(ev)
    scar = ev.policies["scar"].summaries["all"].mean_chunks
    win = ev.policies["window1"].summaries["all"].mean_chunks
    assert reduction(ev, "scar", "window1") == pytest.approx(100 * (win - scar) / win)
    word = "fewer" if scar < win else "more"
    assert text.startswith("SCAR: **") and f"% {word} chunks than window ±1**" in text
    assert "-0%" not in text and "−" not in text.split("recall")[0]  # a change, never "−30% of"
    assert "recall **" in text and "points" in text
    assert chunk_sentence(ev, baseline="window2") == ""  # window2 did not run
    assert "**the same chunks as scar**" in chunk_sentence(ev, "scar", "scar")


def test_transfer_rows_pair_the_policies(ev):
    prep, labelled, vecs, _, _ = hash_sample(64)  # a second "model": other vectors
    ev2 = evaluate(LabelledRun(prep, labelled, vecs), ["scar", "topk"], GateParams(3, 0.5, 0.1, 1))
    rows = transfer_rows(ev, ev2)
    assert [r["policy"] for r in rows] == ["topk", "scar"]  # window1 did not run on model 2
    for row in rows:
        a = ev.policies[row["policy"]].summaries["all"]
        b = ev2.policies[row["policy"]].summaries["all"]
        assert (row["recall · 1"], row["chunks · 1"], row["efficiency · 1"]) == (
            a.recall,
            a.mean_chunks,
            a.efficiency,
        )
        assert (row["recall · 2"], row["chunks · 2"], row["efficiency · 2"]) == (
            b.recall,
            b.mean_chunks,
            b.efficiency,
        )
    assert any(r["recall · 1"] != r["recall · 2"] for r in rows)  # the models do differ


def test_chunker_rows_gain_over_topk(ev):
    (row,) = chunker_rows({"recursive": ev})
    scar, top = ev.policies["scar"].summaries["all"], ev.policies["topk"].summaries["all"]
    assert row["SCAR recall gain over top-k"] == scar.recall - top.recall
    assert row["chunks in document"] == ev.settings.n_chunks


def test_tune_rows_and_issue_rows(ev):
    p = GridPoint(0.5, 0.1, 0.8, 4.0, 0.2)
    q = GridPoint(0.1, 0.8, 0.7, 3.5, 0.2)
    rows = tune_rows(TuneCheck("recall", p, q, p, q, p), "A", "B")
    assert [r["set"] for r in rows] == ["A", "B", "B", "A", "B"]
    assert rows[1]["λ"] == 0.1 and rows[1]["recall"] == 0.7
    assert len(issue_rows(ev.issues)) == len(ev.issues)
