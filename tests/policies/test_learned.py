"""The ``learned`` policy through the policy interface."""

from __future__ import annotations

import numpy as np

from scar_viz.policies import QueryInputs, run_policy
from scar_viz.scoring.learned import LearnedGate, LearnedSelection
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import normalize
from tests.scoring.learned.synthetic import drifting_doc


def test_scar_weights_through_the_policy_interface():
    rng = np.random.default_rng(20)
    unit = drifting_doc(rng, n_chunks=30, dim=8)
    from scar_viz.chunking.base import Chunk
    from scar_viz.chunking.config import chunk_doc_of
    from scar_viz.documents.reading import document_from_text

    text = "".join(f"chunk {i:02d}. " for i in range(30))
    chunks = [Chunk(i, i * 10, i * 10 + 10, text[i * 10 : i * 10 + 10]) for i in range(30)]
    doc = document_from_text("d.txt", text)
    doc_of = chunk_doc_of(doc, chunks)
    for _ in range(10):
        q = normalize(rng.normal(size=8))
        params = GateParams(3, 0.5, 0.1, 2)
        inputs = QueryInputs(doc, chunks, unit, "q", q, unit @ q, params, doc_of=doc_of)
        scar = run_policy("scar", inputs)
        learned = run_policy("learned", inputs, gate=LearnedGate.scar(0.5, 0.1), p=0.5)
        assert learned.chunk_ids == scar.chunk_ids
        assert learned.spans == scar.spans
        assert isinstance(learned.detail, LearnedSelection)
