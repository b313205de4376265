"""The model-language note (scar_viz/views/model_language.py): a Japanese document with the
English-only default model gets it; an English one does not; nor does a model of which nothing
is known, or the lexical hashing model."""

from __future__ import annotations

import pytest

from scar_viz.documents import samples
from scar_viz.embeddings.sentence_transformers import default_embedder
from scar_viz.embeddings.static import StaticEmbedder
from scar_viz.views.model_language import known_scripts, model_language_note

DEFAULT_ID = default_embedder().model_id


@pytest.fixture(scope="module")
def japanese():
    return samples.load_sample("reitou").text


def test_a_japanese_document_with_the_default_model_gets_the_note(japanese):
    note = model_language_note(japanese, DEFAULT_ID)
    assert note is not None
    assert note.startswith("98% of this document's letters are Japanese")
    assert "English only" in note and "st:" in note and "OpenAI-compatible" in note


@pytest.mark.parametrize("key", ["harbor", "kestrel"])
def test_an_english_document_gets_no_note(key):
    assert model_language_note(samples.load_sample(key).text, DEFAULT_ID) is None


def test_the_static_default_is_english_only_too(japanese):
    assert model_language_note(japanese, StaticEmbedder().model_id) is not None


@pytest.mark.parametrize(
    "model_id",
    [
        "hash:256",
        "st:/models/multilingual-e5-small",
        "st:BAAI/bge-m3",
        "openai:text-embedding-3-small",
        "st:/srv/models/my-model",
    ],
)
def test_no_note_for_a_model_not_known_to_be_english_only(japanese, model_id):
    assert known_scripts(model_id) is None
    assert model_language_note(japanese, model_id) is None


def test_a_mostly_english_document_with_some_japanese_gets_no_note(japanese):
    english = samples.load_sample("harbor").text
    assert model_language_note(english + japanese[:2000], DEFAULT_ID) is None
    assert model_language_note(english[:1000] + japanese, DEFAULT_ID) is not None


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("数据库服务器在凌晨两点自动备份。" * 5, "Chinese characters"),
        ("서버가 응답하지 않으면 로그를 확인하세요. " * 5, "Korean (Hangul)"),
    ],
)
def test_the_note_names_the_script(text, named):
    assert named in (model_language_note(text, DEFAULT_ID) or "")
