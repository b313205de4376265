"""The landing's sentence on the sample's own cut, and how far λ and τ must move for the
next decision to flip (scar_viz.views.landing, scar_viz.views.flips)."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.config import ChunkingConfig, chunk_document
from scar_viz.common.edges import one_file
from scar_viz.documents import samples
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import select_from_sims
from scar_viz.teaching.lesson import fragment_pair
from scar_viz.views.flips import next_flips
from scar_viz.views.landing import sample_cut


def test_the_sample_cut_names_the_two_chunks_that_split_the_lesson_answer():
    doc = samples.load_sample(samples.DEFAULT_SAMPLE)
    chunks = chunk_document(doc, ChunkingConfig())
    cut = sample_cut(samples.DEFAULT_SAMPLE, doc, chunks)
    assert cut is not None and cut.right == cut.left + 1
    # the cut is a boundary inside the question's evidence
    assert chunks[cut.left].end < chunks[cut.right].end
    sentence = cut.sentence()
    assert "fragmentation" in sentence.lower() and cut.question in sentence
    assert f"chunk {cut.left} and chunk {cut.right}" in sentence
    assert sample_cut("another", doc, chunks) is None
    whole = chunk_document(doc, ChunkingConfig(size=20_000, overlap=0))  # one chunk holds it
    assert fragment_pair(whole, 0, 10) is None
    assert sample_cut(samples.DEFAULT_SAMPLE, doc, whole) is None


def _setting(seed: int = 5, n: int = 30):
    rng = np.random.default_rng(seed)
    unit = rng.normal(size=(n, 8))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    q = rng.normal(size=8)
    q /= np.linalg.norm(q)
    return unit, unit @ q


def _outcomes(unit, sims, lam, tau):
    sel = select_from_sims(
        sims, unit, GateParams(k=4, lam=lam, tau=tau, radius=2), doc_of=one_file(len(unit))
    )
    return {(d.chunk, d.neighbour): d.outcome for d in sel.decisions}, sel


@pytest.mark.parametrize("seed", range(6))
def test_moving_a_slider_just_past_the_flip_changes_that_decision_and_not_before(seed):
    unit, sims = _setting(seed, n=40)
    lam, tau = 0.1, 0.05
    before, sel = _outcomes(unit, sims, lam, tau)
    flips = next_flips(sel.decisions, lam, tau)
    checked = 0
    for flip, slider in (
        (flips.lam_up, "lam"),
        (flips.lam_down, "lam"),
        (flips.tau_up, "tau"),
        (flips.tau_down, "tau"),
    ):
        if flip is None:
            continue
        checked += 1
        now = lam if slider == "lam" else tau

        def at(x, slider=slider):
            return (x, tau) if slider == "lam" else (lam, x)

        past = flip.at + (1e-6 if flip.at > now else -1e-6)
        after, _ = _outcomes(unit, sims, *at(past))
        wanted = "admitted" if flip.admits else "rejected"
        assert before[(flip.chunk, flip.neighbour)] != wanted
        assert after[(flip.chunk, flip.neighbour)] == wanted
        halfway, _ = _outcomes(unit, sims, *at((now + flip.at) / 2))
        assert halfway == before  # nothing flips before the nearest flip
    assert checked >= 1
    assert flips.sentence().startswith("Next decision to flip: ")
