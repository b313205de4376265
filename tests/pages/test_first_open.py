"""First opens on a 90-file corpus embed nothing beyond its chunks and the questions: Compare,
Chunking lab and Equal budget leave the sentence work (the sentence policies, the semantic
chunker) off, say what it would cost, and do it once asked.

The model is the hash embedder made slow (a fixed time per character, as a real model spends
its time on tokens), so the speed each page measures says the sentences would take seconds;
every text it embeds is counted.
"""

from __future__ import annotations

import re
import time

import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.chunking.config import ChunkingConfig, chunk_document
from scar_viz.embeddings import HashEmbedder, speed, text_key
from scar_viz.queries.reading import parse_queries
from tests.pages.helpers import APP, alerts
from tests.test_benchmarks import load

_scale = load("corpus_scale")
build_corpus, make_queries = _scale.build_corpus, _scale.make_queries

TIMEOUT = 300
SECONDS_PER_CHAR = 1.5e-5
"""The slow model: 67,000 characters a second (about 160 k characters of chunks: 2.4 s), slow
enough that the sentences' estimate reads in seconds ("at least N s")."""
FILES, CHUNKS_PER_FILE = 90, 3
SIZE, OVERLAP = 600, 60
QUESTION = "What does the kestrel timer do?"


@pytest.fixture(params=[7])
def corpus(request):
    """The synthetic corpus; each test its own seed (``indirect``), as the app's process-wide
    caches (vectors on disk, prepared documents) would otherwise carry one test's work into
    the next."""
    return build_corpus(FILES, CHUNKS_PER_FILE, seed=request.param)


@pytest.fixture
def embedded(monkeypatch, hash_model) -> list[str]:
    """Every text the (slowed) hash model embeds while the app runs."""
    speed.forget()
    texts: list[str] = []
    original = HashEmbedder.embed

    def slow_counting(self, batch, progress=None):
        texts.extend(batch)
        time.sleep(SECONDS_PER_CHAR * sum(len(t) for t in batch))
        return original(self, batch, progress)

    monkeypatch.setattr(HashEmbedder, "embed", slow_counting)
    return texts


def _app(corpus) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["uploaded"] = (text_key(corpus.text), corpus)
    at.session_state["doc"] = "upload"
    at.session_state["size"] = SIZE
    at.session_state["overlap"] = OVERLAP
    at.session_state["qsets"] = {
        corpus.digest: {"upload": ("synthetic.jsonl", make_queries(corpus, 12).encode())}
    }
    at.session_state["qs_pick"] = "upload"
    at.run()
    assert not at.exception, at.exception
    return at


def _open(at: AppTest, page: str) -> AppTest:
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return at


def _allowed(corpus) -> set[str]:
    """The chunks' texts and the questions (the only texts a first open may embed)."""
    chunks = chunk_document(corpus, ChunkingConfig(size=SIZE, overlap=OVERLAP))
    questions = parse_queries(make_queries(corpus, 12), corpus).queries
    return {c.text for c in chunks} | {q.query for q in questions} | {QUESTION}


def _beyond(embedded: list[str], allowed: set[str]) -> list[str]:
    return [t for t in embedded if t not in allowed]


def _cost_caption(at: AppTest) -> str:
    return next(c.value for c in at.caption if c.value.startswith("Sentence policies"))


def test_compare_and_budget_open_without_the_sentence_policies_and_add_them_once_asked(
    corpus, embedded
):
    at = _app(corpus)
    allowed = _allowed(corpus)
    assert embedded and not _beyond(embedded, allowed)  # the Explorer embedded the chunks

    _open(at, "pages/compare.py")
    at.text_input(key="q").set_value(QUESTION).run()
    assert not at.exception, at.exception
    words = _cost_caption(at)
    assert at.toggle(key="cmp_sent").value is False, words
    assert "sentences to embed" in words and "(an estimate" in words, words
    assert re.search(r"at least \d+ s here", words), words
    policies = " ".join(str(v) for d in at.dataframe for v in d.value.iloc[:, 0])
    assert "qasc" not in policies.lower()
    assert not _beyond(embedded, allowed)

    _open(at, "pages/budget.py")
    assert at.toggle(key="bud_sent").value is False
    assert not _beyond(embedded, allowed)

    _open(at, "pages/compare.py")
    at.text_input(key="q").set_value(QUESTION).run()
    assert at.toggle(key="cmp_sent").value is False
    at.toggle(key="cmp_sent").set_value(True).run()
    assert not at.exception, at.exception
    extra = _beyond(embedded, allowed)
    assert len(extra) > 100, len(extra)  # the corpus' sentences, once asked
    assert any("qasc" in str(v).lower() for d in at.dataframe for v in d.value.iloc[:, 0])
    at.run()  # the cost is stated before the work: the next run finds nothing left to embed
    assert "every one of the sentences is embedded already" in _cost_caption(at)
    assert not alerts(at, "error")


@pytest.mark.parametrize("corpus", [8], indirect=True)
def test_the_chunking_lab_opens_without_the_semantic_chunker_and_runs_it_once_asked(
    corpus, embedded
):
    at = _app(corpus)
    allowed = _allowed(corpus)
    assert embedded and not _beyond(embedded, allowed)  # the Explorer embedded the chunks
    _open(at, "pages/chunking.py")
    assert not _beyond(embedded, allowed)
    table = next(d.value for d in at.dataframe if "chunker" in d.value.columns)
    assert "semantic" not in " ".join(map(str, table["chunker"])).lower()
    offer = at.button(key="lab_semantic")
    assert "to embed" in offer.label or any("to embed" in c.value for c in at.caption)

    offer.click().run()
    assert not at.exception, at.exception
    assert len(_beyond(embedded, allowed)) > 100
    table = next(d.value for d in at.dataframe if "chunker" in d.value.columns)
    assert "semantic" in " ".join(map(str, table["chunker"])).lower()
