"""The built-in samples: the one-document sample is one file, the sample corpus joins its
files by path, and the corpus' labelled queries point at text that is where they say, some of
it at a file's end (where a concatenated corpus would reach into the next file)."""

from __future__ import annotations

import json

import pytest

from scar_viz.chunking.config import ChunkingConfig, chunk_document
from scar_viz.common.edges import one_file
from scar_viz.documents import samples
from scar_viz.documents.corpus import JOIN, part_document, part_of_path
from scar_viz.documents.reading import Part
from scar_viz.queries.gold import covering_run, label_queries, query_type
from scar_viz.queries.reading import parse_queries

CORPUS = "kestrel"


@pytest.fixture(scope="module")
def corpus():
    return samples.load_sample(CORPUS)


@pytest.fixture(scope="module")
def rows():
    return [json.loads(line) for line in samples.sample_queries_text(CORPUS).splitlines()]


def evidence(row: dict) -> list[tuple[str, dict]]:
    """(file path, item) of each evidence item: the item's ``doc``, else the query's."""
    return [(item.get("doc", row.get("doc")), item) for item in row["evidence"]]


def test_the_document_sample_stays_one_file():
    doc = samples.load_sample("harbor")
    assert doc.parts == (Part(doc.name, 0, len(doc.text)),) and not doc.several_files
    assert samples.SAMPLES["harbor"].queries_filename == "harbor_manual.queries.jsonl"


def test_the_sample_corpus_joins_its_files_in_path_order(corpus):
    files = samples.sample_files(CORPUS)
    paths = [p.path for p in corpus.parts]
    assert corpus.several_files and 5 <= len(paths) <= 7
    assert paths == sorted(paths) == [path for path, _ in files]
    assert "src/kestrel/retention.py" in paths  # folders kept, and code is a document too
    for i, (path, text) in enumerate(files):
        assert part_document(corpus, i).text == text
        assert part_of_path(corpus, path) == i
    assert corpus.text == JOIN.join(text for _, text in files)
    # no section spans two files, and every label shown starts with its file
    assert all(
        corpus.part_index_at(s.start) == corpus.part_index_at(s.end - 1) for s in corpus.sections
    )
    assert all(s.path[0] == paths[corpus.part_index_at(s.start)] for s in corpus.shown_sections)


def test_the_corpus_is_a_selectable_sample():
    sample = samples.SAMPLES[CORPUS]
    assert sample.kind == "corpus" and "corpus" in samples.document_name(CORPUS)
    assert sample.queries_filename == "kestrel.queries.jsonl"
    ids = {q["id"] for q in samples.sample_questions(CORPUS)}
    assert set(sample.demo_ids) <= ids
    assert samples.sample_questions(CORPUS)[0]["id"] == sample.demo_ids[0]


def test_every_evidence_item_is_its_files_text_at_its_offsets(corpus, rows):
    files = dict(samples.sample_files(CORPUS))
    assert 16 <= len(rows) <= 24 and len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        for path, item in evidence(row):
            assert path in files, (row["id"], path)
            assert files[path][item["start"] : item["end"]] == item["text"], row["id"]
            # unique in the whole corpus, so the evidence names one place
            assert corpus.text.count(item["text"]) == 1, row["id"]


def test_the_query_set_reads_without_errors(corpus):
    qset = parse_queries(samples.sample_queries_text(CORPUS), corpus, "kestrel")
    assert not qset.errors, qset.errors
    assert len(qset.queries) == len(samples.sample_questions(CORPUS))


def _gold(corpus, chunks, row) -> tuple[list[int], list[int]]:
    """Gold chunk indices of ``row`` and, per evidence item, its file's index."""
    gold, files = set(), []
    for path, item in evidence(row):
        index = part_of_path(corpus, path)
        base = corpus.parts[index].start
        a, b = covering_run(corpus.text, chunks, item["start"] + base, item["end"] + base)
        gold |= set(range(a, b + 1))
        files.append(index)
    return sorted(gold), files


def test_declared_types_hold_under_the_default_chunking(corpus, rows):
    chunks = chunk_document(corpus, ChunkingConfig())
    kinds = {}
    for row in rows:
        gold, files = _gold(corpus, chunks, row)
        assert query_type(gold, one_file(len(chunks))) == row["type"], row["id"]
        kinds[row["id"]] = row["type"]
        if row["type"] == "scattered":
            assert len(set(files)) == 2, row["id"]  # scattered across two files
    counts = {k: list(kinds.values()).count(k) for k in ("fragmented", "atomic", "scattered")}
    assert counts["fragmented"] >= 4 and counts["scattered"] >= 2


def test_some_evidence_ends_in_a_files_last_chunk_before_another_file(corpus, rows):
    chunks = chunk_document(corpus, ChunkingConfig())
    owner = [corpus.part_index_at(c.start) for c in chunks]
    last_of = {part: max(i for i, p in enumerate(owner) if p == part) for part in set(owner)}
    at_end = []
    for row in rows:
        gold, _ = _gold(corpus, chunks, row)
        for g in gold:
            nxt = g + 1
            # the file's last chunk, and a concatenated corpus would go on into another file
            if g == last_of[owner[g]] and nxt < len(chunks) and owner[nxt] != owner[g]:
                at_end.append(row["id"])
    assert len(set(at_end)) >= 2, at_end
    fragmented_at_end = [r["id"] for r in rows if r["type"] == "fragmented" and r["id"] in at_end]
    assert fragmented_at_end, "no fragmented query ends at a file's edge"


def test_the_japanese_sample_is_offered_and_its_evidence_is_where_it_says():
    sample = samples.SAMPLES["reitou"]
    assert sample.queries_filename == "reitou_souko.queries.jsonl"
    assert "Japanese" in samples.document_name("reitou")
    doc = samples.load_sample("reitou")
    assert 4000 <= len(doc.text) <= 8000 and not doc.several_files
    rows = samples.sample_questions("reitou")
    assert len(rows) >= 20 and [r["id"] for r in rows[:4]] == list(sample.demo_ids)
    for row in rows:
        for item in row["evidence"]:
            assert doc.text[item["start"] : item["end"]] == item["text"], row["id"]
    qset = parse_queries(samples.sample_queries_text("reitou"), doc)
    assert not qset.errors and len(qset.queries) == len(rows)
    chunks = chunk_document(doc, ChunkingConfig())
    gold = label_queries(qset, doc, chunks)
    assert {g.query.id: g.type for g in gold} == {r["id"]: r["type"] for r in rows}  # at 600/60
    assert [g.type for g in gold].count("fragmented") >= 5
