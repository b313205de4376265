"""One tokeniser and one idf for BM25 and the gate's lexical term (scar_viz/common/terms.py)."""

from __future__ import annotations

import math
import re

import bm25s
import numpy as np
import pytest
from bm25s.stopwords import STOPWORDS_EN
from hypothesis import given, settings
from hypothesis import strategies as st

from scar_viz.common.terms import idf, term_index, tokenize, tokenize_all
from scar_viz.retrieval import K1, B, bm25_index
from scar_viz.scoring.lexical import chunk_index

TEXTS = [
    "The harbour gate opens at dawn; the gate closes at dusk.",
    "Vessels signal the gate before entering the harbour.",
    "Pilots board vessels outside the harbour.",
    "Nothing relevant here, naïve café_2 and TCP's RTO.",
]


def reference(text: str) -> list[str]:
    """A straightforward reference: lower-cased ``\\w+`` runs of two or more characters, less
    bm25s's English stop words (the μ term's tokeniser before it shared this one)."""
    return [t for t in re.findall(r"\w+", text.lower()) if len(t) > 1 and t not in STOPWORDS_EN]


SPACELESS = re.compile(
    "[\u3005\u3006\u3040-\u309f\u30a0-\u30fa\u30fc-\u30ff\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002fa1f\u1100-\u11ff\u3130-\u318f"
    "\uac00-\ud7af\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\uff01-\uff5e]"
)
"""Characters of the scripts cut into bigrams (and full-width ASCII), written out here apart
from scar_viz.common.terms' own tables."""


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
def test_the_tokeniser_is_bm25s_and_the_plain_regex(text):
    text = SPACELESS.sub(" ", text)  # spaced scripts only: bm25s exactly (every English figure)
    assert tokenize(text) == reference(text)
    assert tokenize(text) == list(
        bm25s.tokenize([text], return_ids=False, show_progress=False, stopwords="en")[0]
    )


def test_tokenize_all_is_tokenize_text_by_text():
    assert tokenize_all(TEXTS) == [tokenize(t) for t in TEXTS]
    assert tokenize_all([]) == [] and tokenize("") == [] and tokenize("a an the") == []
    assert tokenize("TCP's RTO, x = 3 s; naïve café_2") == ["tcp", "rto", "naïve", "café_2"]


def test_the_index_counts_each_term_once_per_chunk_and_weighs_it_by_idf():
    index = term_index([*TEXTS, "gate gate gate"])
    assert index.n_chunks == 5 and index.tokens[4] == ("gate", "gate", "gate")
    assert index.postings["gate"].tolist() == [0, 1, 4]
    assert index.idf["gate"] == pytest.approx(math.log1p((5 - 3 + 0.5) / 3.5))
    assert index.query_terms("Which gate? The GATE of the harbour, not the moon") == (
        "gate",
        "harbour",
    )
    assert index.query_terms("which gate", leave_out={"gate"}) == ()
    assert term_index(list(TEXTS)) is term_index(tuple(TEXTS))


def test_bm25_scores_with_the_same_idf():
    """bm25s computes idf inside its index: for one term, its score is idf(t) times the
    term-frequency factor of §8, with idf from :func:`scar_viz.common.terms.idf`."""
    index = term_index(TEXTS)
    lengths = np.array([len(t) for t in index.tokens], dtype=np.float64)
    for term in ("gate", "harbour", "vessels", "dawn"):
        tf = np.array([t.count(term) for t in index.tokens], dtype=np.float64)
        factor = tf / (tf + K1 * (1 - B + B * lengths / lengths.mean()))
        expected = idf(index.n_chunks, len(index.postings[term])) * factor
        assert np.allclose(bm25_index(TEXTS).scores(term), expected, rtol=1e-12)


def test_bm25_and_the_lexical_term_read_one_index():
    assert bm25_index(TEXTS).terms is term_index(TEXTS) is chunk_index(TEXTS).terms
    assert chunk_index(TEXTS).idf is term_index(TEXTS).idf


def _bigrams(run: str) -> list[str]:
    return [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["冷凍", "倉庫", "の", "を", "する", "ゾーン", "WMS", "dock", "D3", " ", "。"]
        ),
        max_size=20,
    )
)
def test_a_spaceless_run_is_cut_into_bigrams_beside_the_words_around_it(pieces):
    """Japanese runs become their character bigrams in place; the Latin words between them are
    what bm25s would find with the runs blanked out."""
    text = "".join(pieces)
    runs = re.findall("[\u3040-\u30ff\u4e00-\u9fff]+", text)
    tokens = tokenize(text)
    kana_kanji = [t for t in tokens if re.match("[\u3040-\u30ff\u4e00-\u9fff]", t)]
    assert kana_kanji == [b for r in runs for b in _bigrams(r)]
    words = [t for t in tokens if t not in kana_kanji]
    assert words == reference(re.sub("[\u3040-\u30ff\u4e00-\u9fff。]", " ", text))


def test_mixed_japanese_english_and_code_tokenise_both_parts():
    tokens = tokenize(
        "出荷確定は端末から `wms ship confirm --dock D3` を入力し、WMS の FIFO を守る。"
    )
    assert {"wms", "ship", "confirm", "dock", "d3", "fifo"} <= set(tokens)  # English and code
    assert {"出荷", "確定", "端末", "入力"} <= set(tokens)  # Japanese bigrams
    assert "出荷確定は端末から" not in tokens  # not one clause-long token
    assert tokenize("ＷＭＳ１２を") == ["wms12", "を"]  # full-width Latin read as ASCII


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("数据库服务器在凌晨两点自动备份。", {"数据", "据库", "服务", "务器", "备份"}),
        ("서버가 응답하지 않으면 로그를 확인하세요.", {"서버", "응답", "로그", "확인"}),
        ("เซิร์ฟเวอร์สำรองข้อมูล", {"ข้อ", "มูล"}),  # a vowel sign kept with its letter
    ],
)
def test_chinese_korean_and_thai_give_short_shared_tokens(text, expected):
    tokens = tokenize(text)
    assert expected <= set(tokens)
    assert max(len(t) for t in tokens) <= 4 and len(tokens) >= 5


def test_a_korean_word_with_another_particle_still_shares_a_term():
    index = term_index(["서버가 응답하지 않으면 재시작한다.", "로그는 매일 삭제된다."])
    assert index.query_terms("서버를 재시작하려면?")[:1] == ("서버",)
    assert index.postings["서버"].tolist() == [0]
