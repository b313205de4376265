"""Query and document prompts (scar_viz/embeddings/prompts.py): a model saved with ``prompts``
gets them, questions the query prompt and chunks the document prompt; the options override
them; the prompts are in the cache key and in the model's name."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import numpy as np
import pytest

from scar_viz.cli.main import main
from scar_viz.embeddings import EmbeddingCache, HashEmbedder, embed_cached, make_embedder
from scar_viz.embeddings.cache import vectors_id
from scar_viz.embeddings.prompts import (
    PromptedEmbedder,
    Prompts,
    config_prompts,
    query_side,
    set_prompts,
)
from scar_viz.pipeline import embed_query
from scripts.tiny_models import tiny_bert_with_prompts
from tests.cli.test_cli_reference import HARBOR, HARBOR_QUERIES

E5 = {"query": "query: ", "passage": "passage: "}


@pytest.fixture(scope="module")
def e5_like(tmp_path_factory):
    return tiny_bert_with_prompts(tmp_path_factory.mktemp("e5") / "tiny", E5)


def spy_on(embedder) -> list[str]:
    """The texts the loaded sentence-transformers model receives, prompt included (encode hands
    ``preprocess`` the texts and the prompt it puts before each)."""
    model = embedder.load()
    real = model.preprocess
    seen: list[str] = []

    def preprocess(inputs, prompt=None, **kwargs):
        seen.extend((prompt or "") + text for text in inputs)
        return real(inputs, prompt=prompt, **kwargs)

    model.preprocess = preprocess
    return seen


def test_a_model_saved_with_prompts_gets_query_prompt_for_questions_passage_for_chunks(
    e5_like, tmp_path
):
    embedder = make_embedder(f"st:{e5_like}")
    assert isinstance(embedder, PromptedEmbedder)
    assert embedder.prompts == Prompts("query: ", "passage: ")
    seen = spy_on(embedder)
    chunks = embed_cached(embedder, ["the ferry is cancelled", "tide and wind"], None).vectors
    question = embed_query(embedder, "when is the ferry cancelled", None)
    assert seen == [
        *sorted(["passage: the ferry is cancelled", "passage: tide and wind"], key=len)[::-1],
        "query: when is the ferry cancelled",
    ]
    # what the model received is what the vectors are: the prompts are in them
    raw = embedder.inner.load()
    plain = raw.encode(["passage: the ferry is cancelled", "query: when is the ferry cancelled"])
    plain = plain / np.linalg.norm(plain, axis=1, keepdims=True)
    assert np.allclose(chunks[0], plain[0], atol=1e-5)
    assert np.allclose(question, plain[1], atol=1e-5)
    without = raw.encode(["the ferry is cancelled"])[0]
    assert not np.allclose(chunks[0], without / np.linalg.norm(without), atol=1e-3)


def test_the_options_override_the_models_own_prompts_and_blank_removes_one(e5_like):
    embedder = make_embedder(f"st:{e5_like}", query_prompt="Represent this question: ")
    assert embedder.prompts == Prompts("Represent this question: ", "passage: ")
    off = make_embedder(f"st:{e5_like}", query_prompt="", doc_prompt="")
    assert not isinstance(off, PromptedEmbedder)  # none left: the model as it is
    seen = spy_on(query_side(embedder))
    query_side(embedder).embed(["tide"])
    assert seen == ["Represent this question: tide"]


def test_any_embedder_gets_its_prompts_put_before_the_text():
    hashed = make_embedder("hash", query_prompt="query: ", doc_prompt="passage: ")
    plain = HashEmbedder()
    assert np.allclose(hashed.embed(["gate"]), plain.embed(["passage: gate"]))
    assert np.allclose(query_side(hashed).embed(["gate"]), plain.embed(["query: gate"]))
    assert make_embedder("hash", query_prompt="", doc_prompt="").model_id == "hash:256"
    again = set_prompts(hashed, None, "")
    assert again.prompts == Prompts("query: ", "")


def test_prompts_change_the_cache_key_and_each_side_keeps_its_own(tmp_path):
    plain = make_embedder("hash")
    prompted = make_embedder("hash", query_prompt="query: ", doc_prompt="passage: ")
    keys = {vectors_id(plain), vectors_id(prompted), vectors_id(query_side(prompted))}
    assert len(keys) == 3
    assert vectors_id(make_embedder("hash", query_prompt="q: ")) != vectors_id(query_side(prompted))
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    as_chunk = embed_cached(prompted, ["gate"], cache).vectors[0]
    as_question = embed_query(prompted, "gate", cache)
    assert not np.allclose(as_chunk, as_question)  # never read back across sides
    assert cache.count(vectors_id(prompted)) == 1
    assert cache.count(vectors_id(query_side(prompted))) == 1
    assert cache.count(vectors_id(plain)) == 0


def test_the_prompts_are_in_the_models_name_in_the_output(tmp_path):
    out = io.StringIO()
    args = [
        *("select", str(HARBOR), "--query", "When is the ferry cancelled?"),
        *("--model", "hash", "--query-prompt", "query: ", "--doc-prompt", "passage: "),
        *("--json", "--cache", str(tmp_path)),
    ]
    with redirect_stdout(out):
        assert main(args) == 0
    assert json.loads(out.getvalue())["model"] == 'hash:256 [query "query: ", document "passage: "]'
    out = io.StringIO()
    with redirect_stdout(out):
        evaluation = [str(HARBOR), str(HARBOR_QUERIES), "--boot", "0", "--policies", "topk"]
        assert main(["eval", *evaluation, "--model", "hash", "--query-prompt", "q: "]) == 0
    assert '(256-d, lexical, no model) [query "q: "]' in out.getvalue().splitlines()[0]


@pytest.mark.parametrize(
    ("prompts", "expected"),
    [
        (E5, Prompts("query: ", "passage: ")),
        ({"query": "Q ", "document": "D ", "passage": "P "}, Prompts("Q ", "D ")),
        ({"corpus": "C "}, Prompts("", "C ")),
        ({"classification": "x"}, Prompts()),
        (None, Prompts()),
    ],
)
def test_config_prompts_reads_query_and_the_first_document_name(prompts, expected):
    assert config_prompts(prompts) == expected
