"""Query sets on a corpus: the ``doc`` field, gold chunks and types inside each file."""

from __future__ import annotations

import json

import numpy as np

from scar_viz.chunking.config import ChunkingConfig, chunk_doc_of, chunk_document
from scar_viz.common.edges import one_file
from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import document_from_text
from scar_viz.queries.gold import label_queries, query_type
from scar_viz.queries.reading import parse_queries

A = "Alpha opens the harbour at dawn. The pilot boards at the outer buoy."
B = "Beta rules the berths. Tankers moor at the north quay after inspection."
C = "Gamma keeps the log. The pilot boards at the outer buoy."
CORPUS = join_documents(
    [
        document_from_text("c.txt", C),
        document_from_text("a.md", A),
        document_from_text("b/notes.md", B),
    ]
)


def line(**obj) -> str:
    return json.dumps(obj)


def ev(text: str, start: int | None = None, end: int | None = None, doc: str | None = None):
    out: dict = {"text": text}
    if doc is not None:
        out["doc"] = doc
    if start is not None:
        out["start"], out["end"] = start, end
    return out


def test_corpus_is_ordered_by_path():
    assert [p.path for p in CORPUS.parts] == ["a.md", "b/notes.md", "c.txt"]


def test_doc_field_places_file_offsets_in_the_joined_text():
    s = B.index("Tankers")
    text = "Tankers moor at the north quay"
    qs = parse_queries(
        line(id="q1", query="Where?", evidence=[ev(text, s, s + len(text), "b/notes.md")]), CORPUS
    )
    assert qs.issues == ()
    (e,) = qs.queries[0].evidence
    assert CORPUS.text[e.start : e.end] == text
    assert e.start == CORPUS.parts[1].start + s
    assert e.as_row() == {"doc": "b/notes.md", "text": text, "start": s, "end": s + len(text)}
    assert qs.queries[0].as_row()["evidence"] == [e.as_row()]


def test_query_level_doc_applies_to_every_evidence_item():
    # The same sentence is in a.md and c.txt: the query's doc picks c.txt, no note.
    text = "The pilot boards at the outer buoy."
    qs = parse_queries(line(id="q1", query="?", doc="c.txt", evidence=[ev(text)]), CORPUS)
    (e,) = qs.queries[0].evidence
    assert e.doc == "c.txt" and e.start == CORPUS.parts[2].start + C.index(text)
    assert [i.level for i in qs.issues] == ["note"]  # "had no offsets; located at …"
    assert "'c.txt'" in qs.issues[0].message


def test_evidence_doc_overrides_the_query_doc():
    text = "The pilot boards at the outer buoy."
    qs = parse_queries(
        line(id="q1", query="?", doc="c.txt", evidence=[ev(text, A.index(text), None, "a.md")]),
        CORPUS,
    )
    assert qs.queries[0].evidence[0].doc == "a.md"


def test_unknown_doc_is_one_error_naming_query_and_path_and_the_rest_runs():
    data = "\n".join(
        [
            line(id="bad", query="?", evidence=[ev("Beta rules the berths.", doc="nope/x.md")]),
            line(id="good", query="?", evidence=[ev("Beta rules the berths.", doc="b/notes.md")]),
        ]
    )
    qs = parse_queries(data, CORPUS)
    assert [q.id for q in qs.queries] == ["good"]
    assert len(qs.errors) == 1
    message = str(qs.errors[0])
    assert "(bad)" in message and "nope/x.md" in message


def test_evidence_not_found_in_its_file_is_an_error_even_if_another_file_has_it():
    data = "\n".join(
        [
            line(id="q1", query="?", evidence=[ev("Tankers moor", doc="a.md")]),
            line(id="q2", query="?", evidence=[ev("Tankers moor")]),
        ]
    )
    qs = parse_queries(data, CORPUS)
    assert [q.id for q in qs.queries] == ["q2"]
    assert len(qs.errors) == 1 and "(q1)" in str(qs.errors[0]) and "'a.md'" in str(qs.errors[0])
    assert qs.queries[0].evidence[0].doc == "b/notes.md"


def test_evidence_without_doc_in_one_file_belongs_to_it_silently():
    text = "Gamma keeps the log."
    qs = parse_queries(line(id="q1", query="?", evidence=[ev(text, 0, len(text))]), CORPUS)
    assert qs.issues == ()
    assert qs.queries[0].evidence[0].doc == "c.txt"


def test_evidence_without_doc_in_two_files_gets_a_note_and_the_offsets_choose():
    text = "The pilot boards at the outer buoy."
    s = C.index(text)  # the offsets are c.txt's
    qs = parse_queries(line(id="q1", query="?", evidence=[ev(text, s, s + len(text))]), CORPUS)
    assert [q.id for q in qs.queries] == ["q1"]
    assert qs.queries[0].evidence[0].doc == "c.txt"
    (note,) = qs.notes
    assert "'a.md'" in note.message and "'c.txt'" in note.message and "doc" in note.message


