"""The per-file breakdown of a corpus evaluation (scar_viz.evaluation.by_file)."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.documents import samples
from scar_viz.embeddings import make_embedder
from scar_viz.evaluation.best_point import window_per_query
from scar_viz.evaluation.by_file import (
    SEVERAL_FILES,
    curve_file_rows,
    file_groups,
    file_rows,
    grouped_rows,
    paired_file_rows,
    policy_file_rows,
    query_file,
    sweep_file_rows,
)
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.learned import fit_gate_on, p_curve_on
from scar_viz.evaluation.run import candidates_for, evaluate
from scar_viz.pipeline import embed_query, prepare_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import parse_queries
from scar_viz.scoring.params import GateParams
from tests.evaluation_sample import labelled_sample


def test_query_file():
    assert query_file((("a.md", 3), ("a.md", 4))) == "a.md"
    assert query_file((("a.md", 3), ("b.md", 0))) == SEVERAL_FILES


@pytest.fixture(scope="module")
def corpus_eval():
    prep, gold, vecs, _ = labelled_sample("kestrel")
    return evaluate(LabelledRun(prep, gold, vecs), ["topk", "window1", "scar"])


def test_rows_average_each_files_queries(corpus_eval):
    rows = file_rows(corpus_eval)
    assert sum(r["queries"] for r in rows) == corpus_eval.n_queries
    assert rows[-1]["file"] == SEVERAL_FILES  # the sample corpus has evidence across files
    files = [r["file"] for r in rows[:-1]]
    assert files == sorted(files)
    for row in rows:
        idx = [
            i for i, g in enumerate(corpus_eval.queries) if query_file(g.gold_refs) == row["file"]
        ]
        for name in ("topk", "window1", "scar"):
            outcomes = corpus_eval.policies[name].outcomes
            assert row[f"{name} recall"] == pytest.approx(
                np.mean([outcomes[i].recall for i in idx])
            )
            assert row[f"{name} chunks"] == pytest.approx(
                np.mean([outcomes[i].chunks for i in idx])
            )


def test_a_single_document_has_no_breakdown():
    doc = samples.load_sample()
    embedder = make_embedder("hash")
    prep = prepare_document(doc, embedder)
    gold = label_queries(parse_queries(samples.sample_queries_text(), doc), doc, prep.chunks)[:4]
    vecs = np.stack([embed_query(embedder, g.query.query) for g in gold])
    assert file_rows(evaluate(LabelledRun(prep, gold, vecs), ["topk"])) == []


# --- the shared grouping -----------------------------------------------------------------------


def test_grouped_rows_leave_unscored_queries_out_of_the_mean(corpus_eval):
    queries = corpus_eval.queries
    groups = file_groups(queries)
    at, (path, idx) = next((i, g) for i, g in enumerate(groups) if len(g[1]) > 1)
    values: list[float | None] = [float(i) for i in range(len(queries))]
    values[idx[0]] = None  # not scored
    unscored = [float("nan")] * len(queries)
    rows = grouped_rows(queries, {"v": values, "none": unscored})
    assert [r["file"] for r in rows] == [g[0] for g in groups]
    assert rows[at]["file"] == path and rows[at]["queries"] == len(idx)
    assert rows[at]["v"] == pytest.approx(np.mean(idx[1:]))
    assert all(np.isnan(r["none"]) for r in rows)
    with pytest.raises(ValueError, match="values of 'v'"):
        grouped_rows(queries, {"v": values[:-1]})


def test_policy_rows_are_one_per_file_and_policy(corpus_eval):
    rows = policy_file_rows(
        corpus_eval.queries,
        {name: {"recall": [o.recall for o in corpus_eval.policies[name].outcomes]}
         for name in ("topk", "scar")},
    )  # fmt: skip
    wide = {r["file"]: r for r in file_rows(corpus_eval)}
    assert len(rows) == 2 * len(wide)
    for row in rows:
        assert row["recall"] == pytest.approx(wide[row["file"]][f"{row['policy']} recall"])


@pytest.fixture(scope="module")
def corpus_setting():
    corpus = samples.load_sample("kestrel")
    embedder = make_embedder("hash")
    prep = prepare_document(corpus, embedder)
    gold = label_queries(
        parse_queries(samples.sample_queries_text("kestrel"), corpus), corpus, prep.chunks
    )
    vecs = np.stack([embed_query(embedder, g.query.query) for g in gold])
    return prep, gold, vecs


def _by_file(rows):
    return {r["file"]: r for r in rows}


def test_sweep_rows_agree_with_running_the_policies(corpus_setting):
    prep, gold, vecs = corpus_setting
    params = GateParams(k=3, lam=0.3, tau=0.6, radius=1)
    cands = candidates_for(LabelledRun(prep, gold, vecs), params.k, params.radius)
    got = _by_file(sweep_file_rows(gold, cands, params.lam, params.tau))
    want = _by_file(file_rows(evaluate(LabelledRun(prep, gold, vecs), ["window1", "scar"], params)))
    assert got.keys() == want.keys() and len(got) > 2
    for path, row in want.items():
        for column in ("window1 recall", "window1 chunks", "scar recall", "scar chunks"):
            assert got[path][column] == pytest.approx(row[column]), (path, column)
    # another cell gives other figures for SCAR, the same for window ±1
    loose = _by_file(sweep_file_rows(gold, cands, 0.0, 0.0))
    assert sum(r["scar chunks"] for r in loose.values()) > sum(
        r["scar chunks"] for r in got.values()
    )
    assert all(loose[p]["window1 chunks"] == got[p]["window1 chunks"] for p in got)


def test_curve_rows_agree_with_the_learned_policy(corpus_setting):
    prep, gold, vecs = corpus_setting
    k, radius = 3, 1
    gate = fit_gate_on(LabelledRun(prep, gold, vecs), k, radius=radius)
    curve = p_curve_on(LabelledRun(prep, gold, vecs), gate, k, radius)
    p = float(curve.ps[len(curve.ps) // 3])
    window = window_per_query(candidates_for(LabelledRun(prep, gold, vecs), k, radius))
    got = _by_file(curve_file_rows(gold, curve, p, window))
    ev = evaluate(
        LabelledRun(prep, gold, vecs),
        ["window1", "learned"],
        GateParams(k=k, radius=radius),
        knobs={"learned": {"gate": gate, "p": p}},
    )
    want = _by_file(file_rows(ev))
    assert got.keys() == want.keys()
    for path, row in want.items():
        for column in row:
            if column != "file":
                assert got[path][column] == pytest.approx(row[column]), (path, column)


def test_paired_rows_set_two_evaluations_side_by_side(corpus_setting):
    prep, gold, vecs = corpus_setting
    a = evaluate(LabelledRun(prep, gold, vecs), ["topk", "scar"], GateParams(k=2))
    b = evaluate(LabelledRun(prep, gold, vecs), ["topk", "scar"], GateParams(k=4))
    rows = paired_file_rows({"1": a, "2": b})
    wide_a, wide_b = _by_file(file_rows(a)), _by_file(file_rows(b))
    assert len(rows) == 2 * len(wide_a)
    assert list(rows[0]) == ["file", "policy", "queries", "recall · 1", "recall · 2",
                             "chunks · 1", "chunks · 2"]  # fmt: skip
    for row in rows:
        name = row["policy"]
        assert row["chunks · 1"] == pytest.approx(wide_a[row["file"]][f"{name} chunks"])
        assert row["chunks · 2"] == pytest.approx(wide_b[row["file"]][f"{name} chunks"])
        assert row["recall · 2"] == pytest.approx(wide_b[row["file"]][f"{name} recall"])
    topk = [r for r in rows if r["policy"] == "topk"]
    assert all(r["chunks · 1"] == 2 and r["chunks · 2"] == 4 for r in topk)
    with pytest.raises(ValueError, match="same queries"):
        paired_file_rows({"1": a, "2": evaluate(LabelledRun(prep, gold[:3], vecs[:3]), ["topk"])})


def test_a_single_document_has_no_rows_on_any_page():
    doc = samples.load_sample()
    embedder = make_embedder("hash")
    prep = prepare_document(doc, embedder)
    gold = label_queries(parse_queries(samples.sample_queries_text(), doc), doc, prep.chunks)[:4]
    vecs = np.stack([embed_query(embedder, g.query.query) for g in gold])
    cands = candidates_for(LabelledRun(prep, gold, vecs), 3, 1)
    assert file_groups(gold) == []
    assert sweep_file_rows(gold, cands, 0.3, 0.6) == []
    ev = evaluate(LabelledRun(prep, gold, vecs), ["topk"])
    assert paired_file_rows({"1": ev, "2": ev}) == []
    assert grouped_rows(gold, {"v": [1.0] * len(gold)}) == []
