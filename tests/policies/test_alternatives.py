"""The policies users compare against (docs/method.md §5, §7) on small hand-computed cases:
RSE, auto-merging, sentence window, QASC top-k and the QASC hybrid."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.config import chunk_doc_of
from scar_viz.chunking.qasc import QascParams, qasc_select
from scar_viz.common.edges import one_file
from scar_viz.documents.reading import document_from_text
from scar_viz.documents.sentences import paragraph_spans
from scar_viz.policies import QueryInputs, run_policy
from scar_viz.policies.automerge import auto_merge, chunk_parents
from scar_viz.policies.qasc import document_sentences, sentence_range
from scar_viz.policies.rse import (
    best_segments,
    chunk_values,
    minmax_relevance,
    ranks_of,
)
from scar_viz.policies.sentence_window import sentence_windows
from scar_viz.scoring.params import GateParams
from tests.policies.test_policies import QASC_TEXT, _hash_inputs, _inputs, _synthetic

# --- RSE --------------------------------------------------------------------------------------


def test_chunk_values_by_hand():
    v = chunk_values(np.array([1.0, 0.5, 0.0]), np.array([0, 1, 2]), decay=1.0, penalty=0.1)
    assert v == pytest.approx([0.9, math.exp(-1) * 0.5 - 0.1, -0.1])


def test_ranks_and_minmax_relevance():
    sims = np.array([0.2, 0.6, 0.4, 0.6])
    assert ranks_of(sims).tolist() == [3, 0, 2, 1]  # tie: the lower index ranks first
    assert minmax_relevance(sims) == pytest.approx([0.0, 1.0, 0.5, 1.0])
    assert minmax_relevance(np.full(3, 0.7)).tolist() == [0.0, 0.0, 0.0]


def test_ranks_tie_scores_that_differ_only_by_rounding_error():
    """A cosine of 0 came out as −2e-18 under one OpenBLAS kernel and 0 under another; the
    two must rank alike (as a tie, by index), while a real difference still orders them."""
    assert ranks_of(np.array([0.5, -2.0e-18, 0.0])).tolist() == [0, 1, 2]
    assert ranks_of(np.array([0.5, 0.0, -2.0e-18])).tolist() == [0, 1, 2]
    assert ranks_of(np.array([0.5, -1e-9, 0.0])).tolist() == [0, 2, 1]


def test_best_segments_by_hand():
    v = np.array([-0.2, 0.5, 0.3, -0.1, 0.6, -0.5, 0.4])
    # round 1: [1,2] and [2..4] both sum 0.8 -> the earlier start; round 2 (budget 2 left):
    # [4] = 0.6; round 3 (budget 1): [6] = 0.4; then the budget of 4 chunks is spent.
    segs = best_segments(
        v, max_length=3, overall_max_length=4, minimum_value=0.3, doc_of=one_file(len(v))
    )
    assert [(s.start, s.end) for s in segs] == [(1, 3), (4, 5), (6, 7)]
    assert [s.value for s in segs] == pytest.approx([0.8, 0.6, 0.4])
    # a higher minimum stops before [6]
    stop = best_segments(
        v, max_length=3, overall_max_length=4, minimum_value=0.5, doc_of=one_file(len(v))
    )
    assert [(s.start, s.end) for s in stop] == [(1, 3), (4, 5)]
    # a segment never starts or ends on a negative value, and max_length caps it
    one = best_segments(
        v, max_length=1, overall_max_length=30, minimum_value=0.0, doc_of=one_file(len(v))
    )
    assert [(s.start, s.end) for s in one] == [(4, 5), (1, 2), (6, 7), (2, 3)]
    assert [s.value for s in one] == pytest.approx([0.6, 0.5, 0.4, 0.3])
    with pytest.raises(ValueError):
        best_segments(v, 0, 30, 0.5, doc_of=one_file(len(v)))


def _line_inputs(sims: list[float], k: int = 3) -> QueryInputs:
    text = "\n\n".join(f"Line {i} of the text." for i in range(len(sims)))
    doc = document_from_text("lines.txt", text)
    chunks = [Chunk(i, s, e, text[s:e]) for i, (s, e) in enumerate(paragraph_spans(text))]
    unit = np.eye(len(sims))
    scores, doc_of = np.array(sims), chunk_doc_of(doc, chunks)
    return QueryInputs(
        doc, chunks, unit, "q", np.ones(len(sims)), scores, GateParams(k=k), doc_of=doc_of
    )


def test_rse_policy_by_hand():
    # relevance = sims (min 0, max 1); ranks 2,1,4,3,0,5 -> v with decay 1, penalty 0.3:
    # v2 = 0.7, v1 = e^-1·0.9 − 0.3 = 0.031, v4 = e^-2·0.8 − 0.3 < 0, others < 0
    inputs = _line_inputs([0.0, 0.9, 1.0, 0.1, 0.8, 0.0])
    res = run_policy("rse", inputs, decay_rate=1.0, penalty=0.3, minimum_value=0.5)
    assert res.chunk_ids == (1, 2)
    assert res.detail.segments[0].value == pytest.approx(0.7 + math.exp(-1) * 0.9 - 0.3)
    assert "min–max" in res.notes[0]
    # a minimum above every segment's value: nothing is sent, and the note says so
    empty = run_policy("rse", inputs, decay_rate=1.0, penalty=0.3, minimum_value=0.8)
    assert empty.chunk_ids == () and "sends nothing" in empty.notes[-1]
    with pytest.raises(ValueError, match="preset"):
        run_policy("rse", inputs, preset="fast")


def test_rse_balanced_preset_caps_the_total():
    inputs = _line_inputs([1.0] * 39 + [0.0])  # 39 relevant chunks: only the budget stops RSE
    res = run_policy("rse", inputs)
    assert len(res.chunk_ids) == 30
    assert [(s.start, s.end) for s in res.detail.segments] == [(0, 15), (15, 30)]


# --- auto-merging -----------------------------------------------------------------------------


def test_auto_merge_fills_then_merges_by_hand():
    parents = [0, 0, 0, 1, 1, 2, 2, 2, 2]
    # 0 and 2 retrieved: 1 fills the gap, then parent 0 has 3/3 > 0.5 and merges
    res = auto_merge([0, 2, 5], parents, doc_of=one_file(len(parents)))
    assert res.selected == (0, 1, 2, 5) and res.merged == (0,) and res.filled == (1,)
    # a cascade: 7 fills 6..8 -> parent 2 (3/4) merges and brings 5; then 4 fills 3..5 ->
    # parent 1 (2/2) merges; parent 1 at 1/2 alone would not (0.5 is not > 0.5)
    res = auto_merge([3, 6, 8], parents, doc_of=one_file(len(parents)))
    assert res.selected == (3, 4, 5, 6, 7, 8) and res.merged == (1, 2) and res.filled == (4, 7)
    assert auto_merge([3], parents, fill_gaps=False, doc_of=one_file(len(parents))).merged == ()
    assert auto_merge([3, 4], parents, fill_gaps=False, doc_of=one_file(len(parents))).merged == (
        1,
    )
    with pytest.raises(ValueError):
        auto_merge([0], parents, ratio=1.5, doc_of=one_file(len(parents)))


def test_automerge_policy_on_the_synthetic_sections():
    # sections A [0,1,2], B [3,4,5], C [6,7]; top-4 by angle = 6, 2, 3, 1 -> A has 2/3 and is
    # replaced by the whole section; B (1/3) and C (1/2) stay leaves; no single gap.
    inputs = _inputs(k=4)
    doc, chunks = _synthetic()
    assert chunk_parents(doc, chunks) == [0, 0, 0, 1, 1, 1, 2, 2]
    res = run_policy("automerge", inputs)
    assert res.chunk_ids == (0, 1, 2, 3, 6)
    section_a = (doc.sections[0].start, doc.sections[0].end)
    assert any(s <= section_a[0] and section_a[1] <= e for s, e in res.spans)
    assert res.context.startswith("# Section A")
    assert res.detail.merged == (0,)


# --- sentence window --------------------------------------------------------------------------


def test_sentence_windows_by_hand():
    scores = np.array([0.1, 0.9, 0.2, 0.3, 0.1, 0.1, 0.8, 0.1, 0.1, 0.1])
    assert sentence_windows(scores, k=2, w=1, doc_of=one_file(len(scores))) == ((0, 2), (5, 7))
    assert sentence_windows(scores, k=2, w=2, doc_of=one_file(len(scores))) == (
        (0, 8),
    )  # (0,3) and (4,8) touch: merged
    assert sentence_windows(scores, k=1, w=0, doc_of=one_file(len(scores))) == ((1, 1),)
    with pytest.raises(ValueError):
        sentence_windows(scores, 1, -1, doc_of=one_file(len(scores)))


def test_sentence_window_policy_sends_the_best_sentence_and_its_neighbours():
    inputs = _hash_inputs(QASC_TEXT, "when is the crane inspected by the operator")
    sentences, scores = document_sentences(inputs)
    h = int(np.argmax(scores))
    res = run_policy("sentence-window", inputs, w=1)
    lo, hi = max(0, h - 1), min(len(sentences) - 1, h + 1)
    assert res.spans == ((sentences[lo][0], sentences[hi][1]),)
    assert res.chunk_ids is None
    wider = run_policy("sentence-window", inputs)  # w = 3
    assert wider.chars > res.chars


# --- QASC: top k of its chunks, and the hybrid -------------------------------------------------

SENTENCES = [(11 * i, 11 * i + 10) for i in range(10)]
SCORES = np.array([0.1, 0.2, 0.9, 0.2, 0.1, 0.1, 0.1, 0.1, 0.8, 0.7])


def test_qasc_ranks_its_chunks_by_aggregated_score():
    # as in test_qasc's end-to-end case: merged chunks (1,3) and (7,9); A(1,3) = W(seed 2) =
    # 1.3/3, A(7,9) = max(W(seed 8) = 1.6/3, W(seed 9) = 0.75) = 0.75
    base = {"percentile": 70, "window_m": 1, "decay": 0.0, "snap_chars": 0}
    res = qasc_select(
        SENTENCES, SCORES, (), QascParams(**base, top_k=1), doc_of=one_file(len(SENTENCES))
    )
    assert res.chunk_scores == pytest.approx((1.3 / 3, 0.75))
    assert res.chosen == ((7, 9),) and res.spans == ((77, 109),)
    every = qasc_select(SENTENCES, SCORES, (), QascParams(**base), doc_of=one_file(len(SENTENCES)))
    assert every.chosen == every.merged and every.spans == ((11, 43), (77, 109))
    assert (
        qasc_select(
            SENTENCES, SCORES, (), QascParams(**base, top_k=5), doc_of=one_file(len(SENTENCES))
        ).spans
        == every.spans
    )


def test_qasc_regions_confine_seeds_and_windows():
    base = QascParams(percentile=70, window_m=1, decay=0.0, snap_chars=0)
    # θ stays 0.35 (every sentence); only seed 2 lies in region 0..4
    res = qasc_select(
        SENTENCES, SCORES, (), base, regions=[(0, 4)], doc_of=one_file(len(SENTENCES))
    )
    assert res.threshold == pytest.approx(0.35) and res.seeds == (2,)
    assert res.spans == ((11, 43),)
    # region 8..9: seed 8's window (7,9) is clipped to (8,9); W = (0.8 + 0.7) / 2
    res = qasc_select(
        SENTENCES, SCORES, (), base, regions=[(8, 9)], doc_of=one_file(len(SENTENCES))
    )
    assert [(w.lo, w.hi) for w in res.windows] == [(8, 9), (8, 9)]
    assert res.windows[0].score == pytest.approx(0.75)
    assert res.spans == ((88, 109),)


def test_qasc_hybrid_stays_around_the_top_chunks():
    inputs = _hash_inputs(QASC_TEXT, "when is the crane inspected by the operator")
    sentences, _ = document_sentences(inputs)
    top = int(np.argmax(inputs.sims))
    lo, hi = sentence_range(sentences, inputs.chunks[top].start, inputs.chunks[top].end)
    res = run_policy("qasc-hybrid", inputs, margin=0, snap_chars=0)
    assert res.spans
    assert all(sentences[lo][0] <= s and e <= sentences[hi][1] for s, e in res.spans)
    plain = run_policy("qasc", inputs, snap_chars=0, all_windows=True)
    assert res.chars <= plain.chars
    with pytest.raises(ValueError, match="margin"):
        run_policy("qasc-hybrid", inputs, margin=-1)


def test_sentence_range_by_hand():
    assert sentence_range(SENTENCES, 0, 25) == (0, 2)
    assert sentence_range(SENTENCES, 10, 11) is None  # only the gap between two sentences
    assert sentence_range(SENTENCES, 12, 200) == (1, 9)


def test_rse_with_a_cross_encoder_uses_sigmoid_scores_of_the_candidates(tmp_path):
    from scripts.tiny_models import tiny_cross_encoder

    folder = str(tiny_cross_encoder(tmp_path / "ce"))
    inputs = _line_inputs([0.0, 0.9, 1.0, 0.1, 0.8, 0.0])
    res = run_policy("rse", inputs, reranker=folder, n_candidates=2, minimum_value=-1.0)
    rel = np.array(res.detail.relevance)
    # only the 2 best chunks by cosine (2 and 1) are scored; σ puts them strictly in (0, 1)
    assert rel[[0, 3, 4, 5]].tolist() == [0.0] * 4
    assert np.all((rel[[1, 2]] > 0) & (rel[[1, 2]] < 1))
    assert "σ(cross-encoder logit)" in res.notes[0]


def _reference_segments(v, max_length, overall, minimum):
    """dsRAG's loop as published, written plainly: scan every (start, end), keep the first best."""
    segs, total = [], 0
    while total < overall:
        best, best_value = None, -1000.0
        for start in range(len(v)):
            if v[start] < 0:
                continue
            for end in range(start + 1, min(start + max_length, len(v)) + 1):
                if v[end - 1] < 0:
                    continue
                if any(start < e and end > s for s, e, _ in segs):
                    continue
                if total + end - start > overall:
                    continue
                value = float(sum(v[start:end]))
                if value > best_value:
                    best, best_value = (start, end), value
        if best is None or best_value < minimum:
            break
        segs.append((*best, best_value))
        total += best[1] - best[0]
    return segs


@pytest.mark.parametrize("seed", range(25))
def test_best_segments_match_the_plain_loop_on_random_values(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    v = np.round(rng.normal(0.0, 0.4, n) * 8) / 8  # eighths: exact sums, and ties happen
    max_length, overall = int(rng.integers(1, 8)), int(rng.integers(1, 20))
    minimum = float(rng.choice([0.0, 0.2, 0.5]))
    got = best_segments(v, max_length, overall, minimum, doc_of=one_file(len(v)))
    ref = _reference_segments(v, max_length, overall, minimum)
    assert [(s.start, s.end) for s in got] == [(s, e) for s, e, _ in ref]
    assert [s.value for s in got] == pytest.approx([x for _, _, x in ref])
