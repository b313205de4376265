"""scar_viz.evaluation.transfer: similarity samples and the relative vs absolute bar."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import document_from_text
from scar_viz.embeddings import HashEmbedder
from scar_viz.evaluation import bar_transfer, candidates_for
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.transfer import SIMILARITY_KINDS, model_labels, similarity_samples
from scar_viz.pipeline import prepare_document
from tests.evaluation_sample import hash_sample

A_TEXT = "The tide tables are read at dawn.\n\nThe pilot boards at the outer buoy."
B_TEXT = "Crates go to the store at noon.\n\nThe clerks count every box twice."


def setup(dim: int):
    prep, labelled, vecs, _, _ = hash_sample(dim)
    return prep, labelled, vecs


@pytest.fixture(scope="module")
def one():
    return setup(256)


def test_similarity_samples_hold_every_kind(one):
    prep, _, vecs = one
    got = similarity_samples(LabelledRun(*one), k=3)
    assert tuple(got) == SIMILARITY_KINDS
    everything = (vecs @ prep.unit.T).ravel()
    assert np.array_equal(np.sort(got[SIMILARITY_KINDS[0]]), np.sort(everything))
    assert len(got[SIMILARITY_KINDS[1]]) == 3 * len(vecs)
    assert np.allclose(got[SIMILARITY_KINDS[2]], 1.0 - prep.penalties)
    first = np.sort(vecs[0] @ prep.unit.T)[::-1][:3]  # query 0's three best chunks
    assert np.allclose(np.sort(got[SIMILARITY_KINDS[1]][:3])[::-1], first)


def test_adjacent_similarities_skip_pairs_across_files(one):
    _, labelled, vecs = one
    files = [document_from_text(n, t) for n, t in (("a.txt", A_TEXT), ("b.txt", B_TEXT))]
    prep = prepare_document(
        join_documents(files), HashEmbedder(256), ChunkingConfig(size=40, overlap=0)
    )
    n = len(prep.chunks)
    edge = int(np.flatnonzero(np.diff(prep.doc_of))[0])  # a.txt's last chunk
    got = similarity_samples(LabelledRun(prep, labelled, vecs), k=3)[SIMILARITY_KINDS[2]]
    keep = np.arange(n - 1) != edge
    assert len(got) == n - 2 and np.allclose(got, 1.0 - prep.penalties[keep])


def test_similarity_samples_subsample_is_seeded_and_capped(one):
    prep, _, vecs = one
    run = LabelledRun(*one)
    a = similarity_samples(run, 3, max_points=100, seed=1)[SIMILARITY_KINDS[0]]
    b = similarity_samples(run, 3, max_points=100, seed=1)[SIMILARITY_KINDS[0]]
    c = similarity_samples(run, 3, max_points=100, seed=2)[SIMILARITY_KINDS[0]]
    assert len(a) == 100 and np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.isin(a, (vecs @ prep.unit.T).ravel()).all()


def test_model_labels_tell_equal_ids_apart():
    assert model_labels("a", "b") == ("a", "b")
    assert model_labels("a", "a") == ("a (1)", "a (2)")


def test_bar_transfer_curves_and_relative_lines(one):
    prep, labelled, vecs = one
    prep2, _, vecs2 = setup(64)
    c1 = candidates_for(LabelledRun(prep, labelled, vecs), 3, 1)
    c2 = candidates_for(LabelledRun(prep2, labelled, vecs2), 3, 1)
    bars = bar_transfer(c1, c2, 0.5, 0.1, ("m1", "m2"))
    curves = bars.chunk_curves(("m1", "m2"))
    assert set(curves) == {"m1", "m2"} and curves["m1"].shape == curves["m2"].shape
    rel = bars.relative_chunks(("m1", "m2"))
    assert rel == {"m1": bars.rows[0].mean_chunks, "m2": bars.rows[2].mean_chunks}
    assert bars.rows[0].bar.startswith("relative") and bars.rows[1].bar.startswith("absolute")
    # θ was tuned on model 1 to cost what the relative bar costs there
    assert abs(bars.rows[1].mean_chunks - rel["m1"]) <= abs(bars.rows[3].mean_chunks - rel["m2"])
