"""``python -m scar_viz recommend``: the JSON contract, one verdict whatever the order of the
query file, ``--save`` read back, ``--retriever`` narrowing the candidates, and bad options as
one line."""

from __future__ import annotations

import json
import random

import pytest

from scar_viz.cli.main import main
from scar_viz.evaluation.settings import load_settings
from scar_viz.scoring.learned import LearnedGate
from tests.evaluation_sample import CANDIDATE_KEYS, VERDICT_KEYS


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = main([*map(str, argv), "--model", "hash"])
    out = capsys.readouterr()
    return code, out.out, out.err


def _json(capsys, *argv) -> dict:
    code, out, err = _run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_the_json_contract(sample_files, capsys):
    doc, queries = sample_files
    out = _json(capsys, "recommend", doc, queries, "--boot", "500")
    assert list(out) == ["verdict", "folds", "repeats", "budget_tokens", "candidates"]
    assert list(out["verdict"]) == VERDICT_KEYS
    low, high = out["verdict"]["expected_gain_ci"]  # 24 queries: 4 folds, the choice nests
    assert low <= out["verdict"]["expected_gain"] <= high
    assert all(list(c) == CANDIDATE_KEYS for c in out["candidates"])
    assert {c["policy"] for c in out["candidates"]} == {"topk", "window1", "scar", "learned"}
    assert {c["retriever"] for c in out["candidates"]} == {"dense", "bm25", "hybrid"}
    assert {c["k"] for c in out["candidates"]} == set(range(1, 11))
    a = [
        c for c in out["candidates"] if c["policy"] == "scar" and (c["lam"], c["tau"]) == (0.5, 0.1)
    ]
    assert len(a) >= 30  # preset A at every retriever and k
    ref = next(
        c
        for c in out["candidates"]
        if (c["retriever"], c["policy"], c["k"]) == ("dense", "window1", 3)
    )
    assert out["budget_tokens"] == ref["mean_tokens"] and ref["recall_ci"] == [0.0, 0.0]
    v = out["verdict"]
    assert any(
        (c["retriever"], c["policy"], c["k"], c["lam"], c["tau"], c["p"])
        == (v["retriever"], v["policy"], v["k"], v["lam"], v["tau"], v["p"])
        for c in out["candidates"]
    )


def test_three_orders_of_the_query_file_give_one_verdict(sample_files, tmp_path, capsys):
    doc, queries = sample_files
    lines = [line for line in queries.read_text(encoding="utf-8").splitlines() if line.strip()]
    outputs = []
    for seed in (0, 1, 2):
        shuffled = lines[:]
        random.Random(seed).shuffle(shuffled)
        path = tmp_path / f"order{seed}.jsonl"
        path.write_text("\n".join(shuffled) + "\n", encoding="utf-8")
        code, out, err = _run(capsys, "recommend", doc, path, "--boot", "500", "--json")
        assert code == 0, err
        outputs.append(out)
    assert lines != sorted(lines)
    assert outputs[0] == outputs[1] == outputs[2]


def test_save_writes_settings_that_read_back(sample_files, tmp_path, capsys):
    doc, queries = sample_files
    path = tmp_path / "settings.json"
    out = _json(capsys, "recommend", doc, queries, "--policies", "learned", "--save", path)
    saved = load_settings(path)
    v = out["verdict"]
    assert (saved.retriever, saved.policy, saved.k, saved.p) == (
        v["retriever"],
        "learned",
        v["k"],
        v["p"],
    )
    assert saved.lam is saved.tau is saved.mu is None
    assert saved.gate is not None and saved.gate.fitted_on["n_queries"] == 24
    assert saved.chosen_on["model"] == "hash:256" and saved.chosen_on["sentence"] == v["sentence"]
    gate_file = tmp_path / "gate.json"
    gate_file.write_text(json.dumps(json.loads(path.read_text())["gate"]), encoding="utf-8")
    assert LearnedGate.load(gate_file) == saved.gate  # a gate file other tools read as is
    again = load_settings(path)
    assert again == saved and again.gate.weights == saved.gate.weights  # bit for bit
    # the saved gate runs in eval on the queries it was fitted on
    code, text, err = _run(
        capsys,
        "eval",
        doc,
        queries,
        "--policies",
        "learned",
        "--gate",
        gate_file,
        "--p",
        saved.p,
        "--k",
        saved.k,
        "--retriever",
        saved.retriever,
        "--boot",
        "0",
    )
    assert code == 0, err


def test_save_of_a_scar_verdict(sample_files, tmp_path, capsys):
    doc, queries = sample_files
    path = tmp_path / "scar.json"
    out = _json(capsys, "recommend", doc, queries, "--policies", "scar", "--save", path)
    saved = load_settings(path)
    v = out["verdict"]
    assert saved.policy == "scar" and (saved.lam, saved.tau, saved.mu) == (
        v["lam"],
        v["tau"],
        v["mu"],
    )
    assert saved.gate is None and saved.p is None
    assert saved.params.lam == v["lam"] and saved.retriever_setting.name == v["retriever"]


def test_retriever_narrows_the_candidates(sample_files, capsys):
    doc, queries = sample_files
    out = _json(
        capsys, "recommend", doc, queries, "--retriever", "hybrid", "--policies", "topk,window1"
    )
    assert {c["retriever"] for c in out["candidates"]} == {"hybrid"}
    assert out["verdict"]["retriever"] == "hybrid"


def test_text_output(sample_files, capsys):
    doc, queries = sample_files
    code, out, err = _run(capsys, "recommend", doc, queries, "--boot", "300")
    assert code == 0, err
    lines = out.splitlines()
    assert "24 queries, 4 folds × 3 repeats" in lines[0]
    assert lines[1].startswith(("Use ", "Try ", "Keep what you have", "No candidate"))
    assert lines[2].startswith("Out of fold on 24 queries (4 folds × 3 repeats)")
    assert "reference" in out and "window ±1" in out
    assert "note: 5 folds need 25 queries; 4 folds were used on 24." in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--boot", "0"), "--boot"),
        (("--lam", "0.3"), "tunes λ and τ itself"),
        (("--budget", "0"), "--budget"),
        (("--policies", "rse"), "recommend compares"),
        (("--save", "/nonexistent-dir/settings.json"), "Cannot write the settings"),
    ],
)
def test_bad_options_are_one_line(sample_files, capsys, extra, message):
    doc, queries = sample_files
    code, out, err = _run(capsys, "recommend", doc, queries, *extra)
    assert code == 1 and message in err and len(err.strip().splitlines()) <= 2
    assert "Traceback" not in err


def test_too_few_queries_is_one_line(sample_files, tmp_path, capsys):
    doc, queries = sample_files
    few = tmp_path / "few.jsonl"
    few.write_text("\n".join(queries.read_text(encoding="utf-8").splitlines()[:6]) + "\n")
    code, out, err = _run(capsys, "recommend", doc, few)
    assert code == 1 and "at least 10 labelled queries" in err


def test_the_docs_example_sentence_is_what_the_command_says(sample_files, capsys):
    """docs/cli.md quotes the sentence on the built-in sample with --model hash."""
    from pathlib import Path

    doc_text = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    block = doc_text.split("on the built-in sample with `--model hash`:\n\n")[1].split("\n\n")[0]
    quoted = " ".join(line.strip() for line in block.splitlines())
    doc, queries = sample_files
    code, out, err = _run(capsys, "recommend", doc, queries)
    assert code == 0, err
    assert out.splitlines()[1] == quoted
