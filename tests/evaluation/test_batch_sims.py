"""Queries multiplied by blocks on a large corpus (scar_viz.evaluation.run.batch_sims)."""

from __future__ import annotations

import json

import numpy as np

from scar_viz.evaluation import run
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.report import evaluation_json
from tests.evaluation_sample import labelled_sample


def test_small_products_are_per_query_and_large_ones_agree_to_rounding():
    rng = np.random.default_rng(3)
    unit = rng.normal(size=(300, 16))
    vecs = rng.normal(size=(150, 16))
    small = run.batch_sims(unit[:20], vecs[:5])
    assert np.array_equal(small(2), unit[:20] @ vecs[2])  # bit for bit: the Explorer's values
    big = run.batch_sims(unit, vecs, block=64)
    assert run.BATCH_CELLS > 300 * 150  # force the block path below
    run_big = run.BATCH_CELLS
    try:
        run.BATCH_CELLS = 1
        big = run.batch_sims(unit, vecs, block=64)
        for qi in (0, 63, 64, 149):
            assert np.allclose(big(qi), unit @ vecs[qi], rtol=0, atol=1e-12)
    finally:
        run.BATCH_CELLS = run_big


def test_a_corpus_evaluation_by_blocks_equals_the_per_query_one(monkeypatch):
    prep, gold, vecs, _ = labelled_sample("kestrel")
    policies = ["topk", "window1", "scar", "rse"]
    per_query = evaluation_json(run.evaluate(LabelledRun(prep, gold, vecs), policies))
    monkeypatch.setattr(run, "BATCH_CELLS", 1)
    blocks = evaluation_json(run.evaluate(LabelledRun(prep, gold, vecs), policies))
    strip = lambda d: json.dumps(d, sort_keys=True, default=str)  # noqa: E731
    assert strip(blocks) == strip(per_query)
