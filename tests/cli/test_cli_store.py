"""``--store`` on ``fit-gate``, ``answer`` and ``make-queries``: the same output as from the
document the store was made from (hashing embedder, loopback fake chat server)."""

from __future__ import annotations

import json

import pytest

from scar_viz.cli.main import main

pytest.importorskip("lancedb", reason="the scale extras are not installed")

HASH = ["--model", "hash", "--chunk-size", "400", "--no-cache"]


@pytest.fixture
def stored(sample_files, tmp_path, capsys):
    """(document, queries, store): the sample indexed with the hashing model at 400/60."""
    doc, queries = sample_files
    store = str(tmp_path / "s")
    assert main(["index", str(doc), "--store", store, *HASH]) == 0
    capsys.readouterr()
    return doc, queries, store


def _out(capsys, argv) -> str:
    assert main(argv) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_fit_gate_from_a_store_writes_the_same_gate(stored, tmp_path, capsys):
    doc, queries, store = stored
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    want = _out(capsys, ["fit-gate", str(doc), str(queries), *HASH, "--out", str(a), "--json"])
    got = _out(
        capsys, ["fit-gate", "--store", store, str(queries), *HASH, "--out", str(b), "--json"]
    )
    assert json.loads(got)["gate"] == json.loads(want)["gate"]
    assert json.loads(got)["in_sample"] == json.loads(want)["in_sample"]
    assert json.loads(b.read_text()) == json.loads(a.read_text())


def test_fit_gate_from_a_store_of_another_chunking_is_one_line(stored, tmp_path, capsys):
    _, queries, store = stored
    argv = ["fit-gate", "--store", store, str(queries), "--model", "hash", "--out", "g.json"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "recursive 400/60, not hash:256 · recursive 600/60" in err and err.count("\n") == 1
    assert not (tmp_path / "g.json").exists()


def test_answer_from_a_store_equals_the_document(llm_server, stored, capsys):
    doc, queries, store = stored
    opts = ["--llm-base-url", llm_server.base_url, "--policies", "topk", "scar"]
    opts += ["--limit", "3", "--boot", "200", "--json", "--no-llm-cache", *HASH]
    want = json.loads(_out(capsys, ["answer", str(doc), str(queries), *opts]))
    got = json.loads(_out(capsys, ["answer", "--store", store, str(queries), *opts]))
    assert want["policies"]["scar"]["n_scored"]["faithfulness"] == 3
    assert got == want


def test_make_queries_from_a_store_equals_the_document(llm_server, stored, capsys):
    doc, _, store = stored
    opts = ["--n", "4", "--base-url", llm_server.base_url, "--chunk-size", "400"]
    want = _out(capsys, ["make-queries", str(doc), *opts])
    got = _out(capsys, ["make-queries", "--store", store, *opts])
    assert len(want.splitlines()) == 4
    assert got == want


def test_make_queries_from_a_store_asks_its_chunking(llm_server, stored, capsys):
    _, _, store = stored
    argv = ["make-queries", "--store", store, "--base-url", llm_server.base_url]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "recursive 400/60, not" in err and err.count("\n") == 1
    assert llm_server.calls == 0


def test_make_queries_needs_a_document_or_a_store(capsys):
    assert main(["make-queries", "--n", "2"]) == 1
    assert "Give a document (DOC) or a store" in capsys.readouterr().err