def test_text_found_nowhere_in_the_corpus_is_an_error():
    qs = parse_queries(line(id="q1", query="?", evidence=[ev("Delta is absent.")]), CORPUS)
    assert qs.queries == () and "no document of the corpus" in qs.errors[0].message


def test_malformed_doc_is_an_error():
    qs = parse_queries(line(id="q1", query="?", doc=3, evidence=[ev("Gamma keeps")]), CORPUS)
    assert qs.queries == () and "'doc'" in qs.errors[0].message


# --- gold chunks and types ---------------------------------------------------------------

CONFIG = ChunkingConfig("fixed", 40, 0)


def test_gold_chunks_are_named_by_file_and_local_index():
    chunks = chunk_document(CORPUS, CONFIG)
    doc_of = chunk_doc_of(CORPUS, chunks)
    text = "Tankers moor at the north quay"
    qs = parse_queries(line(id="q1", query="?", evidence=[ev(text, doc="b/notes.md")]), CORPUS)
    (gq,) = label_queries(qs, CORPUS, chunks)
    first_b = int(np.flatnonzero(doc_of == 1)[0])
    assert gq.gold_refs == tuple(("b/notes.md", g - first_b) for g in gq.gold)
    assert all(doc_of[g] == 1 for g in gq.gold)


def test_evidence_in_two_files_is_scattered_even_when_their_chunks_are_adjacent():
    chunks = chunk_document(CORPUS, CONFIG)
    doc_of = chunk_doc_of(CORPUS, chunks)
    # The end of a.md and the start of b/notes.md: consecutive chunk ids, two files.
    last_a, first_b = int(np.flatnonzero(doc_of == 0)[-1]), int(np.flatnonzero(doc_of == 1)[0])
    assert first_b == last_a + 1
    tail = A[chunks[last_a].start :].strip()
    head = B[: chunks[first_b].end - chunks[first_b].start].strip()
    qs = parse_queries(
        line(id="q1", query="?", evidence=[ev(tail, doc="a.md"), ev(head, doc="b/notes.md")]),
        CORPUS,
    )
    assert qs.errors == ()
    (gq,) = label_queries(qs, CORPUS, chunks)
    assert gq.gold == (last_a, first_b)
    assert gq.type == "scattered"
    # Concatenation would have called it fragmented.
    assert query_type(gq.gold, one_file(len(doc_of))) == "fragmented"
    assert query_type(gq.gold, doc_of) == "scattered"


def test_fragmented_inside_one_file_stays_fragmented():
    chunks = chunk_document(CORPUS, CONFIG)
    doc_of = chunk_doc_of(CORPUS, chunks)
    qs = parse_queries(line(id="q1", query="?", evidence=[ev(A, doc="a.md")]), CORPUS)
    (gq,) = label_queries(qs, CORPUS, chunks)
    assert len(gq.gold) >= 2 and {int(doc_of[g]) for g in gq.gold} == {0}
    assert gq.type == "fragmented"


# --- one document: unchanged ---------------------------------------------------------------


def test_one_document_gives_the_same_queries_whatever_its_name():
    doc = document_from_text("a.md", A)
    s = A.index("The pilot")
    data = "\n".join(
        [
            line(id="q1", query="?", evidence=[ev("The pilot boards", s, s + 16)]),
            line(id="q2", query="?", evidence=[ev("Alpha opens", 5, 9)]),
        ]
    )
    renamed = document_from_text("elsewhere/b.md", A)  # a file's name enters no query
    by_doc, by_text = parse_queries(data, doc), parse_queries(data, renamed)
    assert by_doc == by_text
    assert by_doc.queries[0].as_row() == {
        "id": "q1",
        "query": "?",
        "evidence": [{"text": "The pilot boards", "start": s, "end": s + 16}],
    }
    chunks = chunk_document(doc, CONFIG)
    assert label_queries(by_doc, doc, chunks) == label_queries(by_text, renamed, chunks)
    assert all(g.gold_refs == () for g in label_queries(by_doc, doc, chunks))


def test_one_document_accepts_its_own_name_as_doc_and_refuses_another():
    doc = document_from_text("a.md", A)
    data = "\n".join(
        [
            line(id="own", query="?", doc="a.md", evidence=[ev("Alpha opens")]),
            line(id="sub", query="?", evidence=[ev("Alpha opens", doc="kb/a.md")]),
            line(id="other", query="?", evidence=[ev("Alpha opens", doc="b.md")]),
        ]
    )
    qs = parse_queries(data, doc)
    assert [q.id for q in qs.queries] == ["own", "sub"]
    assert all(e.doc == "" for q in qs.queries for e in q.evidence)
    assert len(qs.errors) == 1 and "(other)" in str(qs.errors[0]) and "b.md" in str(qs.errors[0])
