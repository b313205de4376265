"""Indexing into a store: what is written, and a second run embeds only what changed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import read_document
from scar_viz.pipeline import prepare_document
from scar_viz.store import EngineOptions, StoreError, index_corpus, open_store
from scar_viz.store.tables import CHUNKS, connect
from tests.store.corpus import CONFIG, CountingEmbedder, sample_files


def test_round_trip_equals_the_in_memory_corpus(tmp_path):
    docs = sample_files()
    report = index_corpus(docs, str(tmp_path / "s"), CountingEmbedder(), CONFIG)
    want = prepare_document(join_documents(docs), CountingEmbedder(), CONFIG)
    got = open_store(str(tmp_path / "s"), "hash:256", CONFIG)
    assert report.added == 4 and report.chunks_embedded == report.chunks_total == len(want.chunks)
    assert got.document == want.document
    assert got.chunks == want.chunks
    assert np.array_equal(got.unit, want.unit) and np.array_equal(got.penalties, want.penalties)
    assert np.array_equal(got.doc_of, want.doc_of)


def test_a_files_note_survives_the_store(tmp_path):
    # a file decoded as Latin-1 says so; read back from the store the corpus says it too, as
    # the corpus in memory does (the store keeps each file as it was read)
    docs = [*sample_files(2), read_document("latin.txt", "Caf\xe9 au lait. ".encode("cp1252") * 40)]
    assert docs[-1].note
    index_corpus(docs, str(tmp_path / "s"), CountingEmbedder(), CONFIG)
    got = open_store(str(tmp_path / "s"), "hash:256", CONFIG)
    want = join_documents(docs)
    assert "latin.txt: " in want.note and got.document == want


def test_chunk_rows_hold_file_local_offsets(tmp_path):
    docs = sample_files()
    index_corpus(docs, str(tmp_path / "s"), CountingEmbedder(), CONFIG)
    rows = connect(str(tmp_path / "s")).open_table(CHUNKS).to_arrow().to_pylist()
    by_path = {d.name: d.text for d in docs}
    assert {r["path"] for r in rows} == set(by_path)
    for r in rows:
        assert by_path[r["path"]][r["start"] : r["end"]] == r["text"]
        assert len(r["vector"]) == 256
    assert sorted(r["index"] for r in rows if r["path"] == "part2.md")[0] == 0


def test_prepended_store_embeds_the_joined_section_paths(tmp_path):
    docs = sample_files(3)
    index_corpus(docs, str(tmp_path / "s"), CountingEmbedder(), CONFIG, prepend=True)
    want = prepare_document(join_documents(docs), CountingEmbedder(), CONFIG, prepend=True)
    got = open_store(str(tmp_path / "s"), "hash:256", CONFIG, prepend=True)
    assert np.array_equal(got.unit, want.unit)


def test_reindex_embeds_only_the_changed_file(tmp_path):
    docs = sample_files(5)
    uri = str(tmp_path / "s")
    index_corpus(docs, uri, CountingEmbedder(), CONFIG, options=EngineOptions(batch_size=7))
    changed = read_document("part2.md", docs[2].text.replace("the", "a").encode())
    counter = CountingEmbedder()
    report = index_corpus([*docs[:2], changed, *docs[3:]], uri, counter, CONFIG)
    own = prepare_document(changed, CountingEmbedder(), CONFIG)
    assert (report.added, report.changed, report.removed, report.unchanged) == (0, 1, 0, 4)
    assert sorted(counter.texts) == sorted({c.text for c in own.chunks})
    want = prepare_document(join_documents([*docs[:2], changed, *docs[3:]]), counter, CONFIG)
    got = open_store(uri, "hash:256", CONFIG)
    assert got.chunks == want.chunks and np.array_equal(got.unit, want.unit)


def test_unchanged_corpus_embeds_nothing(tmp_path):
    docs = sample_files(3)
    index_corpus(docs, str(tmp_path / "s"), CountingEmbedder(), CONFIG)
    counter = CountingEmbedder()
    report = index_corpus(docs, str(tmp_path / "s"), counter, CONFIG)
    assert counter.texts == [] and report.unchanged == 3 and report.chunks_embedded == 0


def test_removed_file_is_dropped(tmp_path):
    docs = sample_files(4)
    uri = str(tmp_path / "s")
    index_corpus(docs, uri, CountingEmbedder(), CONFIG)
    counter = CountingEmbedder()
    report = index_corpus([docs[0], docs[1], docs[3]], uri, counter, CONFIG)
    got = open_store(uri, "hash:256", CONFIG)
    assert report.removed == 1 and counter.texts == []
    assert [p.path for p in got.document.parts] == ["part0.md", "part1.md", "part3.md"]
    rows = connect(uri).open_table(CHUNKS).to_arrow().column("path").to_pylist()
    assert "part2.md" not in rows
    want = prepare_document(join_documents([docs[0], docs[1], docs[3]]), counter, CONFIG)
    assert got.chunks == want.chunks


def test_indexing_under_another_setting_is_refused(tmp_path):
    docs = sample_files(2)
    index_corpus(docs, str(tmp_path / "s"), CountingEmbedder(), CONFIG)
    with pytest.raises(StoreError, match="hash:256 · recursive 300/30, not hash:256 · fixed"):
        index_corpus(
            docs, str(tmp_path / "s"), CountingEmbedder(), replace(CONFIG, chunker="fixed")
        )


def test_ray_engine_needs_a_spec(tmp_path):
    with pytest.raises(StoreError, match="spec"):
        index_corpus(
            sample_files(2),
            str(tmp_path / "s"),
            CountingEmbedder(),
            CONFIG,
            options=EngineOptions("ray"),
        )
