"""AppTest: a model a visitor (or a link) names loads only from the operator's models root or
the local hub cache. A folder elsewhere, a path that does not exist and a folder that fails to
load all read the same one message, and the page goes on."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.runtime.models_root import refusal
from scripts.tiny_models import tiny_bert, tiny_cross_encoder
from tests.pages.helpers import APP, alerts, open_page

TIMEOUT = 120


@pytest.fixture
def places(tmp_path, monkeypatch):
    """(models root, a real model folder outside it); the root holds a model and a folder
    that is no model."""
    root = tmp_path / "models"
    tiny_bert(root / "tiny")
    (root / "broken").mkdir()
    (root / "broken" / "config.json").write_text("{}")
    outside = tiny_bert(tmp_path / "private" / "model")
    monkeypatch.setenv("SCAR_VIZ_MODELS_ROOT", str(root))
    return root, outside


def sidebar_model(typed: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({"model": "sentence-transformers", "st_model": typed})
    at.run()
    assert not at.exception, at.exception
    return at


def shown(at: AppTest) -> list[str]:
    return [a for a in alerts(at) + alerts(at.sidebar) if "cannot be loaded" in a]


@pytest.mark.parametrize("how", ["outside", "missing", "escapes", "not a model"])
def test_every_refused_or_failed_model_reads_the_same(hash_model, places, how):
    root, outside = places
    typed = {
        "outside": str(outside),
        "missing": str(outside.parent / "no-such-model"),
        "escapes": "../private/model",
        "not a model": "broken",
    }[how]
    assert shown(sidebar_model(typed)) == [refusal(typed)]


def test_a_folder_under_the_root_loads_and_is_named_as_typed(hash_model, places):
    root, _ = places
    at = sidebar_model("tiny")
    assert not shown(at)
    captions = " ".join(alerts(at.sidebar, "caption"))
    assert "sentence-transformers: tiny" in captions
    assert str(root) not in captions  # the label says what was typed, not the server's path


def test_compare_refuses_a_reranker_outside_the_root_as_it_refuses_a_missing_one(
    hash_model, places
):
    root, outside = places
    tiny_cross_encoder(root / "ce")
    stranger = tiny_cross_encoder(outside.parent / "ce")
    at = open_page("pages/compare.py", TIMEOUT)
    notes = {}
    for typed in (str(stranger), str(stranger.parent / "gone"), "ce"):
        at.text_input(key="rr").set_value(typed).run()
        assert not at.exception, at.exception
        left_out = [c.value for c in at.caption if c.value.startswith("Rerank is left out")]
        notes[typed] = left_out[0].replace(typed, "TYPED") if left_out else ""
    assert notes[str(stranger)] == notes[str(stranger.parent / "gone")] != ""
    assert notes["ce"] == ""  # under the root: it loads, and rerank runs
    policies = next(d.value for d in at.dataframe if "jaccard vs scar" in d.value.columns)
    assert any(str(p).startswith("rerank") for p in policies["policy"])
    assert str(root) not in policies.to_string()


def test_the_transfer_pages_second_model_is_held_to_the_root(hash_model, places):
    _, outside = places
    at = open_page("pages/transfer.py", TIMEOUT)
    for typed in (str(outside), str(outside.parent / "missing")):
        at.text_input(key="m2").set_value(f"st:{typed}").run()
        assert not at.exception, at.exception
        assert refusal(typed) in alerts(at)


def test_a_model_under_the_root_is_named_without_the_servers_path(hash_model, places):
    root, _ = places
    at = open_page("pages/transfer.py", TIMEOUT)
    at.text_input(key="m2").set_value("st:tiny").run()
    assert not at.exception, at.exception
    shown = " ".join(df.value.to_string() for df in at.dataframe)
    shown += " ".join(c.value for c in at.caption)
    assert "sentence-transformers: tiny" in shown  # model 2's label, as typed
    assert "st:models-root/tiny#" in shown  # its id (the bar table's rows), below the root
    assert str(root) not in shown and str(root.resolve()) not in shown
