"""Open an index in the sidebar: a store under the operator's root shows as its corpus without
re-embedding; a path outside the root, another model, no root and no extras are refused with
one message each."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents import samples
from scar_viz.documents.corpus import part_document
from scar_viz.embeddings import HashEmbedder
from tests.pages.helpers import APP, alerts, open_index
from ui import store_open

pytest.importorskip("lancedb", reason="the scale extras are not installed")

TIMEOUT = 120
REFUSED = "Only indexes under the index root this server names open here."


def _index(folder, dim: int = 256) -> list[str]:
    """The kestrel sample corpus indexed into ``folder`` (hash model); its files' paths."""
    from scar_viz.store import index_corpus

    corpus = samples.load_sample("kestrel")
    files = [part_document(corpus, i) for i in range(len(corpus.parts))]
    index_corpus(files, str(folder), HashEmbedder(dim), ChunkingConfig(size=400, overlap=40))
    return [p.path for p in corpus.parts]


def test_an_index_under_the_root_shows_its_corpus_without_embedding(root, embedded):
    paths = _index(root / "kb")
    at = open_index("kb")
    embedded.clear()  # the first run embedded the default sample
    at.text_input(key="q").set_value("Which unit runs the nightly backup?").run()
    assert not at.exception, at.exception
    caption = " ".join(alerts(at.sidebar, "caption"))
    assert f"corpus: {len(paths)} files" in caption
    assert "from the index, nothing embedded" in caption and "recursive 400/40" in caption
    table = next(d.value for d in at.dataframe if "retrieved" in d.value.columns)
    assert sorted(table["file"]) == sorted(paths)
    assert table["retrieved"].sum() > 0
    n_chunks = int(caption.split(" chunks")[0].rsplit(" ", 1)[-1].replace(",", ""))
    # questions only (this one and the starters drawn from the headings), never a chunk
    assert n_chunks > 20 and "Which unit runs the nightly backup?" in embedded
    assert len(embedded) < 10 and all(t.endswith("?") for t in embedded)


def test_the_chunking_lab_shows_an_opened_index_with_its_own_chunking_as_a(root):
    from scar_viz.store import open_store, store_meta

    _index(root / "kb")
    meta = store_meta(str(root / "kb"))
    stored = open_store(str(root / "kb"), meta.model, meta.config, meta.prepend)
    at = open_index("kb", "pages/chunking.py")
    assert at.title[0].value == "Chunking lab"
    infos = alerts(at, "info")
    assert any("index's own chunking (recursive 400/40)" in t for t in infos), infos
    a_chunks = next(m.value for m in at.metric if m.label == "A chunks")
    assert int(a_chunks.replace(",", "")) == len(stored.chunks)
    # B (sentences by default) differs from the index's cut
    assert next(m.value for m in at.metric if m.label == "B chunks") != a_chunks
    html = "".join(h.proto.body for h in at.get("html"))
    assert 'class="sv-b"' in html  # the passage view drew the boundaries


@pytest.mark.parametrize("typed", ["../outside", "OUTSIDE", "kb/../../outside"])
def test_a_path_outside_the_root_is_refused(root, typed):
    outside = root.parent / "outside"
    _index(outside)
    at = open_index(typed.replace("OUTSIDE", str(outside)))
    assert set(alerts(at, "error")) == {REFUSED}
    assert not any("retrieved" in d.value.columns for d in at.dataframe)


def test_a_symbolic_link_out_of_the_root_is_refused(root):
    outside = root.parent / "outside"
    _index(outside)
    (root / "link").symlink_to(outside, target_is_directory=True)
    at = open_index("link")
    assert set(alerts(at, "error")) == {REFUSED}


def test_an_index_of_another_model_is_named(root):
    _index(root / "kb64", dim=64)
    at = open_index("kb64")
    (message,) = set(alerts(at, "error"))
    # named by their labels (a model id may be a server path: never shown)
    assert "made with" in message and "64-d" in message and "256-d" in message


def test_no_index_there_is_one_message(root):
    (root / "empty").mkdir()
    assert "holds no store" in alerts(open_index("empty"), "error")[0]
    assert set(alerts(open_index("missing"), "error")) == {
        "There is no folder 'missing' under the index root."
    }


def test_without_a_root_the_option_says_how_to_enable_it(monkeypatch, hash_model):
    monkeypatch.delenv(store_open.ROOT_ENV, raising=False)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.selectbox(key="doc").set_value(store_open.STORE_CHOICE).run()
    assert not at.exception, at.exception
    assert store_open.ENABLE_NOTE in alerts(at.sidebar, "caption")
    assert "store_path" not in [w.key for w in at.text_input]


def test_without_the_extras_the_option_says_what_to_install(root, monkeypatch):
    monkeypatch.setattr(store_open, "extras_installed", lambda: False)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.selectbox(key="doc").set_value(store_open.STORE_CHOICE).run()
    assert not at.exception, at.exception
    assert store_open.INSTALL_NOTE in alerts(at.sidebar, "caption")
    assert "pip install -r requirements-scale.txt" in store_open.INSTALL_NOTE


def test_a_link_with_the_index_folder_reopens_it(root):
    paths = _index(root / "kb")
    # a fresh session opened at an address naming the folder: the same index, nothing typed
    again = AppTest.from_file(APP, default_timeout=TIMEOUT)
    again.query_params["doc"] = store_open.STORE_CHOICE
    again.query_params["store_path"] = "kb"
    again.run()
    assert not again.exception, again.exception
    assert f"corpus: {len(paths)} files" in " ".join(alerts(again.sidebar, "caption"))
    # and an address naming a folder outside the root is refused as typing it is
    away = AppTest.from_file(APP, default_timeout=TIMEOUT)
    away.query_params["doc"] = store_open.STORE_CHOICE
    away.query_params["store_path"] = "../elsewhere"
    away.run()
    assert not away.exception, away.exception
    assert REFUSED in alerts(away.sidebar, "error")


def test_messages_name_the_folder_as_typed_never_the_servers_path(root):
    at = open_index(".")
    said = " ".join(alerts(at) + alerts(at.sidebar))
    assert "'.' holds no store" in said, said
    assert str(root) not in said and str(root.resolve()) not in said
