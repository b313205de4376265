"""The language notice: a question in a script the document (and the model) does not use."""

from __future__ import annotations

import pytest

from scar_viz.documents import samples
from scar_viz.embeddings.sentence_transformers import default_model_path
from scar_viz.views.language import (
    language_notice,
    model_tokens,
    script_of,
    script_shares,
    unknown_share,
)

JAPANESE = "最終便が欠航になったらどうなりますか？"
ENGLISH = "What happens if the last crossing of the day is cancelled?"


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
    low = language_notice(ENGLISH, document_text, best_cos=0.1, usual_best_cos=0.5)
    assert low is not None and "under half the usual 0.500" in low.message
    assert language_notice(ENGLISH, document_text, best_cos=0.3, usual_best_cos=0.5) is None


def test_default_model_tokenizer_maps_japanese_to_unknown():
    tokens = model_tokens(default_model_path(), JAPANESE)
    assert tokens is not None and unknown_share(tokens) >= 0.25
    assert unknown_share(model_tokens(default_model_path(), ENGLISH)) == 0.0
    assert model_tokens("/nonexistent", ENGLISH) is None and model_tokens(None, ENGLISH) is None
