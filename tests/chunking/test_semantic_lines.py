"""The semantic chunker never cuts inside a line, and a heading stays with what follows it."""

from __future__ import annotations

import pytest

from scar_viz.chunking.semantic import split_semantic
from scar_viz.documents import samples
from scar_viz.embeddings import HashEmbedder

DOC = """# Operations manual

## 1. Scope

This manual covers the ferry service. It applies to every crew member on duty.

## 2. Crew

The master commands the vessel. A deckhand assists with mooring lines and ramps.
Two deckhands are needed when more than fifty passengers are aboard.

## 3. Weather

Sailings stop when gusts exceed forty knots. The master may stop earlier in fog.

### 3.1 Tides

At low water the slip at the north pier cannot be used. Check the tide table daily.

## 4. Fares

- Adult: £4.20
- Child: £2.10
- Bicycle: £1.00
"""


def _heading_lines(text: str) -> list[tuple[int, int]]:
    out, pos = [], 0
    for line in text.splitlines(keepends=True):
        if line.startswith("#"):
            out.append((pos, pos + len(line.rstrip("\n"))))
        pos += len(line)
    return out


@pytest.mark.parametrize("percentile", [10.0, 50.0, 90.0])
@pytest.mark.parametrize("size", [120, 200, 600])
def test_no_cut_inside_a_line_and_headings_lead(percentile, size):
    spans = split_semantic(DOC, size, 0, embed=HashEmbedder().embed, percentile=percentile)
    assert spans
    for s, e in spans:
        assert s == 0 or DOC[s - 1] == "\n", f"chunk starts mid-line: {DOC[s:e]!r}"
        assert e == len(DOC.rstrip()) or DOC[e] == "\n", f"chunk ends mid-line: {DOC[s:e]!r}"
        last = DOC[s:e].rstrip().splitlines()[-1]
        assert not last.startswith("#"), f"a heading ends a chunk: {DOC[s:e]!r}"
    for hs, he in _heading_lines(DOC):
        holder = next(sp for sp in spans if sp[0] <= hs < sp[1])
        assert holder[1] > he, "a heading forms a chunk of its own"
    assert min(e - s for s, e in spans) > len("## 1.")


def test_sample_semantic_chunks_have_no_heading_fragments():
    text = samples.load_sample().text
    spans = split_semantic(text, 600, 60, embed=HashEmbedder().embed)
    for s, e in spans:
        chunk = text[s:e]
        assert (
            s == 0
            or text[s - 1] == "\n"
            or len(text[text.rfind("\n", 0, s) :].split("\n")[1]) > 600
        )
        assert not chunk.rstrip().splitlines()[-1].startswith("#")
        assert len(chunk) > 20


@pytest.mark.parametrize("size", [60, 100, 150])
def test_heading_stays_when_heading_and_body_exceed_the_size(size):
    """A heading whose body line alone nearly fills ``size`` still leads that body: the chunk
    may exceed ``size`` by the heading's length, but no chunk is a heading alone."""
    body = "Invoices are due in thirty days. Late payment accrues interest monthly."
    doc = "".join(f"## {i}. Part {i}\n\n{body[: size - 5]}\n\n" for i in range(1, 6))
    spans = split_semantic(doc, size, 0, embed=HashEmbedder().embed, percentile=50.0)
    for hs, he in _heading_lines(doc):
        holder = next(sp for sp in spans if sp[0] <= hs < sp[1])
        assert holder[1] > he, f"a heading forms a chunk of its own: {doc[slice(*holder)]!r}"
    for s, e in spans:
        assert not doc[s:e].rstrip().splitlines()[-1].startswith("#")
