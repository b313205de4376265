"""Evaluating a query set through policies, the JSON shape, significance, bar transfer."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scar_viz.common.edges import one_file
from scar_viz.embeddings import HashEmbedder, embed_cached
from scar_viz.evaluation import (
    bar_transfer,
    candidates_for,
    default_policies,
    evaluate,
    evaluation_json,
    parse_policy_list,
    resolve_policy,
    significance,
)
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.metrics import chunk_recall
from scar_viz.pipeline import prepare_document
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import select_from_sims, top_k, window
from scar_viz.scoring.sweep import sweep
from tests.evaluation_sample import hash_sample


@pytest.fixture(scope="module")
def sample_setup():
    return hash_sample()[:4]


def test_policy_names_resolve():
    assert resolve_policy("window2") == ("window", {"w": 2})
    assert resolve_policy("scar") == ("scar", {})
    assert parse_policy_list(["topk,scar", "scar", "window1"]) == ("topk", "scar", "window1")
    assert set(("topk", "window1", "window2", "scar")) <= set(default_policies())
    with pytest.raises(ValueError, match="Unknown policy"):
        parse_policy_list("topk,bogus")


def test_metrics_match_a_direct_computation(sample_setup):
    prep, labelled, vecs, _ = sample_setup
    ev = evaluate(
        LabelledRun(prep, labelled, vecs),
        ["topk", "window1", "scar"],
        GateParams(k=3, lam=0.5, tau=0.1),
    )
    assert ev.n_queries == len(labelled) and ev.n_fragmented == sum(q.fragmented for q in labelled)
    expected = {"topk": [], "window1": [], "scar": []}
    for q, v in zip(labelled, vecs, strict=True):
        sims = prep.unit @ v
        ret = top_k(sims, 3)
        expected["topk"].append((chunk_recall(q.gold, ret), len(ret)))
        w = window(ret, len(prep.chunks), 1, doc_of=one_file(len(prep.chunks)))
        expected["window1"].append((chunk_recall(q.gold, w), len(w)))
        sel = select_from_sims(
            sims, prep.unit, GateParams(3, 0.5, 0.1, 1), doc_of=one_file(len(prep.unit))
        ).selected
        expected["scar"].append((chunk_recall(q.gold, sel), len(sel)))
    for name, rows in expected.items():
        s = ev.policies[name].summaries["all"]
        assert s.recall == pytest.approx(np.mean([r for r, _ in rows]))
        assert s.mean_chunks == pytest.approx(np.mean([c for _, c in rows]))
        assert s.efficiency == pytest.approx(s.recall / s.mean_chunks)
        frag = [r for (r, _), q in zip(rows, labelled, strict=True) if q.fragmented]
        assert ev.policies[name].summaries["fragmented"].recall == pytest.approx(np.mean(frag))
    # window ±1 always contains SCAR's r = 1 selection
    assert (
        ev.policies["window1"].summaries["all"].recall
        >= ev.policies["scar"].summaries["all"].recall
    )


def test_miss_reasons_are_consistent_with_the_selection(sample_setup):
    prep, labelled, vecs, _ = sample_setup
    ev = evaluate(
        LabelledRun(prep, labelled, vecs), ["topk", "scar"], GateParams(k=2, lam=1.0, tau=0.6)
    )
    for pe in ev.policies.values():
        for o in pe.outcomes:
            missed = sorted(set(o.gold) - set(o.selected))
            assert [m.chunk for m in o.misses] == missed
    reasons = {m.reason for o in ev.policies["scar"].outcomes for m in o.misses}
    assert reasons & {"never reached", "blocked by relevance", "blocked by penalty"}


def test_json_shape(sample_setup):
    prep, labelled, vecs, _ = sample_setup
    ev = evaluate(
        LabelledRun(prep, labelled, vecs), ["topk", "window1", "window2", "scar"], GateParams(k=3)
    )
    out = json.loads(json.dumps(evaluation_json(ev, significance(ev, n_boot=200))))
    assert out["n_queries"] == len(labelled)
    for name in ("topk", "window1", "window2", "scar"):
        for subset in ("all", "fragmented", "atomic"):
            entry = out["policies"][name][subset]
            assert set(entry) >= {"recall", "mean_chunks", "efficiency", "mean_tokens"}
            assert 0.0 <= entry["recall"] <= 1.0
    assert out["policies"]["topk"]["all"]["mean_chunks"] == pytest.approx(3.0)
    assert {s["baseline"] for s in out["significance"]} == {"topk", "window1", "window2"}
    assert len(out["queries"]) == len(labelled)


def test_a_policy_that_cannot_run_is_reported_not_fatal(sample_setup):
    prep, labelled, vecs, _ = sample_setup
    ev = evaluate(
        LabelledRun(prep, labelled, vecs), ["topk", "qasc"], GateParams(k=3)
    )  # qasc without embed
    assert ev.policies["qasc"].error and not ev.policies["topk"].error
    assert "qasc" in evaluation_json(ev)["errors"]


def test_span_policy_is_scored_by_coverage(sample_setup):
    prep, labelled, vecs, emb = sample_setup
    ev = evaluate(
        LabelledRun(prep, labelled[:4], vecs[:4]),
        ["qasc"],
        GateParams(k=3),
        embed=lambda texts: embed_cached(emb, texts, None).vectors,
    )
    pe = ev.policies["qasc"]
    assert pe.by_coverage and not pe.error
    assert all(0.0 <= o.recall <= 1.0 and o.selected is None for o in pe.outcomes)


def test_significance_compares_scar_to_each_baseline(sample_setup):
    prep, labelled, vecs, _ = sample_setup
    ev = evaluate(LabelledRun(prep, labelled, vecs), ["topk", "window1", "scar"], GateParams(k=3))
    tests = significance(ev, n_boot=500)
    by = {(t.baseline, t.metric): t.result for t in tests}
    diff = ev.values("scar", "chunks") - ev.values("window1", "chunks")
    assert by[("window1", "chunks")].mean_diff == pytest.approx(diff.mean())
    assert by[("topk", "chunks")].mean_diff >= 0  # SCAR adds to top-k, never removes


class Scaled:
    """An embedder whose similarities sit on another scale: a shared offset direction."""

    def __init__(self, base, weight):
        self.base, self.weight = base, weight
        self.model_id, self.label = f"scaled:{weight}", "scaled"

    def embed(self, texts, progress=None):
        v = self.base.embed(texts)
        out = np.hstack([v, np.full((len(v), 1), self.weight)])
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def test_bar_transfer_relative_bar_moves_with_the_scale(sample_setup):
    prep, labelled, vecs, emb = sample_setup
    other = Scaled(emb, 1.5)
    prep2 = prepare_document(prep.document, other, cache=None)
    vecs2 = embed_cached(other, [q.query.query for q in labelled], None).vectors
    c1 = candidates_for(LabelledRun(prep, labelled, vecs), 3)
    c2 = candidates_for(LabelledRun(prep2, labelled, vecs2), 3)
    res = bar_transfer(c1, c2, 0.5, 0.9)
    rel1, abs1, rel2, abs2 = res.rows
    assert abs(abs1.mean_chunks - rel1.mean_chunks) <= abs(
        sweep(c1, [0.5], [res.theta + 0.2], "absolute").mean_chunks[0, 0] - rel1.mean_chunks
    )
    # the offset raises every cosine on model 2: the same θ admits more than on model 1
    assert abs2.mean_chunks > abs1.mean_chunks
    assert abs(rel2.mean_chunks - rel1.mean_chunks) < abs(abs2.mean_chunks - abs1.mean_chunks)


def test_transfer_with_two_hash_dimensions(sample_setup):
    prep, labelled, vecs, _ = sample_setup
    small = HashEmbedder(64)
    prep2 = prepare_document(prep.document, small, cache=None)
    vecs2 = embed_cached(small, [q.query.query for q in labelled], None).vectors
    ev2 = evaluate(LabelledRun(prep2, labelled, vecs2), ["topk", "scar"], GateParams(k=3))
    assert ev2.settings.model == "hash:64"
    assert ev2.policies["scar"].summaries["all"].n == len(labelled)
