"""The language notice: a question in a script the document (and the model) does not use."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents import samples
from scar_viz.documents.starters import starter_questions
from scar_viz.embeddings import make_embedder
from scar_viz.embeddings.sentence_transformers import default_model_path
from scar_viz.pipeline import PreparedDoc, embed_query, prepare_document
from scar_viz.views.language import (
    LOW_COS_SHARE,
    UsualCosine,
    language_notice,
    model_tokens,
    script_of,
    script_shares,
    unknown_share,
    usual_cosine,
)

JAPANESE = "最終便が欠航になったらどうなりますか？"
ENGLISH = "What happens if the last crossing of the day is cancelled?"
OFF_TOPIC = "How do I bake sourdough bread?"


@pytest.fixture(scope="module")
def document_text() -> str:
    return samples.load_sample().text


def test_scripts_by_hand():
    assert [script_of(c) for c in "aЖ最の ?1"] == [
        "LATIN",
        "CYRILLIC",
        "CJK",
        "HIRAGANA",
        "",
        "",
        "",
    ]
    assert script_shares("ab cd Ж") == {"LATIN": 0.8, "CYRILLIC": 0.2}
    assert script_shares("1 2 ?") == {}


def test_unknown_share_leaves_special_tokens_out():
    assert unknown_share(["[CLS]", "[UNK]", "の", "[UNK]", "?", "[SEP]"]) == 0.5
    assert unknown_share(["[CLS]", "[SEP]"]) == 0.0


def test_japanese_question_on_an_english_document_gets_a_notice(document_text):
    notice = language_notice(JAPANESE, document_text, best_cos=0.093)
    assert notice is not None
    assert notice.foreign_share == 1.0 and set(notice.scripts) == {"CJK", "HIRAGANA"}
    assert "not in the model's language" in notice.message and "0.093" in notice.message
    assert "are Hiragana and CJK, scripts the document hardly uses" in notice.message


def test_english_question_gets_none(document_text):
    assert language_notice(ENGLISH, document_text, best_cos=0.6) is None
    assert language_notice("", document_text) is None


def test_a_few_foreign_words_are_not_enough(document_text):
    assert language_notice("Is the ferry to Ålesund or to Göteborg (港)?", document_text) is None


def test_unknown_tokens_alone_fire(document_text):
    tokens = ["[CLS]", "[UNK]", "[UNK]", "x", "[SEP]"]
    notice = language_notice("xx yy", document_text, tokens=tokens)
    assert notice is not None and notice.unknown_share == pytest.approx(2 / 3)
    assert language_notice("xx yy", document_text, tokens=["[CLS]", "x", "[SEP]"]) is None


def test_a_best_cosine_far_below_the_usual_fires(document_text):
    usual = UsualCosine(best=0.5, questions=5)
    assert usual.margin == pytest.approx(LOW_COS_SHARE * 0.5) and usual.bar == pytest.approx(0.25)
    low = language_notice(ENGLISH, document_text, best_cos=0.2, usual=usual)
    assert low is not None and low.foreign_share == 0.0
    assert "another language than the model's, or off-topic" in low.message
    assert "0.200 is far below the usual 0.500" in low.message and "under 0.250" in low.message
    assert language_notice(ENGLISH, document_text, best_cos=0.3, usual=usual) is None
    assert language_notice(ENGLISH, document_text, best_cos=0.2) is None  # no usual: no signal


def test_usual_cosine_by_hand():
    chunks = np.eye(4)  # four orthogonal unit chunks
    questions = np.array([[0.8, 0.6, 0, 0], [0, 0, 0.6, 0.8], [0.6, 0, 0.8, 0]])
    assert usual_cosine(questions, chunks) == UsualCosine(best=0.8, questions=3)
    assert usual_cosine(np.zeros((0, 4)), chunks) is None
    assert usual_cosine(questions, np.zeros((0, 4))) is None
    assert usual_cosine(-np.eye(4)[:2], chunks) is None  # no positive scale


@pytest.fixture(scope="module")
def hashed() -> tuple[PreparedDoc, object]:
    emb = make_embedder("hash")
    return prepare_document(samples.load_sample(), emb, ChunkingConfig()), emb


def _best(hashed, question: str) -> float:
    prep, emb = hashed
    return float((prep.unit @ embed_query(emb, question)).max())


def _sample_usual(hashed) -> UsualCosine:
    prep, emb = hashed
    starters = starter_questions(prep.document)
    assert len(starters) >= 3
    usual = usual_cosine(np.stack([embed_query(emb, q) for q in starters]), prep.unit)
    assert usual is not None and usual.questions == len(starters)
    return usual


def test_starter_questions_set_the_usual_and_the_sample_questions_pass(hashed, document_text):
    usual = _sample_usual(hashed)
    assert 0.0 < usual.bar < usual.best
    labelled = [q["query"] for q in samples.sample_questions()]
    best = {q: _best(hashed, q) for q in [ENGLISH, *labelled]}
    assert min(best.values()) > usual.bar, best  # no false alarm on the sample's own questions
    assert language_notice(ENGLISH, document_text, best_cos=best[ENGLISH], usual=usual) is None


def test_japanese_and_off_topic_questions_fall_below_the_usual(hashed, document_text):
    usual = _sample_usual(hashed)
    off = _best(hashed, OFF_TOPIC)
    assert off < usual.bar
    notice = language_notice(OFF_TOPIC, document_text, best_cos=off, usual=usual)
    assert notice is not None and "off-topic" in notice.message
    japanese = _best(hashed, JAPANESE)
    assert japanese < usual.bar
    notice = language_notice(JAPANESE, document_text, best_cos=japanese, usual=usual)
    assert notice is not None and "far below the usual" in notice.message
    assert "likely not in the model's language" in notice.message  # its script says so too


def test_default_model_tokenizer_maps_japanese_to_unknown():
    tokens = model_tokens(default_model_path(), JAPANESE)
    assert tokens is not None and unknown_share(tokens) >= 0.25
    assert unknown_share(model_tokens(default_model_path(), ENGLISH)) == 0.0
    assert model_tokens("/nonexistent", ENGLISH) is None and model_tokens(None, ENGLISH) is None
