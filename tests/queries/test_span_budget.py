"""A query file costs what it holds, bounded: its evidence spans and their length are counted
before any is looked for, a span without offsets is searched in place (no copy of every file
per span), and reading stops when the visitor's ``should_stop`` says so."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import document_from_text
from scar_viz.queries import evidence as evidence_module
from scar_viz.queries import reading
from scar_viz.queries.reading import QueryLimitError, parse_queries
from scar_viz.runtime.cancel import Cancelled


def corpus(size: int = 5 * 2**20):
    """Two files of ``size`` characters, each line of it numbered (so each occurs once)."""
    files = []
    for f in range(2):
        lines, total, i = [], 0, 0
        while total < size:
            line = f"file {f} line {i}: the tide turns at the outer buoy.\n"
            lines.append(line)
            total += len(line)
            i += 1
        files.append(document_from_text(f"f{f}.txt", "".join(lines)))
    return join_documents(files)


def lines_without_offsets(n: int, spans: int = 1) -> str:
    rows = []
    for q in range(n):
        ev = [{"text": f"file 1 line {q * spans + s}: the tide"} for s in range(spans)]
        rows.append(json.dumps({"id": f"q{q}", "query": "When?", "evidence": ev}))
    return "\n".join(rows)


def test_spans_without_offsets_are_searched_without_copying_the_files():
    doc = corpus()
    data = lines_without_offsets(40)
    tracemalloc.start()
    try:
        qset = parse_queries(data, doc)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(qset.queries) == 40 and not qset.errors
    first = qset.queries[0].evidence[0]
    assert doc.text[first.start : first.end] == "file 1 line 0: the tide"
    assert peak < 2 * 2**20  # was a copy of both 5 MiB files for every span


def test_too_many_spans_are_refused_before_any_is_looked_for(monkeypatch):
    monkeypatch.setattr(reading, "MAX_SPANS", 10)
    looked: list[int] = []
    real = evidence_module._in_text

    def counting(*args, **kwargs):
        looked.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(evidence_module, "_in_text", counting)
    doc = corpus(2**14)
    with pytest.raises(QueryLimitError) as err:
        parse_queries(lines_without_offsets(4, spans=3), doc, "many.jsonl")
    assert str(err.value).startswith("'many.jsonl' holds 12 evidence spans of ")
    assert "at most 10 spans" in str(err.value) and looked == []
    # the command line's --max-queries 0 (no limit) lifts this limit too
    assert len(parse_queries(lines_without_offsets(4, spans=3), doc, max_queries=0).queries) == 4


def test_too_much_evidence_text_is_refused(monkeypatch):
    monkeypatch.setattr(reading, "MAX_SPAN_CHARS", 50)
    with pytest.raises(QueryLimitError, match="spans of 92 characters"):
        parse_queries(lines_without_offsets(4), corpus(2**14))


def test_reading_spans_stops_when_the_visitor_leaves():
    asked: list[int] = []

    def should_stop() -> bool:
        asked.append(1)
        return len(asked) > 3

    with pytest.raises(Cancelled):
        parse_queries(lines_without_offsets(20), corpus(2**14), should_stop=should_stop)
    assert len(asked) == 4  # asked before each line: three read, the fourth stopped
