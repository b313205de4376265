"""Which models a visitor may name: folders under the models root and hub models already in
the local cache; everything else is one message, the same whether the path exists or not."""

from __future__ import annotations

import re

import huggingface_hub.constants
import pytest

from scar_viz.runtime.models_root import ModelRefused, models_under, refusal, resolve_model
from scripts.tiny_models import tiny_bert


@pytest.fixture
def root(tmp_path):
    folder = tmp_path / "models"
    (folder / "mini").mkdir(parents=True)
    (folder / "team" / "bge").mkdir(parents=True)
    return folder


def refused(typed: str, root) -> str:
    with pytest.raises(ModelRefused) as err:
        resolve_model(typed, root)
    return str(err.value)


def test_folders_under_the_root_resolve_relative_or_absolute(root):
    assert resolve_model("mini", root) == ((root / "mini").resolve(), True)
    assert resolve_model(" team/bge ", root) == ((root / "team" / "bge").resolve(), True)
    assert resolve_model(str(root / "mini"), root) == ((root / "mini").resolve(), True)


def test_an_existing_and_a_missing_path_outside_read_the_same(root, tmp_path):
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "config.json").write_text("{}")
    existing = refused(str(outside), root)
    missing = refused(str(tmp_path / "no-such-folder"), root)
    # the name as typed (shortened when long) is the only difference
    assert re.sub(r"^The model '[^']*'", "X", existing) == re.sub(
        r"^The model '[^']*'", "X", missing
    )
    assert existing == refusal(str(outside))
    assert refused("../private", root) == refusal("../private")
    assert refused("mini/../../private", root) == refusal("mini/../../private")
    assert str(tmp_path) not in refusal("team/bge")  # the message never shows the root


def test_a_link_under_the_root_that_leads_out_is_refused(root, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / "shortcut").symlink_to(outside, target_is_directory=True)
    assert refused("shortcut", root) == refusal("shortcut")


def test_without_a_root_no_folder_loads(root):
    assert refused(str(root / "mini"), None) == refusal(str(root / "mini"))
    assert refused("", root) == refusal("")
    assert refused("~/models", root) == refusal("~/models")


def fake_hub_cache(cache, name: str) -> object:
    """A hub cache holding ``name`` as the hub library lays it out (refs/main -> snapshot)."""
    repo = cache / f"models--{name.replace('/', '--')}"
    snap = repo / "snapshots" / "0123abcd"
    tiny_bert(snap)
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("0123abcd")
    return snap


def test_a_hub_name_loads_from_the_local_cache_only(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    snap = fake_hub_cache(cache, "team/tiny-model")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    assert resolve_model("team/tiny-model", None) == (snap.resolve(), False)
    assert refused("team/not-cached", None) == refusal("team/not-cached")


def test_a_working_directory_folder_named_like_a_hub_model_never_loads(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tiny_bert(tmp_path / "team" / "lookalike")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "empty"))
    assert refused("team/lookalike", None) == refusal("team/lookalike")


def test_the_picker_lists_the_folders_under_the_root(root):
    (root / ".hidden").mkdir()
    (root / "notes.txt").write_text("x")
    assert models_under(root) == ["mini", "team"]
