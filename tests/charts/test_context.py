"""The context's HTML view: document order, overlap and gap marks, escaping."""

from __future__ import annotations

import re

from scar_viz.charts.context import context_html, fragment_part_html
from scar_viz.chunking.base import Chunk
from tests.policies.test_context import TEXT, overlapping_chunks


def blocks(html_text: str) -> list[str]:
    return re.findall(r'<div class="sv-chunk sv-(\w+)">', html_text)


def test_overlap_with_the_previous_chunk_is_marked():
    chunks = overlapping_chunks()
    out = context_html(chunks, retrieved=[2], admitted=[3])
    marks = re.findall(
        r'<span class="sv-overlap" title="overlap with chunk (\d+)">(.*?)</span>', out
    )
    assert marks == [("2", TEXT[chunks[3].start : chunks[2].end])]
    assert len(marks[0][1]) == 15


def test_a_gap_is_marked_with_the_number_of_skipped_chunks():
    chunks = overlapping_chunks()
    out = context_html(chunks, retrieved=[5, 1], admitted=[2])
    assert blocks(out) == ["retrieved", "admitted", "retrieved"]  # chunks 1, 2, 5
    assert re.findall(r"… (\d+) chunk\(s\) not in the context …", out) == ["2"]
    assert "chunk 1 · retrieved · rank 2" in out and "chunk 5 · retrieved · rank 1" in out
    assert "chunk 2 · admitted neighbour" in out
    # no overlap mark across a gap, and none on the first block
    assert out.count('sv-overlap"') == 1  # chunk 2 after chunk 1


def test_no_marks_for_adjacent_chunks_without_overlap():
    chunks = overlapping_chunks(size=50, overlap=0)
    out = context_html(chunks, retrieved=[0], admitted=[1])
    assert 'class="sv-overlap"' not in out and 'class="sv-gap"' not in out


def test_document_text_and_section_labels_are_escaped():
    hostile = "<script>alert(1)</script> & <img src=x>"
    chunks = [
        Chunk(0, 0, len(hostile), hostile, ("<b>Part</b>",)),
        Chunk(1, len(hostile) - 5, len(hostile) + 10, hostile[-5:] + "0123456789", ()),
    ]
    out = context_html(chunks, retrieved=[0], admitted=[1])
    assert "<script>" not in out and "<img" not in out and "<b>Part" not in out
    assert "&lt;script&gt;" in out and "&lt;b&gt;Part&lt;/b&gt;" in out


def test_gold_chunks_are_outlined_and_missed_ones_named():
    chunks = overlapping_chunks()
    out = context_html(chunks, retrieved=[2], admitted=[3], gold=[3, 5])
    assert re.findall(r'<div class="sv-chunk sv-([\w -]+)">', out) == [
        "retrieved",
        "admitted sv-gold",
    ]
    assert "chunk 3 · admitted neighbour · ★ gold evidence" in out
    assert "chunk 2 · retrieved · rank 1 ·" in out and "chunk 2 · retrieved · rank 1 · ★" not in out
    assert re.findall(r"gold evidence not in this context: ([^<]*)</div>", out) == ["chunk 5"]
    plain = context_html(chunks, retrieved=[2], admitted=[3])
    assert "gold" not in plain.split("</style>")[1]  # nothing when the question is not labelled


def test_a_fragment_part_shows_its_text_escaped_with_the_evidence_marked():
    from scar_viz.teaching.lesson import FragmentPart

    part = FragmentPart(7, 0.5, 2, "<b>before</b> ", "<script>x()</script>", " &after")
    out = fragment_part_html(part)
    assert "<script>" not in out and "<b>before" not in out
    assert "<mark>&lt;script&gt;x()&lt;/script&gt;</mark>" in out
    assert "&lt;b&gt;before&lt;/b&gt; " in out and " &amp;after" in out
    assert "<b>chunk 7</b> · cos(q,c) = 0.500" in out
