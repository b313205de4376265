"""Equal budget (recall vs context tokens over k), its chart, the Pareto chart's policy points
and rerank availability."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.charts.budget import budget_chart
from scar_viz.charts.pareto import pareto_chart
from scar_viz.evaluation import available_policies, evaluate
from scar_viz.evaluation.budget import (
    BudgetPoint,
    equal_budget,
    evaluation_points,
    token_front,
)
from scar_viz.evaluation.by_file import file_rows
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.policies import ALTERNATIVES
from scar_viz.policies.rerank import (
    RERANK_HINT,
    reranker_status,
)
from scar_viz.scoring.params import GateParams
from scripts.tiny_models import tiny_cross_encoder
from tests.evaluation_sample import hash_sample, labelled_sample


@pytest.fixture(scope="module")
def sample_setup():
    prep, labelled, vecs, emb, _ = hash_sample()
    vecs = vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
    return prep, labelled, vecs, emb


def test_token_front_by_hand():
    pts = [
        BudgetPoint("a", 1, 0.5, 100, 1),
        BudgetPoint("a", 2, 0.7, 200, 2),
        BudgetPoint("b", 1, 0.6, 250, 3),  # dominated by a@2 (fewer tokens, more recall)
        BudgetPoint("b", 2, 0.9, 400, 4),
        BudgetPoint("c", 1, 0.9, 500, 5),  # same recall as b@2 for more tokens
    ]
    assert token_front(pts) == (0, 1, 3)
    assert token_front([]) == ()


def test_equal_budget_matches_evaluate_at_each_k(sample_setup):
    prep, labelled, vecs, emb = sample_setup
    policies = ["topk", "scar", "rse", "automerge", "sentence-window"]
    calls: list[tuple[int, int]] = []
    res = equal_budget(
        LabelledRun(prep, labelled, vecs),
        policies,
        ks=(1, 3),
        params=GateParams(lam=0.5, tau=0.1),
        embed=emb.embed,
        progress=lambda d, t: calls.append((d, t)),
    )
    assert res.policies == tuple(policies) and not res.errors
    assert calls[-1] == (2 * len(labelled), 2 * len(labelled))
    ev3 = evaluate(
        LabelledRun(prep, labelled, vecs), policies, GateParams(3, 0.5, 0.1), embed=emb.embed
    )
    for name in policies:
        p1, p3 = res.of(name)
        assert (p1.k, p3.k) == (1, 3)
        s = ev3.policies[name].summaries["all"]
        assert (p3.recall, p3.mean_tokens) == pytest.approx((s.recall, s.mean_tokens))
    # top-k sends more with k = 3 than with k = 1; RSE does not use k
    assert res.of("topk")[1].mean_tokens > res.of("topk")[0].mean_tokens
    assert res.of("rse")[0] == BudgetPoint(**{**res.of("rse")[1].__dict__, "k": 1})
    # the front is non-dominated and every other point is dominated by a front point
    front = res.on_front()
    for p in res.points:
        if p in front:
            continue
        assert any(f.mean_tokens <= p.mean_tokens and f.recall >= p.recall for f in front), p
    with pytest.raises(ValueError):
        equal_budget(LabelledRun(prep, labelled, vecs), ["topk"], ks=(0,))


def test_a_policy_that_cannot_run_is_reported_not_plotted(sample_setup):
    prep, labelled, vecs, _ = sample_setup
    # no embed function: the sentence policies cannot embed sentences
    res = equal_budget(LabelledRun(prep, labelled, vecs), ["topk", "sentence-window"], ks=(2,))
    assert res.policies == ("topk",) and "embedding model" in res.errors["sentence-window"]


def test_budget_chart_has_a_line_per_policy_and_the_front(sample_setup):
    prep, labelled, vecs, emb = sample_setup
    res = equal_budget(LabelledRun(prep, labelled, vecs), ["topk", "window1", "scar"], ks=(1, 2, 3))
    fig = budget_chart(res)
    names = [t.name for t in fig.data]
    assert names[:3] == ["topk", "window1", "scar"] and names[3].startswith("Pareto front")
    assert len(fig.data[0].x) == 3 and [c[1] for c in fig.data[0].customdata] == [1, 2, 3]
    front = res.on_front()
    assert list(fig.data[3].x) == [p.mean_tokens for p in front]
    assert "tokens" in fig.layout.xaxis.title.text


def test_every_policy_can_be_a_point_of_the_pareto_chart(sample_setup):
    prep, labelled, vecs, emb = sample_setup
    names = ["topk", "window1", "scar", "parent", "qasc", *ALTERNATIVES]
    ev = evaluate(LabelledRun(prep, labelled, vecs), names, GateParams(k=3), embed=emb.embed)
    pts = evaluation_points(ev)
    assert [p[0] for p in pts] == [n for n in names if n != "scar"]
    assert all(x > 0 and 0 <= y <= 1 for _, x, y in pts)
    grid = np.array([[3.0, 4.0]]), np.array([[0.5, 0.6]])
    fig = pareto_chart(grid[0], grid[1], np.array([0.5]), np.array([0.1, 0.2]), [0, 1], pts)
    labelled_names = {t.name for t in fig.data}
    assert set(n for n in names if n != "scar") <= labelled_names


def test_rerank_is_listed_only_when_a_cross_encoder_loads(tmp_path):
    missing = reranker_status(str(tmp_path / "none"))
    assert not missing.available and "not available offline" in missing.message
    assert missing.hint == RERANK_HINT and "hf download" in RERANK_HINT
    assert not reranker_status("").available
    assert not reranker_status("no/such-model-anywhere").available
    assert "rerank" not in available_policies(str(tmp_path / "none"))
    folder = str(tiny_cross_encoder(tmp_path / "ce"))
    assert reranker_status(folder).available
    assert reranker_status(folder, load=True).available
    assert "rerank" in available_policies(folder)
    assert set(ALTERNATIVES) <= set(available_policies(folder))
    # a folder with a config but no weights is not available
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "config.json").write_text("{}")
    assert not reranker_status(str(tmp_path / "broken")).available


def test_on_a_corpus_each_k_keeps_its_rows_by_file():
    prep, gold, vecs, _ = labelled_sample("kestrel")
    result = equal_budget(LabelledRun(prep, gold, vecs), ["topk", "window1", "scar"], (2, 5))
    assert sorted(result.by_file) == [2, 5]
    for k in (2, 5):
        want = file_rows(
            evaluate(LabelledRun(prep, gold, vecs), ["topk", "window1", "scar"], GateParams(k=k))
        )
        assert len(result.by_file[k]) == len(want) > 2
        for got, row in zip(result.by_file[k], want, strict=True):
            assert got["file"] == row["file"] and got["queries"] == row["queries"]
            for column in ("topk chunks", "window1 recall", "scar recall", "scar chunks"):
                assert got[column] == pytest.approx(row[column])
        assert all(r["topk chunks"] == k for r in result.by_file[k])


def test_on_one_document_there_is_no_breakdown(sample_setup):
    prep, labelled, vecs, _ = sample_setup
    assert equal_budget(LabelledRun(prep, labelled[:3], vecs[:3]), ["topk"], (1, 2)).by_file == {}
