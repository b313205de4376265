"""A corpus as one Document (scar_viz.documents.corpus) and chunking that never straddles files."""

from __future__ import annotations

import pytest

from scar_viz.chunking.config import ChunkingConfig, chunk_doc_of, chunk_document
from scar_viz.documents.corpus import (
    JOIN,
    global_span,
    join_documents,
    local_span,
    part_document,
    part_of_path,
)
from scar_viz.documents.reading import DocumentError, Part, document_from_text

A = "# Alpha\n\nThe first file talks about alpha. " * 6
B = "Plain text without any heading, about beta and nothing else. " * 5
C = "# Gamma\n\nIntro.\n\n## Details\n\nGamma details go here. " * 4


def _docs():
    # given out of order: the corpus sorts by path
    return [
        document_from_text("c/gamma.md", C),
        document_from_text("a.md", A),
        document_from_text("b.txt", B),
    ]


def test_one_file_is_the_document_itself():
    doc = document_from_text("a.md", A)
    assert join_documents([doc]) is doc
    # a file is a corpus of one: its one part is the whole text, under its own name
    assert doc.parts == (Part("a.md", 0, len(A)),) and doc.part_range(5) == (0, len(A))
    assert not doc.several_files and doc.shown_paths == () and doc.shown_path(0) == ""
    assert doc.shown_sections == doc.sections
    assert part_document(doc, 0) == doc


def test_join_orders_by_path_and_keeps_each_text_at_its_range():
    corpus = join_documents(_docs())
    assert [p.path for p in corpus.parts] == ["a.md", "b.txt", "c/gamma.md"]
    assert corpus.several_files and corpus.shown_paths == ("a.md", "b.txt", "c/gamma.md")
    for part, text in zip(corpus.parts, (A, B, C), strict=True):
        assert corpus.text[part.start : part.end] == text
    assert corpus.text[corpus.parts[0].end : corpus.parts[1].start] == JOIN
    # sections tile the joined text with the paths of their own file; the labels shown name
    # the file first
    assert corpus.sections[0].start == 0 and corpus.sections[-1].end == len(corpus.text)
    for a, b in zip(corpus.sections, corpus.sections[1:], strict=False):
        assert a.end == b.start
    own = [s.path for d in sorted(_docs(), key=lambda d: d.name) for s in d.sections]
    assert [s.path for s in corpus.sections] == own
    for sec, shown in zip(corpus.sections, corpus.shown_sections, strict=True):
        part = corpus.parts[corpus.part_index_at(sec.start)]
        assert shown.path == (part.path, *sec.path)
        assert (shown.start, shown.end, shown.level) == (sec.start, sec.end, sec.level)


def test_part_document_gives_back_each_file():
    docs = sorted(_docs(), key=lambda d: d.name)
    corpus = join_documents(docs)
    for i, doc in enumerate(docs):
        back = part_document(corpus, i)
        assert back.name == doc.name and back.text == doc.text
        assert [(s.start, s.end, s.path) for s in back.sections] == [
            (s.start, s.end, s.path) for s in doc.sections
        ]


def test_spans_convert_between_file_and_corpus():
    corpus = join_documents(_docs())
    i = part_of_path(corpus, "b.txt")
    assert i == 1 and part_of_path(corpus, "missing.md") is None
    span = global_span(corpus, i, (10, 20))
    assert corpus.text[span[0] : span[1]] == B[10:20]
    assert local_span(corpus, span) == ("b.txt", (10, 20))


def test_duplicate_paths_and_empty_corpus_are_refused():
    doc = document_from_text("a.md", A)
    with pytest.raises(DocumentError, match="share the path"):
        join_documents([doc, doc])
    with pytest.raises(DocumentError, match="no document"):
        join_documents([])


@pytest.mark.parametrize("chunker", ["recursive", "fixed", "sentence", "section"])
def test_chunks_never_straddle_two_files(chunker):
    corpus = join_documents(_docs())
    chunks = chunk_document(corpus, ChunkingConfig(chunker, 120, 20))
    doc_of = chunk_doc_of(corpus, chunks)
    assert doc_of is not None and sorted(set(doc_of.tolist())) == [0, 1, 2]
    for chunk, d in zip(chunks, doc_of.tolist(), strict=True):
        part = corpus.parts[d]
        assert part.start <= chunk.start < chunk.end <= part.end
        assert corpus.text[chunk.start : chunk.end] == chunk.text
    assert [c.index for c in chunks] == list(range(len(chunks)))
    # each file's chunks are exactly the chunks of that file on its own, shifted
    for i, part in enumerate(corpus.parts):
        own = chunk_document(part_document(corpus, i), ChunkingConfig(chunker, 120, 20))
        mine = [c for c, d in zip(chunks, doc_of.tolist(), strict=True) if d == i]
        assert [(c.start - part.start, c.end - part.start) for c in mine] == [
            (c.start, c.end) for c in own
        ]


def test_a_single_file_is_file_0_of_every_chunk():
    doc = document_from_text("a.md", A)
    chunks = chunk_document(doc)
    doc_of = chunk_doc_of(doc, chunks)
    assert doc_of.shape == (len(chunks),) and not doc_of.any()


def test_the_digest_is_a_files_text_digest_and_tells_corpora_apart_by_their_files():
    """Document.digest keys the app's per-document state: a file's is its text's sha256 (as
    saved sessions name it), a corpus's also covers its files' paths and ranges."""
    from scar_viz.embeddings.cache import text_key

    doc = document_from_text("a.md", A)
    assert doc.digest == text_key(A) == document_from_text("renamed.md", A).digest
    corpus = join_documents(_docs())
    renamed = join_documents(
        [document_from_text(d.name.replace("b.txt", "b2.txt"), d.text) for d in _docs()]
    )
    assert renamed.text == corpus.text and renamed.digest != corpus.digest
    assert corpus.digest == join_documents(_docs()).digest != text_key(corpus.text)
