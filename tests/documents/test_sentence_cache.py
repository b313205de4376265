"""Sentence spans on disk: a second process reads what the first split, and the memo the
policies use is seeded with it."""

from __future__ import annotations

from scar_viz.documents import sentences
from scar_viz.documents.sentence_cache import (
    SentenceSpanCache,
    cached_sentence_spans,
    spans_key,
)

TEXT = "First sentence here. Second one follows!\n\nA new paragraph. And its end?"
WHOLE = ((0, len(TEXT)),)
"""A document of one file: one part, the whole text."""


def test_split_once_then_read_from_disk(tmp_path, monkeypatch):
    cache = SentenceSpanCache(tmp_path / "s.sqlite")
    first = cached_sentence_spans(TEXT, cache, WHOLE)
    assert first == sentences.sentence_spans(TEXT)
    assert cache.get(spans_key(TEXT, WHOLE, "pysbd", sentences.DEFAULT_MAX_CHARS)) == first

    def forbidden(*_a, **_k):
        raise AssertionError("the text was split again")

    monkeypatch.setattr(sentences, "_split", forbidden)
    sentences._memo.clear()  # a new process: only the disk cache is left
    assert cached_sentence_spans(TEXT, cache, WHOLE) == first
    # the memo is seeded: the policies' call (another spelling of the arguments) splits nothing
    assert sentences.sentence_spans(TEXT, "pysbd") == first


def test_parts_and_settings_are_part_of_the_key():
    assert spans_key(TEXT, (), "pysbd", 1000) != spans_key(TEXT, ((0, 10),), "pysbd", 1000)
    assert spans_key(TEXT, (), "pysbd", 1000) != spans_key(TEXT, (), "regex", 1000)
    assert spans_key(TEXT, (), "pysbd", 1000) != spans_key(TEXT + " ", (), "pysbd", 1000)


def test_corpus_parts_split_each_file(tmp_path):
    cache = SentenceSpanCache(tmp_path / "s.sqlite")
    parts = ((0, 40), (42, len(TEXT)))
    got = cached_sentence_spans(TEXT, cache, parts)
    assert got == sentences.part_sentence_spans(TEXT, parts)
    assert all(TEXT[s:e].strip() == TEXT[s:e] for s, e in got)


def test_the_key_names_the_splitting_rules(monkeypatch):
    """Spans stored under older splitting rules are not read back after the rules change."""
    from scar_viz.documents import sentence_cache

    before = spans_key(TEXT, (), "pysbd", 1000)
    monkeypatch.setattr(sentence_cache, "SPLIT_RULES", sentence_cache.SPLIT_RULES + 1)
    assert spans_key(TEXT, (), "pysbd", 1000) != before
