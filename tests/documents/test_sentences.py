"""Sentence spans: exact offsets, pysbd's quirks handled, invariants on random text."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scar_viz.documents.sentences import (
    _align,
    paragraph_spans,
    part_sentence_spans,
    regex_sentence_spans,
    sentence_spans,
)


def texts(text: str, spans) -> list[str]:
    return [text[s:e] for s, e in spans]


def test_abbreviations_do_not_end_a_sentence():
    text = "Dr. Smith met Mr. Jones at 9 a.m. on the quay. They spoke about e.g. tides."
    assert texts(text, sentence_spans(text)) == [
        "Dr. Smith met Mr. Jones at 9 a.m. on the quay.",
        "They spoke about e.g. tides.",
    ]


def test_hard_wrapped_lines_are_unwrapped_but_offsets_are_the_originals():
    text = (
        "   TCP is an important transport-layer protocol in the Internet\n"
        "   protocol stack.  It has evolved over decades of use.\n\n"
        "   A second paragraph\n   starts here."
    )
    got = texts(text, sentence_spans(text))
    assert got == [
        "TCP is an important transport-layer protocol in the Internet\n   protocol stack.",
        "It has evolved over decades of use.",
        "A second paragraph\n   starts here.",
    ]


def test_list_items_and_headings_stay_separate():
    text = "## Duties\nThe mate must:\n- check the ramp\n- count passengers\n1. log the crossing"
    got = texts(text, sentence_spans(text))
    assert got == [
        "## Duties",
        "The mate must:",
        "- check the ramp",
        "- count passengers",
        "1. log the crossing",
    ]


def test_repeated_short_sentences_get_their_own_offsets():
    # pysbd's own char_span option re-finds each sentence by regex and can misplace repeats.
    text = "Yes. No. Yes. Yes. No."
    spans = sentence_spans(text)
    assert [s for s, _ in spans] == [m.start() for m in re.finditer(r"Yes|No", text)]


def test_long_sentence_without_punctuation_is_cut_at_line_breaks():
    rows = "\n".join(f"| {i:04d} | value {i} |" for i in range(100))
    text = "+" + "-" * 20 + "+\n" + rows.replace("|", "!")
    spans = sentence_spans(text, max_chars=200)
    assert max(e - s for s, e in spans) <= 200
    assert len(spans) > 5


def test_paragraph_spans_split_at_blank_lines():
    text = "\n\nFirst para\nstill first.\n  \t\nSecond.\n\n\n  Third  \n"
    assert texts(text, paragraph_spans(text)) == ["First para\nstill first.", "Second.", "Third"]


def test_align_returns_none_when_the_text_was_altered():
    assert _align("Hello there. Bye.", ["Hello there.", "Bye."]) == [(0, 12), (13, 17)]
    assert _align("Hello there.", ["Hallo there."]) is None
    assert _align("Hello there. Bye.", ["Hello there."]) is None  # text left over


def test_regex_fallback():
    piece = 'He said "stop." Then he left! Why? 42 ships.'
    assert texts(piece, regex_sentence_spans(piece)) == [
        'He said "stop."',
        "Then he left!",
        "Why?",
        "42 ships.",
    ]
    assert texts(piece, sentence_spans(piece, method="regex")) == [
        'He said "stop."',
        "Then he left!",
        "Why?",
        "42 ships.",
    ]


@pytest.mark.parametrize("kwargs", [{"method": "spacy"}, {"max_chars": 5}])
def test_bad_arguments_raise(kwargs):
    with pytest.raises(ValueError):
        sentence_spans("Some text.", **kwargs)


def test_corpus_offsets_are_exact(corpus_path):
    text = corpus_path.read_text(encoding="utf-8")
    spans = sentence_spans(text)
    assert len(spans) > 1000
    _check_invariants(text, spans)


def _check_invariants(text: str, spans) -> None:
    covered = bytearray(len(text))
    previous_end = 0
    paragraphs = paragraph_spans(text)
    for s, e in spans:
        piece = text[s:e]
        assert piece and piece == piece.strip()
        assert s >= previous_end
        previous_end = e
        assert any(ps <= s and e <= pe for ps, pe in paragraphs)  # never crosses a blank line
        covered[s:e] = b"\x01" * (e - s)
    uncovered = [ch for ch, c in zip(text, covered, strict=True) if not c]
    assert all(ch.isspace() for ch in uncovered)  # every visible character is in a sentence


alphabet = st.sampled_from(list("abc XYZ.?!\n\n\t-:;,'\"()0123456789") + ["Mr.", "e.g.", "\n- "])


@settings(max_examples=80, deadline=None)
@given(st.lists(alphabet, max_size=120).map("".join))
def test_invariants_on_random_text(text):
    _check_invariants(text, sentence_spans(text))
    _check_invariants(text, sentence_spans(text, method="regex", max_chars=20))


def test_a_document_of_one_file_is_split_once_whichever_way_it_is_asked(monkeypatch):
    # QASC asks with the document's one part, the sentence chunker with the bare text: one split
    from scar_viz.documents import sentences

    text = "One file only. It has two sentences.\n\nAnd a second paragraph."
    calls = []
    split = sentences._split
    monkeypatch.setattr(sentences, "_split", lambda *a: calls.append(a) or split(*a))
    whole = part_sentence_spans(text, ((0, len(text)),))
    assert sentence_spans(text) == whole and len(calls) == 1


def _counting_splits(monkeypatch) -> list[str]:
    from scar_viz.documents import sentences

    calls: list[str] = []
    real = sentences._split

    def counting(text, method, max_chars):
        calls.append(text)
        return real(text, method, max_chars)

    monkeypatch.setattr(sentences, "_split", counting)
    sentences._memo.clear()
    return calls


def test_the_memo_holds_every_file_of_a_90_file_corpus(monkeypatch):
    calls = _counting_splits(monkeypatch)
    files = [f"File {i} opens here. It has two sentences." for i in range(90)]
    for text in files:
        sentence_spans(text)
    for text in files:  # a chunker's second setting: every file is asked again
        sentence_spans(text)
    assert len(calls) == 90


def test_the_memo_drops_the_least_recently_used_texts_past_its_character_budget(monkeypatch):
    from scar_viz.documents import sentences

    calls = _counting_splits(monkeypatch)
    monkeypatch.setattr(sentences._memo, "size", 120)  # two of the 53-character texts
    a, b, c = ("A" * 40 + f" {i}. Next one." for i in range(3))
    for text in (a, b, a, c):  # c pushes the total past 120: b, the least recent, goes
        sentence_spans(text)
    sentence_spans(a)
    assert calls == [a, b, c]
    sentence_spans(b)
    assert calls == [a, b, c, b]


def test_a_corpus_split_whole_then_file_by_file_splits_each_file_once(monkeypatch):
    calls = _counting_splits(monkeypatch)
    files = ["First file. Two sentences.", "Second file here. It ends."]
    text = "\n\n".join(files)
    parts = ((0, len(files[0])), (len(files[0]) + 2, len(text)))
    whole = part_sentence_spans(text, parts)
    by_file = [sentence_spans(f) for f in files]  # as a chunker cuts each file
    assert calls == files
    shifted = [(parts[i][0] + s, parts[i][0] + e) for i, own in enumerate(by_file) for s, e in own]
    assert list(whole) == shifted


def test_a_split_records_the_splitters_speed(monkeypatch):
    from scar_viz.documents.sentences import split_speed_key
    from scar_viz.embeddings import speed

    _counting_splits(monkeypatch)
    speed.forget()
    sentence_spans("A sentence about the weir and the tide. " * 100)
    assert speed.chars_per_second(split_speed_key("pysbd")) > 0
    speed.forget()


def test_japanese_sentences_end_at_their_marks_and_keep_a_closing_bracket():
    text = (
        "彼は「行く。」と言った。次に確認する！温度は？\n\n"
        "数据库在凌晨两点备份。See Fig. 3 for details."
    )
    got = [text[s:e] for s, e in sentence_spans(text)]
    assert got == [
        "彼は「行く。」と言った。",
        "次に確認する！",
        "温度は？",
        "数据库在凌晨两点备份。",
        "See Fig. 3 for details.",
    ]


def test_the_regex_fallback_breaks_after_a_japanese_mark_without_a_space():
    text = "一つ目の文。二つ目の文！ Third one. fourth"
    got = [text[s:e] for s, e in sentence_spans(text, method="regex")]
    assert got == ["一つ目の文。", "二つ目の文！", "Third one. fourth"]


def test_an_over_long_sentence_without_spaces_is_cut_after_a_comma():
    text = "あ" * 30 + "、" + "い" * 30 + "、" + "う" * 30
    got = [text[s:e] for s, e in sentence_spans(text, max_chars=40)]
    assert got == ["あ" * 30 + "、", "い" * 30 + "、", "う" * 30]
