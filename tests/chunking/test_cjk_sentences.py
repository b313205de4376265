"""Text written without spaces (Japanese, Chinese): the recursive chunker ends a chunk at a
sentence where it can, and a text without those marks is split exactly as langchain's
defaults split it (scar_viz/chunking/recursive.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_text_splitters import RecursiveCharacterTextSplitter

from scar_viz.chunking.base import locate
from scar_viz.chunking.recursive import split_recursive

SENTENCES = [
    "冷凍棟でのピッキング作業は、一回の入室につき連続二十分までとする。",
    "二十分を超えたら作業者は前室に出て、十分以上休憩してから再び入室する。",
    "防寒服の着用と、二人一組での作業は、冷凍棟ではいつでも必須である！",
    "温度が戻らない場合はどうするか？",
    "数据库服务器在凌晨两点自动备份。",
]


def japanese_paragraph(n: int = 30) -> str:
    return "".join(SENTENCES[i % len(SENTENCES)] for i in range(n))  # one line, no spaces


@pytest.mark.parametrize(("size", "overlap"), [(120, 0), (200, 20), (600, 60)])
def test_a_chunk_of_text_without_spaces_ends_at_a_sentence(size, overlap):
    text = japanese_paragraph()
    spans = split_recursive(text, size, overlap)
    assert len(spans) > 1 and all(e - s <= size for s, e in spans)
    assert all(text[e - 1] in "。！？" for s, e in spans)  # the mark stays with its sentence
    assert spans[0][0] == 0 and spans[-1][1] == len(text)


def test_before_the_sentence_end_was_a_separator_chunks_cut_mid_sentence():
    """What the added separator changes: langchain's defaults cut this text anywhere."""
    text = japanese_paragraph()
    plain = locate(
        text, RecursiveCharacterTextSplitter(chunk_size=200, chunk_overlap=20).split_text(text), 20
    )
    assert any(text[e - 1] not in "。！？" for _, e in plain[:-1])


@settings(max_examples=60, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("abc de.\n,!?'XY")), min_size=0, max_size=700),
    st.sampled_from([(50, 0), (120, 20), (300, 60)]),
)
def test_text_without_cjk_marks_is_split_as_langchains_defaults_split_it(text, setting):
    size, overlap = setting
    default = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap)
    assert split_recursive(text, size, overlap) == locate(text, default.split_text(text), overlap)
