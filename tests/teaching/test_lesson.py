"""The lesson's pieces: the fragmented pair (step 1) and step 4's table."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.base import Chunk
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import scar_select
from scar_viz.teaching.lesson import fragment_pair, fragment_step, scale_demo, scale_rows

Q = np.array([1.0, 0.0])
CHUNKS = np.array([[0.0, 1.0], [0.6, 0.8], [1.0, 0.0], [0.8, 0.6], [-1.0, 0.0]])


def test_fragment_pair_finds_the_boundary_inside_the_evidence():
    chunks = [Chunk(0, 0, 10, "x" * 10), Chunk(1, 8, 20, "y" * 12), Chunk(2, 18, 30, "z" * 12)]
    pair = fragment_pair(chunks, 5, 15)
    assert (pair.left, pair.right, pair.cut) == (0, 1, 10)
    assert fragment_pair(chunks, 11, 17) is None  # inside chunk 1 only


def test_fragment_step_ranks_and_highlights_by_hand():
    text = "aaaaaEVIDENCE-ENDbbbb"  # evidence [5, 17); chunks [0, 10) and [10, 21)
    chunks = [Chunk(0, 0, 10, text[:10]), Chunk(1, 10, 21, text[10:])]
    unit = np.array([[0.6, 0.8], [1.0, 0.0]])  # cos(q, c) = 0.6 and 1.0 for q = (1, 0)
    step = fragment_step(chunks, text, unit, np.array([2.0, 0.0]), 5, 17, k=1)
    left, right = step.parts
    assert (left.index, left.rank, right.index, right.rank) == (0, 2, 1, 1)
    assert left.cos == pytest.approx(0.6) and right.cos == pytest.approx(1.0)
    assert (left.before, left.marked, left.after) == ("aaaaa", "EVIDE", "")
    assert (right.before, right.marked, right.after) == ("", "NCE-END", "bbbb")
    assert step.kept  # the second half is the best chunk: top-1 keeps it
    assert step.sentence().endswith(
        "ranks chunk 0 #2 and chunk 1 #1 of 2: with k = 1, a top-k retriever keeps the second half."
    )
    dropped = fragment_step(chunks, text, unit[::-1], Q, 5, 17, k=1)
    assert not dropped.kept and dropped.sentence().endswith("drops the second half.")
    assert fragment_step(chunks, text, unit, Q, 11, 15) is None


def test_scale_rows_list_the_changed_decisions():
    sel = scar_select(Q, CHUNKS, GateParams(k=1, lam=0.5, tau=0.1))
    # S = .4 and .7 on model 1; θ = 0.5 sits between them, so only the first is rejected
    demo = scale_demo(sel.decisions, 0.0, 0.5, theta=0.3)  # S' = .2 and .35: the .2 flips
    rows = scale_rows(demo)
    assert [r["c → n"] for r in rows] == ["2 → 1"]
    (row,) = rows
    assert (row["model 1"], row["model 2, relative bar"]) == ("admit", "admit")
    assert row["model 2, absolute θ = 0.300"] == "reject"
    assert row["S′"] == pytest.approx(0.2)
    assert len(scale_rows(demo, changed_only=False)) == 2


def test_the_lessons_step_one_question_is_fragmented_on_each_lesson_sample():
    from scar_viz.chunking.config import ChunkingConfig, chunk_document
    from scar_viz.documents import samples
    from scar_viz.teaching.lesson import LESSONS, lesson_gold

    for sample, question in LESSONS.items():
        document = samples.load_sample(sample)
        gold = {
            g.id: g
            for g in lesson_gold(sample, document, chunk_document(document, ChunkingConfig()))
        }
        assert gold[question].type == "fragmented", sample
