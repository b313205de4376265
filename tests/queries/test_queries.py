"""Query-set loading, validation, relocation, and gold chunks under the current chunking."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.config import ChunkingConfig, chunk_document
from scar_viz.common.edges import one_file
from scar_viz.documents.reading import document_from_text
from scar_viz.queries.gold import (
    covering_run,
    label_queries,
    query_set_key,
    query_type,
    split_alternate,
    type_counts,
)
from scar_viz.queries.reading import decode_queries, load_queries, parse_queries

DOC = document_from_text(
    "rules.txt", "Alpha rule one. Beta exception two. Gamma note three. Alpha rule one."
)


def line(**obj) -> str:
    return json.dumps(obj)


def ev(text: str, start: int | None = None, end: int | None = None) -> dict:
    out = {"text": text}
    if start is not None:
        out["start"], out["end"] = start, end
    return out


def test_valid_line_is_kept_with_its_offsets():
    s = DOC.text.index("Beta")
    qs = parse_queries(
        line(
            id="q1", query="What?", type="atomic", evidence=[ev("Beta exception two.", s, s + 19)]
        ),
        DOC,
    )
    assert [q.id for q in qs.queries] == ["q1"]
    assert qs.queries[0].evidence[0].start == s
    assert qs.issues == ()


def test_stale_offsets_are_relocated_when_text_occurs_once():
    s = DOC.text.index("Gamma")
    qs = parse_queries(line(id="q1", query="?", evidence=[ev("Gamma note three.", 0, 17)]), DOC)
    assert qs.queries[0].evidence[0].start == s
    assert qs.queries[0].evidence[0].end == s + len("Gamma note three.")
    assert len(qs.notes) == 1 and "relocated" in qs.notes[0].message


def test_missing_offsets_are_located_and_said():
    qs = parse_queries(line(id="q1", query="?", evidence=[ev("Beta exception")]), DOC)
    assert qs.queries[0].evidence[0].start == DOC.text.index("Beta")
    assert "no offsets" in qs.notes[0].message


def test_ambiguous_text_with_stale_offsets_is_an_error():
    qs = parse_queries(line(id="q1", query="?", evidence=[ev("Alpha rule one.", 3, 18)]), DOC)
    assert not qs.queries
    assert "occurs 2 times" in qs.errors[0].message


def test_right_offsets_on_repeated_text_are_fine():
    s = DOC.text.rindex("Alpha")
    qs = parse_queries(line(id="q1", query="?", evidence=[ev("Alpha rule one.", s, s + 15)]), DOC)
    assert qs.queries[0].evidence[0].start == s and not qs.issues


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        (line(query="?", evidence=[ev("Beta")]), "missing 'id'"),
        (line(id="q", query="  ", evidence=[ev("Beta")]), "missing 'query'"),
        (line(id="q", query="?", evidence=[]), "non-empty list"),
        (line(id="q", query="?", evidence=[ev("   ")]), "no 'text'"),
        (line(id="q", query="?", evidence=[ev("Omega")]), "does not occur"),
        (
            line(id="q", query="?", evidence=[{"text": "Beta", "start": "1", "end": 5}]),
            "whole number",
        ),
    ],
)
def test_bad_lines_are_per_line_errors(raw, needle):
    good = line(id="ok", query="?", evidence=[ev("Beta")])
    qs = parse_queries("\n".join([good, "", raw]), DOC)
    assert [q.id for q in qs.queries] == ["ok"]
    assert len(qs.errors) == 1
    assert qs.errors[0].line == 3
    assert needle in qs.errors[0].message


def test_duplicate_ids_and_unknown_type():
    a = line(id="q", query="?", type="weird", evidence=[ev("Beta")])
    qs = parse_queries(a + "\n" + a, DOC)
    assert len(qs.queries) == 1
    assert qs.queries[0].declared_type is None
    assert any("duplicate id" in e.message for e in qs.errors)
    assert any("is not one of fragmented, atomic, scattered" in n.message for n in qs.notes)


def test_decode_rejects_non_utf8_and_loads_from_disk(tmp_path):
    with pytest.raises(ValueError, match="not UTF-8"):
        decode_queries(b"\xff\xfe\x00bad", DOC)
    p = tmp_path / "q.jsonl"
    p.write_text("\ufeff" + line(id="q", query="?", evidence=[ev("Beta")]), encoding="utf-8")
    assert len(load_queries(p, DOC).queries) == 1
    with pytest.raises(ValueError, match="Cannot read"):
        load_queries(tmp_path / "missing.jsonl", DOC)


# --- gold chunks ---------------------------------------------------------------------------


def chunks_at(text: str, spans: list[tuple[int, int]]) -> list[Chunk]:
    return [Chunk(i, s, e, text[s:e]) for i, (s, e) in enumerate(spans)]


def test_covering_run_hand_computed():
    text = "aaaa bbbb cccc dddd"
    #        0    5    10   15
    chunks = chunks_at(text, [(0, 9), (7, 14), (15, 19)])  # overlap "bb", gap " " at 14
    assert covering_run(text, chunks, 0, 4) == (0, 0)
    assert covering_run(text, chunks, 7, 9) == (0, 0)  # in the overlap: first chunk holding it
    assert covering_run(text, chunks, 5, 14) == (0, 1)  # "bbbb cccc": b's 5,6 only in chunk 0
    assert covering_run(text, chunks, 10, 19) == (1, 2)  # whitespace at 14 belongs to no chunk
    assert covering_run(text, chunks, 0, 19) == (0, 2)
    with pytest.raises(ValueError, match="only whitespace"):
        covering_run(text, chunks, 14, 15)


def _brute_run(text, chunks, start, end):
    best = None
    for a in range(len(chunks)):
        for b in range(a, len(chunks)):
            ok = all(
                any(c.start <= p < c.end for c in chunks[a : b + 1])
                for p in range(start, end)
                if not text[p].isspace()
            )
            if ok and (best is None or b - a < best[1] - best[0]):
                best = (a, b)
    return best


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(["ab", "cde", "f", "ghij", "\n\n", "k l"]), min_size=8, max_size=60
    ),
    size=st.integers(10, 40),
    data=st.data(),
)
def test_covering_run_is_minimal_against_brute_force(words, size, data):
    text = " ".join(words)
    if not text.strip():
        return
    doc = document_from_text("t.txt", text)
    chunks = chunk_document(doc, ChunkingConfig(size=size, overlap=size // 4))
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    if not text[start:end].strip():
        return
    expected = _brute_run(text, chunks, start, end)
    if expected is None:  # a character no chunk holds: said, never silently dropped
        with pytest.raises(ValueError, match="lies in no chunk"):
            covering_run(text, chunks, start, end)
    else:
        assert covering_run(text, chunks, start, end) == expected


def test_types_are_recomputed_under_the_chunking():
    text = "\n\n".join(f"Paragraph {i} " + "word " * 20 for i in range(12))
    doc = document_from_text("d.txt", text)
    s = text.index("Paragraph 3")
    e = text.index("Paragraph 5")
    raw = line(
        id="q",
        query="?",
        type="atomic",
        evidence=[ev(text[s:e].strip(), s, s + len(text[s:e].strip()))],
    )
    qs = parse_queries(raw, doc)
    small = label_queries(qs, doc, chunk_document(doc, ChunkingConfig(size=120, overlap=10)))
    big = label_queries(qs, doc, chunk_document(doc, ChunkingConfig(size=2000, overlap=10)))
    assert small[0].fragmented and len(small[0].gold) >= 2 and small[0].type_changed
    assert not big[0].fragmented and big[0].gold == (0,) and not big[0].type_changed


def test_split_alternate_keeps_both_types_in_each_half():
    text = "\n\n".join(f"Paragraph {i} " + "word " * 20 for i in range(12))
    doc = document_from_text("d.txt", text)
    chunks = chunk_document(doc, ChunkingConfig(size=120, overlap=10))
    rows = []
    for i in range(8):
        s = text.index(f"Paragraph {i} ")
        span = text[s : s + (150 if i % 2 else 20)]
        rows.append(line(id=f"q{i}", query="?", evidence=[ev(span, s, s + len(span))]))
    labelled = label_queries(parse_queries("\n".join(rows), doc), doc, chunks)
    a, b = split_alternate(labelled)
    assert len(a) + len(b) == len(labelled)
    assert {q.id for q in a}.isdisjoint({q.id for q in b})
    assert any(q.fragmented for q in a) and any(q.fragmented for q in b)
    assert any(not q.fragmented for q in a) and any(not q.fragmented for q in b)


def test_development_corpus_types_match_the_file(corpus_path, corpus_queries_path):
    doc = document_from_text("rfc", corpus_path.read_text(encoding="utf-8"))
    chunks = chunk_document(doc)
    qs = load_queries(corpus_queries_path, doc)
    assert not qs.errors
    labelled = label_queries(qs, doc, chunks)
    assert len(chunks) == 587
    assert sum(q.fragmented for q in labelled) == 20
    assert not any(q.type_changed for q in labelled)
    sizes = sorted(len(q.gold) for q in labelled if q.fragmented)
    assert sizes.count(2) == 17 and sizes.count(3) == 3


# --- the three query types (docs/method.md §4), on hand-built chunks ---------------------------

# Ten 40-character "sentences", one chunk each (no overlap): chunk i is TYPES_TEXT[40i:40i+40].
TYPES_TEXT = "".join(f"Sentence {i:02d} says a thing about it, ok. "[:39] + " " for i in range(10))
TYPES_DOC = document_from_text("types.txt", TYPES_TEXT)
TYPES_CHUNKS = [Chunk(i, 40 * i, 40 * i + 39, TYPES_TEXT[40 * i : 40 * i + 39]) for i in range(10)]


def typed(*spans: tuple[int, int]):
    """The one labelled query whose evidence is ``spans``, typed under TYPES_CHUNKS."""
    evidence = [ev(TYPES_TEXT[s:e], s, e) for s, e in spans]
    qs = parse_queries(line(id="q", query="?", evidence=evidence), TYPES_DOC)
    assert not qs.errors, qs.errors
    (gq,) = label_queries(qs, TYPES_DOC, TYPES_CHUNKS)
    return gq


def test_a_cut_span_is_fragmented():
    gq = typed((40 * 3 + 20, 40 * 4 + 15))  # starts in chunk 3, ends in chunk 4
    assert gq.gold == (3, 4) and gq.type == "fragmented" and gq.fragmented


def test_two_spans_in_adjacent_chunks_are_fragmented():
    gq = typed((40 * 5 + 2, 40 * 5 + 20), (40 * 6 + 2, 40 * 6 + 20))
    assert gq.runs == ((5, 5), (6, 6))
    assert gq.gold == (5, 6) and gq.type == "fragmented"


def test_two_distant_spans_are_scattered():
    gq = typed((40 * 1 + 2, 40 * 1 + 20), (40 * 7 + 2, 40 * 7 + 20))
    assert gq.gold == (1, 7) and gq.type == "scattered" and not gq.fragmented


def test_two_spans_in_one_chunk_are_atomic():
    gq = typed((40 * 2 + 0, 40 * 2 + 10), (40 * 2 + 20, 40 * 2 + 35))
    assert gq.gold == (2,) and gq.type == "atomic"


def test_spans_as_tuples_type_like_chunks():
    spans = [(c.start, c.end) for c in TYPES_CHUNKS]
    qs = parse_queries(
        line(id="q", query="?", evidence=[ev(TYPES_TEXT[42:60], 42, 60), ev(TYPES_TEXT[322:340])]),
        TYPES_DOC,
    )
    assert label_queries(qs, TYPES_DOC, spans) == label_queries(qs, TYPES_DOC, TYPES_CHUNKS)
    assert label_queries(qs, TYPES_DOC, spans)[0].type == "scattered"


@pytest.mark.parametrize(
    ("gold", "kind"),
    [
        ([4], "atomic"),
        ([4, 5], "fragmented"),
        ([1, 5, 6], "fragmented"),  # one consecutive pair is enough
        ([1, 3], "scattered"),
        ([0, 2, 9], "scattered"),
        ([3, 3], "atomic"),
    ],
)
def test_query_type_rule(gold, kind):
    assert query_type(gold, one_file(max(gold) + 1)) == kind


def test_query_type_needs_a_gold_chunk():
    with pytest.raises(ValueError):
        query_type([], one_file(0))


def test_type_counts_and_split_keep_scattered():
    rows = [
        line(id=f"s{i}", query="?", evidence=[ev(TYPES_TEXT[2:20], 2, 20), ev(TYPES_TEXT[362:380])])
        for i in range(2)
    ] + [line(id="a", query="?", evidence=[ev(TYPES_TEXT[82:100], 82, 100)])]
    labelled = label_queries(parse_queries("\n".join(rows), TYPES_DOC), TYPES_DOC, TYPES_CHUNKS)
    assert type_counts(labelled) == {"fragmented": 0, "atomic": 1, "scattered": 2}
    a, b = split_alternate(labelled)
    assert [q.type for q in a].count("scattered") == 1
    assert [q.type for q in b].count("scattered") == 1


def test_query_set_key_changes_with_evidence_not_only_ids():
    one = parse_queries(line(id="q1", query="?", evidence=[ev(TYPES_TEXT[2:20], 2, 20)]), TYPES_DOC)
    two = parse_queries(
        line(id="q1", query="?", evidence=[ev(TYPES_TEXT[82:100], 82, 100)]), TYPES_DOC
    )
    same = parse_queries(
        line(id="q1", query="?", evidence=[ev(TYPES_TEXT[2:20], 2, 20)]), TYPES_DOC
    )
    assert query_set_key(one.queries) != query_set_key(two.queries)
    assert query_set_key(one.queries) == query_set_key(same.queries)
    labelled = label_queries(one, TYPES_DOC, TYPES_CHUNKS)
    assert query_set_key(labelled) == query_set_key(one.queries)


def test_as_row_writes_the_corpus_format_that_parse_queries_reads():
    text = "alpha beta gamma delta"
    rows = [
        {"id": "q1", "query": "which?", "type": "atomic", "evidence": [[6, 10]]},
        {"id": "q2", "query": "no type", "evidence": [[17, 22]]},
    ]
    for row in rows:
        row["evidence"] = [{"text": text[s:e], "start": s, "end": e} for s, e in row["evidence"]]
    raw = "\n".join(json.dumps(row) for row in rows)
    doc = document_from_text("t.txt", text)
    q1, q2 = parse_queries(raw, doc).queries
    assert q1.as_row() == {
        "id": "q1",
        "query": "which?",
        "type": "atomic",
        "evidence": [{"text": "beta", "start": 6, "end": 10}],
    }
    assert q1.as_row("fragmented")["type"] == "fragmented"  # the type under a chunking wins
    assert "type" not in q2.as_row()
    again = parse_queries("\n".join(json.dumps(q.as_row()) for q in (q1, q2)), doc).queries
    assert [(q.id, q.query, q.evidence, q.declared_type) for q in again] == [
        (q.id, q.query, q.evidence, q.declared_type) for q in (q1, q2)
    ]
