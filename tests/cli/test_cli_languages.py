"""The command line on a Japanese document: the model-language note on stderr with the
English-only default model (and none for an English document), and BM25 finding the evidence
of a question asked in Japanese."""

from __future__ import annotations

import json

import pytest

from scar_viz.cli import main as cli
from tests.cli.test_cli_reference import HARBOR, SAMPLES

JAPANESE = SAMPLES / "reitou_souko.md"
QUESTION = "停電のとき、非常用発電機は何秒ほどで冷凍棟の冷凍機に電力を送りますか？"


def select(capsys, doc, *extra: str) -> tuple[dict, str]:
    args = ["select", str(doc), "--query", QUESTION, "--json", "--no-cache", *extra]
    assert cli.main(args) == 0
    out = capsys.readouterr()
    return json.loads(out.out), out.err


@pytest.mark.model
def test_the_default_model_on_a_japanese_document_says_so_in_one_note(capsys):
    _, err = select(capsys, JAPANESE)
    notes = [line for line in err.splitlines() if "English only" in line]
    assert len(notes) == 1 and notes[0].startswith("note: 98% of this document's letters")
    _, err = select(capsys, HARBOR)
    assert "English only" not in err


def test_bm25_on_the_hash_model_takes_the_japanese_question_to_its_evidence(capsys):
    out, err = select(capsys, JAPANESE, "--model", "hash", "--retriever", "bm25", "--k", "1")
    assert "English only" not in err  # nothing is claimed of a lexical model
    text = JAPANESE.read_text(encoding="utf-8")
    evidence = "約40秒で冷凍棟の冷凍機に電力を送る"
    assert out["retrieved"] == [4]
    assert any(evidence in text[s:e] for s, e in out["spans"])
