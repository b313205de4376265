"""``python -m scar_viz fit-gate``, and ``--policy learned`` / ``--gate`` / ``--p`` in select and
eval (hashing embedder: no model download)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from scar_viz.cli.main import main
from scar_viz.documents import samples
from scar_viz.scoring.learned import (
    BASE_FEATURES,
    DEFAULT_P,
    LEXICAL_FEATURES,
    LearnedGate,
    default_gate,
)
from tests.conftest import run_cli

QUERY = "What happens if the last crossing of the day is cancelled?"


def select_learned(doc) -> list[str]:
    """``select`` with the learned policy on the hashing model."""
    return ["select", str(doc), "--query", QUERY, "--policy", "learned", "--model", "hash"]


@pytest.fixture
def hash_gate(sample_files, tmp_path, capsys):
    doc, queries = sample_files
    out = tmp_path / "gate.json"
    assert main(["fit-gate", str(doc), str(queries), "--model", "hash", "--out", str(out)]) == 0
    capsys.readouterr()
    return out


def test_fit_gate_writes_a_valid_gate(sample_files, tmp_path, capsys):
    doc, queries = sample_files
    out = tmp_path / "gate.json"
    argv = ["fit-gate", str(doc), str(queries), "--model", "hash", "--out", str(out), "--json"]
    assert main(argv) == 0
    printed = json.loads(capsys.readouterr().out)
    gate = LearnedGate.load(out)
    assert gate.to_dict() == printed["gate"]
    assert gate.feature_names == BASE_FEATURES
    meta = gate.fitted_on
    assert meta["k"] == 4  # fit-gate's default k
    assert meta["model"].startswith("hash")
    assert meta["chunking"] == "recursive 600/60"
    assert meta["n_queries"] == len(samples.sample_questions())
    assert 0 < meta["n_gold"] < meta["n_candidates"]
    assert 0.0 <= printed["in_sample"]["recall"] <= 1.0
    assert printed["in_sample"]["mean_chunks"] >= 4


def test_fit_gate_text_output_and_k(sample_files, tmp_path, capsys):
    doc, queries = sample_files
    out = tmp_path / "g.json"
    argv = ["fit-gate", str(doc), str(queries), "--model", "hash", "--k", "3", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "cos_qn" in text and "intercept" in text and "wrote" in text
    assert LearnedGate.load(out).fitted_on["k"] == 3


def test_select_with_gate_and_p(sample_files, hash_gate, capsys):
    doc, _ = sample_files
    chunks = {}
    for p in ("0.01", "0.5"):
        argv = ["select", str(doc), "--query", QUERY, "--policy", "learned", "--gate"]
        argv += [str(hash_gate), "--p", p, "--model", "hash", "--k", "4", "--json"]
        assert main(argv) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["policy"] == "learned"
        assert out["params"]["gate"] == str(hash_gate)
        assert out["params"]["p"] == float(p)
        assert len(out["retrieved"]) == 4
        assert out["decisions"]
        for d in out["decisions"]:
            if d["outcome"] == "admitted":
                assert d["probability"] > float(p)
            elif d["outcome"] == "rejected":
                assert d["probability"] <= float(p)
        assert set(out["selected"]) == set(out["retrieved"]) | set(out["admitted"])
        chunks[p] = len(out["selected"])
    assert chunks["0.01"] >= chunks["0.5"]


def test_select_without_gate_uses_the_default_gate(sample_files, capsys):
    argv = select_learned(sample_files[0])
    assert main(argv) == 0
    text, err = capsys.readouterr()
    assert "policy learned" in text and "prob" in text
    # the shipped gate was fitted on another model, and the run says so
    assert "note: The gate was fitted with model" in err and "hash" in err
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["params"]["gate"] == "default"
    assert out["params"]["p"] == DEFAULT_P
    assert default_gate().feature_names == BASE_FEATURES + LEXICAL_FEATURES


def test_eval_with_learned_gate_and_p(sample_files, hash_gate, capsys):
    doc, queries = sample_files
    results = {}
    for p in ("0.01", "0.3"):
        argv = ["eval", str(doc), str(queries), "--policies", "topk", "learned", "--gate"]
        argv += [str(hash_gate), "--p", p, "--model", "hash", "--boot", "0", "--json"]
        assert main(argv) == 0
        out = json.loads(capsys.readouterr().out)
        assert set(out["policies"]) == {"topk", "learned"}
        assert out["learned"]["gate"] == str(hash_gate)
        assert out["learned"]["p"] == float(p)
        assert out["learned"]["weights"] == LearnedGate.load(hash_gate).to_dict()
        results[p] = out["policies"]["learned"]["all"]
    # a lower bar admits strictly more here, and never loses recall
    assert results["0.01"]["mean_chunks"] > results["0.3"]["mean_chunks"]
    assert results["0.01"]["recall"] >= results["0.3"]["recall"]


@pytest.mark.parametrize(
    ("content", "message"),
    [("{oops", "not valid JSON"), ('{"weights": []}', "lacks feature_names")],
)
def test_bad_gate_file_is_one_error_line(sample_files, tmp_path, capsys, content, message):
    doc, queries = sample_files
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    for argv in (
        ["select", str(doc), "--query", QUERY, "--policy", "learned", "--gate", str(bad)],
        ["eval", str(doc), str(queries), "--policies", "learned", "--gate", str(bad)],
    ):
        assert main([*argv, "--model", "hash"]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]


def test_bad_p_and_missing_gate(sample_files, tmp_path, capsys):
    doc, queries = sample_files
    argv = select_learned(doc)
    assert main([*argv, "--p", "1.5"]) == 1
    assert capsys.readouterr().err.startswith("error: p must lie strictly between 0 and 1")
    assert main([*argv, "--gate", str(tmp_path / "none.json")]) == 1
    assert "Cannot read gate file" in capsys.readouterr().err
    out = tmp_path / "g.json"
    fit = ["fit-gate", str(doc), str(queries), "--model", "hash", "--out", str(out)]
    assert main([*fit, "--l2", "-1"]) == 1
    assert capsys.readouterr().err.startswith("error: --l2")
    assert not out.exists()


def test_fit_gate_without_gold_neighbours_is_one_error_line(sample_files, tmp_path, capsys):
    doc, queries = sample_files
    # k as large as the document: every neighbour is retrieved, no candidate is left
    fit = ["fit-gate", str(doc), str(queries), "--model", "hash", "--k", "1000"]
    assert main([*fit, "--out", str(tmp_path / "g.json")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "gold and non-gold" in err[0]


def test_fit_gate_in_a_subprocess_has_no_traceback(tmp_path):
    proc = run_cli(
        "fit-gate", str(tmp_path / "no.md"), "q.jsonl",
        "--model", "hash", "--out", str(tmp_path / "g.json"),
    )  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr


def test_fit_gate_with_lexical_features_then_eval_and_select_with_it(
    sample_files, tmp_path, capsys
):
    doc, queries = sample_files
    out = tmp_path / "lex.json"
    argv = ["fit-gate", str(doc), str(queries), "--model", "hash", "--out", str(out)]
    assert main([*argv, "--features", "lexical"]) == 0
    assert "lex_qn" in capsys.readouterr().out
    gate = LearnedGate.load(out)
    assert gate.feature_names == BASE_FEATURES + LEXICAL_FEATURES
    assert gate.fitted_on["features"] == "lexical"
    ev = ["eval", str(doc), str(queries), "--model", "hash", "--json"]
    assert main([*ev, "--policies", "learned", "--gate", str(out)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["learned"]["weights"]["feature_names"][-3:] == list(LEXICAL_FEATURES)
    assert main([*select_learned(doc), "--gate", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["selected"]


def test_select_scar_with_mu(sample_files, capsys):
    doc, _ = sample_files
    base = ["select", str(doc), "--query", QUERY, "--policy", "scar", "--model", "hash", "--json"]
    assert main(base) == 0
    plain = json.loads(capsys.readouterr().out)
    assert "mu" not in plain["params"]
    assert main([*base, "--mu", "0.8"]) == 0
    lexical = json.loads(capsys.readouterr().out)
    assert lexical["params"]["mu"] == 0.8
    assert all("μ·lex(q,n)" in d for d in lexical["decisions"])
    assert set(plain["selected"]) <= set(lexical["selected"])
    assert main([*base, "--mu", "-1"]) == 1
    assert "μ (mu) must be 0 or more" in capsys.readouterr().err


def test_the_k_note_comes_only_when_k_changes_a_decision(sample_files, hash_gate, tmp_path, capsys):
    """A gate fitted at k = 4 run at k = 3 judges only ranks it knows: no note. Made to lean
    on the rank (w = +1 per standard deviation) and run at k = 10, it changes decisions
    there, and says so with the --k to use."""
    doc, queries = sample_files
    gate = LearnedGate.from_json(hash_gate.read_text())
    assert gate.fitted_on["k"] == 4
    weights = list(gate.weights)
    weights[gate.feature_names.index("rank")] = 1.0
    leaning = tmp_path / "leaning.json"
    leaning.write_text(replace(gate, weights=tuple(weights)).to_json())
    base = ["eval", str(doc), str(queries), "--policies", "learned", "--model", "hash"]
    base += ["--boot", "0", "--json", "--p", "0.05", "--gate"]
    assert main([*base, str(leaning), "--k", "3"]) == 0
    assert "fitted with k" not in capsys.readouterr().err
    assert main([*base, str(leaning), "--k", "10"]) == 0
    err = capsys.readouterr().err
    assert "note: The gate was fitted with k = 4; at k = 10" in err, err
    assert "Run with --k 4" in err
