"""The Fit-a-gate page's core: halves, fitting on the tune half, SCAR's front and baselines,
and reading a picked chart point back as p."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.documents import samples
from scar_viz.embeddings import make_embedder
from scar_viz.evaluation import candidates_for
from scar_viz.evaluation.best_point import window_baseline
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.pipeline import embed_query, prepare_document
from scar_viz.queries.gold import label_queries, split_alternate
from scar_viz.queries.reading import parse_queries
from scar_viz.views.fit_report import (
    curve_options,
    fit_report,
    half_rows,
    halves,
    held_out_file_rows,
    picked_p,
    scar_front,
)
from tests.evaluation_sample import hash_sample


@pytest.fixture(scope="module")
def sample_setup():
    prep, labelled, vecs, _, _ = hash_sample()
    return prep, labelled, vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def test_halves_keep_matching_vector_rows(sample_setup):
    _, labelled, vecs = sample_setup
    (whole,) = halves(labelled, vecs, "all")
    assert len(whole.queries) == len(labelled)
    tune, check = halves(labelled, vecs, "tune")
    assert (tune.queries, check.queries) == split_alternate(labelled)
    for half in (tune, check):
        for q, v in zip(half.queries, half.vecs, strict=True):
            assert np.allclose(v, vecs[labelled.index(q)])
    with pytest.raises(ValueError):
        halves(labelled, vecs, "nope")


def test_fitting_on_the_tune_half_reports_both_halves(sample_setup):
    prep, labelled, vecs = sample_setup
    full = fit_report(prep, labelled, vecs, k=4)
    tune = fit_report(prep, labelled, vecs, k=4, on="tune")
    assert [h.name for h in full.parts] == ["all"] and full.shown.name == "all"
    assert [h.name for h in tune.parts] == ["tune", "check"] and tune.shown.name == "check"
    assert full.shown.label == f"all {len(labelled)} queries"
    assert tune.shown.label == f"the check half ({len(tune.shown.queries)} queries)"
    assert not np.allclose(full.gate.weights, tune.gate.weights)
    assert tune.gate.fitted_on["n_queries"] == len(tune.parts[0].queries) < len(labelled)
    rows = half_rows(tune, 0.04)
    assert [r["part"] for r in rows] == ["tune (fitted on: in sample)", "check (held out)"]
    assert sum(r["queries"] for r in rows) == len(labelled)
    check = tune.curves["check"]
    i = check.nearest(0.04)
    assert rows[1]["recall"] == check.recall[i] and rows[1]["p"] == check.ps[i]


def test_scar_front_has_presets_and_baselines(sample_setup):
    prep, labelled, vecs = sample_setup
    front = scar_front(prep, labelled, vecs, k=3)
    names = [p[0] for p in front.points]
    assert names == ["preset A", "preset B", "top-k", "window ±1"]
    cands = candidates_for(LabelledRun(prep, labelled, vecs), 3)
    win = window_baseline(cands)
    assert front.points[3][1:] == (win.mean_chunks, win.recall)
    assert front.points[2][1] == 3.0  # top-k sends k chunks
    topk_recall = front.points[2][2]
    assert topk_recall <= win.recall and front.grid.recall.min() >= topk_recall - 1e-12
    assert len(front.frontier) >= 1


def test_picked_p_reads_only_the_curve_trace():
    state = {"selection": {"points": [
        {"curve_number": 1, "customdata": [0.5, 0.2, 7]},
        {"curve_number": 4, "customdata": [0.031, 12]},
    ]}}  # fmt: skip
    assert picked_p(state, 4) == pytest.approx(0.031)
    assert picked_p(state, 2) is None
    assert picked_p(None, 4) is None and picked_p({"selection": {}}, 4) is None
    # a typed array arrives as an object keyed "0", "1" (seen in Chromium)
    typed = {"selection": {"points": [{"curve_number": 4, "customdata": {"0": 0.2, "1": 3}}]}}
    assert picked_p(typed, 4) == pytest.approx(0.2)
    junk = {"selection": {"points": [{"curve_number": 4, "customdata": {"x": "y"}}]}}
    assert picked_p(junk, 4) is None


def test_curve_options_follow_the_curve(sample_setup):
    prep, labelled, vecs = sample_setup
    curve = fit_report(prep, labelled, vecs, k=3).curves["all"]
    options = curve_options(curve)
    assert len(options) == len(curve.ps)
    assert options[0] == (curve.ps[0], curve.recall[0], curve.mean_chunks[0])


def test_held_out_rows_by_file_on_a_corpus_only(sample_setup):
    prep, labelled, vecs = sample_setup
    one = fit_report(prep, labelled, vecs, k=3, on="tune")
    assert (
        held_out_file_rows(one, scar_front(prep, one.shown.queries, one.shown.vecs, 3), 0.1) == []
    )
    corpus = samples.load_sample("kestrel")
    embedder = make_embedder("hash")
    cprep = prepare_document(corpus, embedder)
    gold = label_queries(
        parse_queries(samples.sample_queries_text("kestrel"), corpus), corpus, cprep.chunks
    )
    cvecs = np.stack([embed_query(embedder, g.query.query) for g in gold])
    report = fit_report(cprep, gold, cvecs, k=3, on="tune")
    shown = report.shown
    front = scar_front(cprep, shown.queries, shown.vecs, 3)
    rows = held_out_file_rows(report, front, 0.1)
    assert sum(r["queries"] for r in rows) == len(shown.queries) < len(gold)
    assert {"window1 recall", "window1 chunks", "learned recall", "learned chunks"} <= set(rows[0])
    # weighted by each file's queries, the rows give back the held-out half's figures
    curve = report.curves[shown.name]
    i = curve.nearest(0.1)
    weighted = sum(r["queries"] * r["learned chunks"] for r in rows) / len(shown.queries)
    assert weighted == pytest.approx(curve.mean_chunks[i])
    window = dict((p[0], p[1:]) for p in front.points)["window ±1"]
    weighted = sum(r["queries"] * r["window1 recall"] for r in rows) / len(shown.queries)
    assert weighted == pytest.approx(window[1])


def test_the_headline_is_never_in_sample_when_a_held_out_curve_exists(sample_setup):
    prep, labelled, vecs = sample_setup
    full = fit_report(prep, labelled, vecs, k=4)
    label, curve = full.headline
    assert "cross-validated" in label and curve is full.crossval
    assert full.in_sample is full.curves["all"] and full.crossval_note == ""
    # in sample is never below the cross-validated curve on average: fitting flatters it
    assert full.in_sample.recall.mean() >= full.crossval.recall.mean() - 0.02
    tune = fit_report(prep, labelled, vecs, k=4, on="tune")
    assert tune.headline == ("learned gate on the check half (held out)", tune.curves["check"])
    assert tune.in_sample is None and tune.crossval is None
    few = fit_report(prep, labelled[:8], vecs[:8], k=4)
    label, curve = few.headline
    assert label.startswith("learned gate, in sample") and curve is few.curves["all"]
    assert few.in_sample is None and "Not cross-validated" in few.crossval_note
    lexical = fit_report(prep, labelled, vecs, k=4, features="lexical")
    assert lexical.gate.uses_lexical and lexical.crossval is not None
