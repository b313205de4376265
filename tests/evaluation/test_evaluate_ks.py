"""An evaluation at several k (scar_viz.evaluation.run.evaluate_ks) equals one evaluation per k,
outcome for outcome, for every policy: the parts shared across k (each query's inputs, the
sentence scores, QASC's windows, RSE's segments) must change nothing."""

from __future__ import annotations

import pytest

from scar_viz.documents import samples
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.run import evaluate, evaluate_ks, resolve_policy
from scar_viz.pipeline import embed_function
from scar_viz.policies import ALTERNATIVES, uses_k
from scar_viz.retrieval import Retriever
from scar_viz.scoring.params import GateParams
from tests.evaluation_sample import labelled_sample

EVERY = ("topk", "window1", "window2", "scar", "parent", "qasc", *ALTERNATIVES)
KS = (1, 2, 4, 7)


def _setup(sample: str):
    prep, gold, vecs, embedder = labelled_sample(sample)
    return prep, gold, vecs, embed_function(embedder)


@pytest.mark.parametrize(
    ("sample", "retriever"),
    [(samples.DEFAULT_SAMPLE, Retriever("dense")), ("kestrel", Retriever("hybrid"))],
)
def test_every_k_equals_its_own_evaluation(sample, retriever):
    prep, gold, vecs, embed = _setup(sample)
    params = GateParams(lam=0.4, tau=0.2)
    many = evaluate_ks(LabelledRun(prep, gold, vecs, retriever), EVERY, params, KS, embed=embed)
    assert [ev.settings.params.k for ev in many] == list(KS)
    for k, ev in zip(KS, many, strict=True):
        alone = evaluate(
            LabelledRun(prep, gold, vecs, retriever), EVERY, params.with_(k=k), embed=embed
        )
        assert ev.settings == alone.settings
        for name in EVERY:
            got, want = ev.policies[name], alone.policies[name]
            assert not want.error, (name, want.error)
            assert got.outcomes == want.outcomes, (name, k)
            assert got.summaries == want.summaries, (name, k)
            assert got.by_coverage == want.by_coverage


def test_only_rse_is_run_once_for_every_k():
    assert [n for n in EVERY if not uses_k(resolve_policy(n)[0])] == ["rse"]


def test_progress_counts_query_and_k_steps_and_bad_k_is_refused():
    prep, gold, vecs, embed = _setup(samples.DEFAULT_SAMPLE)
    calls: list[tuple[int, int]] = []
    evaluate_ks(
        LabelledRun(prep, gold[:3], vecs[:3]),
        ["topk"],
        GateParams(),
        (1, 2),
        progress=lambda d, t: calls.append((d, t)),
    )
    assert calls == [(i, 6) for i in range(1, 7)]
    with pytest.raises(ValueError, match="at least 1"):
        evaluate_ks(LabelledRun(prep, gold, vecs), ["topk"], GateParams(), (2, 0))
