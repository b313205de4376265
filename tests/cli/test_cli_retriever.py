"""``--retriever`` on the CLI: a tiny document whose BM25 ranking is worked out by hand."""

from __future__ import annotations

import json

import pytest

from scar_viz.cli.main import main

PARAS = [
    "Ferry tickets are sold at the harbour office.",
    "The ferry leaves at noon and the ferry tickets cost ten.",
    "Gulls nest on the pier in the spring and the summer.",
    "Tickets for the museum are free on Sundays.",
    "The lighthouse is closed for the whole of the winter.",
]
QUERY = "What is the cost of the ferry tickets?"
CHUNKING = ["--model", "hash", "--chunk-size", "60", "--overlap", "0"]


@pytest.fixture
def tiny(tmp_path):
    doc = tmp_path / "tiny.md"
    doc.write_text("\n\n".join(PARAS) + "\n", encoding="utf-8")
    queries = tmp_path / "tiny.queries.jsonl"
    row = {"id": "q1", "query": QUERY, "type": "atomic", "evidence": [{"text": PARAS[1]}]}
    queries.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return doc, queries


def _json(capsys, *argv) -> dict:
    assert main([*map(str, argv), *CHUNKING, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _retrieved(capsys, doc, retriever: str, k: int = 5, *extra) -> list[int]:
    out = _json(capsys, "select", doc, "--query", QUERY, "--k", k, "--retriever", retriever, *extra)
    assert out["n_chunks"] == 5
    return out["retrieved"]


def test_eval_with_bm25_retrieves_the_hand_ranking(tiny, capsys):
    # Terms after stop words: cost (df 1: chunk 1), ferry (df 2: chunks 0, 1 twice),
    # tickets (df 3: chunks 0, 1, 3). Chunk 1 holds all three, chunk 0 two, chunk 3 one;
    # chunks 2 and 4 none (tie at 0, lower index first).
    doc, queries = tiny
    bm25 = _json(capsys, "eval", doc, queries, "--policies", "topk", "--k", "3", "--boot", "0",
                 "--retriever", "bm25")  # fmt: skip
    assert bm25["queries"][0]["policies"]["topk"]["selected"] == [0, 1, 3]
    assert bm25["retriever"] == {"name": "bm25"}
    assert _retrieved(capsys, doc, "bm25") == [1, 0, 3, 2, 4]


def test_dense_is_the_default_and_differs_from_bm25_here(tiny, capsys):
    doc, queries = tiny
    args = ["eval", doc, queries, "--policies", "topk,scar", "--boot", "0"]
    default = _json(capsys, *args)
    dense = _json(capsys, *args, "--retriever", "dense")
    assert default == dense and "retriever" not in dense
    assert _retrieved(capsys, doc, "dense") != _retrieved(capsys, doc, "bm25")


@pytest.mark.parametrize("k_rrf", [60, 0])
def test_hybrid_fuses_the_dense_and_bm25_rankings(tiny, capsys, k_rrf):
    doc, _ = tiny
    rank = {}
    for name in ("dense", "bm25"):
        rank[name] = {c: i + 1 for i, c in enumerate(_retrieved(capsys, doc, name))}
    fused = {c: 1 / (k_rrf + rank["dense"][c]) + 1 / (k_rrf + rank["bm25"][c]) for c in range(5)}
    hand = sorted(range(5), key=lambda c: (-fused[c], c))
    assert _retrieved(capsys, doc, "hybrid", 5, "--rrf-k", k_rrf) == hand


def test_a_bad_rrf_constant_is_one_line(tiny, capsys):
    doc, queries = tiny
    assert main(["eval", str(doc), str(queries), *CHUNKING, "--retriever", "hybrid",
                 "--rrf-k", "-1"]) == 1  # fmt: skip
    err = capsys.readouterr().err
    assert err.startswith("error:") and "RRF constant" in err and len(err.splitlines()) == 1
