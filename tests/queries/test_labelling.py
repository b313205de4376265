"""The query format help and the session query set built while exploring."""

from __future__ import annotations

import json

import pytest

from scar_viz.chunking.config import chunk_document
from scar_viz.common.errors import UserError
from scar_viz.documents import samples
from scar_viz.queries.labelling import (
    QUERY_FORMAT,
    TEMPLATE_JSONL,
    LabelError,
    add_query,
    locate_evidence,
    to_jsonl,
    worked_example,
)
from scar_viz.queries.reading import parse_queries

DOC = samples.load_sample()
TEXT = DOC.text


def test_worked_example_validates_on_the_sample():
    example = worked_example()
    parsed = parse_queries(example, DOC, "example")
    assert parsed.errors == () and len(parsed.queries) == 2
    assert {json.loads(line)["type"] for line in example.splitlines()} == {"fragmented", "atomic"}
    assert "shared/corpora" not in QUERY_FORMAT and '"evidence"' in QUERY_FORMAT


def test_template_is_one_json_line_in_the_format():
    (row,) = [json.loads(line) for line in TEMPLATE_JSONL.splitlines()]
    assert set(row) == {"id", "query", "evidence"} and row["evidence"][0]["text"]
    # filled in with a real passage, the template loads
    row["evidence"][0]["text"] = TEXT[7453:7600]
    assert parse_queries(json.dumps(row), DOC).errors == ()


def test_locate_exact_and_whitespace_normalised():
    exact = locate_evidence(TEXT, TEXT[7453:7600])
    assert (exact.start, exact.end) == (7453, 7600)
    squashed = " ".join(TEXT[7453:7928].split())  # pasted from a browser: line breaks lost
    assert squashed not in TEXT
    found = locate_evidence(TEXT, f"  {squashed} \n")
    assert (found.start, found.end) == (7453, 7928)
    assert TEXT[found.start : found.end] == found.text


def test_locate_span_and_errors():
    ev = locate_evidence(TEXT, (7453, 7500))
    assert ev.text == TEXT[7453:7500]
    with pytest.raises(LabelError, match="not inside"):
        locate_evidence(TEXT, (10, len(TEXT) + 5))
    with pytest.raises(LabelError, match="does not occur"):
        locate_evidence(TEXT, "a sentence that the handbook never contains")
    with pytest.raises(LabelError, match="occurs .* times"):
        locate_evidence(TEXT, "the")
    with pytest.raises(UserError):
        locate_evidence(TEXT, "   ")


def test_session_set_round_trips_through_the_loader():
    chunks = chunk_document(DOC)
    qs = add_query((), DOC, "What happens if the last crossing is cancelled?", TEXT[7453:7928])
    qs = add_query(qs, DOC, "  Who records the cancellation? ", [(7626, 7720)])
    assert [q.id for q in qs] == ["session-01", "session-02"]
    assert qs[1].query == "Who records the cancellation?"
    data = to_jsonl(qs, DOC, chunks)
    parsed = parse_queries(data, DOC, "session")
    assert parsed.issues == ()
    assert [q.evidence for q in parsed.queries] == [q.evidence for q in qs]
    assert json.loads(data.splitlines()[0])["type"] == "fragmented"
    # the same question again replaces it; a taken id is refused
    again = add_query(qs, DOC, "Who records the cancellation?", (7626, 7700))
    assert len(again) == 2 and again[-1].evidence[0].end == 7700
    with pytest.raises(LabelError, match="already used"):
        add_query(qs, DOC, "Another?", (0, 10), qid="session-01")
    with pytest.raises(LabelError, match="question"):
        add_query(qs, DOC, "  ", (0, 10))
