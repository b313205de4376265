"""``select --policy`` and ``eval --policies`` for qasc-hybrid, rse, automerge and
sentence-window, their options, and QASC's top k against ``--all-windows``."""

from __future__ import annotations

import json

import pytest

from scar_viz.cli import main as cli
from scar_viz.documents import samples
from scar_viz.policies import ALTERNATIVES
from tests.cli.test_cli_select import SAMPLE, select


# learned has its own CLI tests (test_cli_fit_gate)
@pytest.mark.parametrize("policy", [p for p in ALTERNATIVES if p != "learned"])
def test_every_alternative_selects(capsys, policy):
    code, out, err = select(capsys, "--policy", policy)
    assert code == 0, err
    text = SAMPLE.read_text(encoding="utf-8")
    assert out["policy"] == policy
    assert out["spans"] and all(0 <= s < e <= len(text) for s, e in out["spans"])
    assert out["chars"] > 0 and out["tokens"] > 0 and out["notes"]
    if policy in ("rse", "automerge"):
        assert out["selected"]
    else:
        assert out["selected"] is None


def test_alternative_knobs_reach_the_policy(capsys):
    _, top, _ = select(capsys, "--policy", "qasc")
    _, every, _ = select(capsys, "--policy", "qasc", "--all-windows")
    assert len(top["spans"]) <= 3 < len(every["spans"]) and top["chars"] < every["chars"]
    assert every["params"]["all_windows"] is True
    _, narrow, _ = select(capsys, "--policy", "sentence-window", "--w", "0")
    _, wide, _ = select(capsys, "--policy", "sentence-window")
    assert narrow["chars"] < wide["chars"] and narrow["params"]["w"] == 0
    _, short, _ = select(capsys, "--policy", "rse", "--max-length", "1", "--minimum-value", "0")
    assert short["params"]["max_length"] == 1 and all("Σv" in n for n in short["notes"][:1])
    _, budget, _ = select(capsys, "--policy", "rse", "--overall-max-length", "2")
    assert len(budget["selected"]) <= 2
    _, never, _ = select(capsys, "--policy", "automerge", "--merge-ratio", "1", "--no-fill-gaps")
    assert never["params"]["ratio"] == 1.0 and never["params"]["fill_gaps"] is False
    assert len(never["selected"]) == 3  # nothing merged, nothing filled: the top 3
    _, hybrid, _ = select(capsys, "--policy", "qasc-hybrid", "--margin", "0")
    assert hybrid["params"]["margin"] == 0


def test_a_bad_alternative_knob_is_one_error_line(capsys):
    code, _, err = select(capsys, "--policy", "rse", "--max-length", "0")
    assert code == cli.EXIT_FAILED and err.startswith("error: ") and err.count("\n") == 1
    code, _, err = select(capsys, "--policy", "automerge", "--merge-ratio", "2")
    assert code == cli.EXIT_FAILED and "merge ratio" in err
    code, _, err = select(capsys, "--policy", "topk", "--margin", "1")
    assert code == cli.EXIT_FAILED and "does not take margin" in err


def test_eval_runs_the_alternatives(tmp_path, capsys):
    doc = tmp_path / "harbor.md"
    doc.write_text(samples.load_sample().text, encoding="utf-8")
    queries = tmp_path / "harbor.queries.jsonl"
    queries.write_text(samples.sample_queries_text(), encoding="utf-8")
    argv = ["eval", str(doc), str(queries), "--model", "hash", "--json", "--boot", "0"]
    assert cli.main([*argv, "--policies", *ALTERNATIVES, "topk"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["policies"]) == {*ALTERNATIVES, "topk"} and not out["errors"]
    for name in ALTERNATIVES:
        assert 0.0 <= out["policies"][name]["all"]["recall"] <= 1.0
    assert out["policies"]["rse"]["recall_by"] == "chunk ids"
    assert out["policies"]["sentence-window"]["recall_by"] == "character coverage"
