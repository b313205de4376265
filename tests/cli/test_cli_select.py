"""``python -m scar_viz select ... --policy X`` for every policy, on the hashing embedder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scar_viz.cli import main as cli
from scar_viz.policies import ORDER
from tests.conftest import run_cli
from tests.fakes import tiny_cross_encoder

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "scar_viz" / "documents" / "samples" / "harbor_manual.md"
QUERY = "Who takes command when the master is absent from the wheelhouse?"


@pytest.fixture(scope="module")
def tiny_reranker(tmp_path_factory) -> str:
    return str(tiny_cross_encoder(tmp_path_factory.mktemp("tiny_ce")))


def select(capsys, *extra: str) -> tuple[int, dict | None, str]:
    code = cli.main(
        ["select", str(SAMPLE), "--query", QUERY, "--model", "hash", "--k", "3", "--json", *extra]
    )
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else None), out.err


@pytest.mark.parametrize("policy", ORDER)
def test_every_policy_selects(capsys, policy, tiny_reranker):
    extra = ["--reranker", tiny_reranker] if policy == "rerank" else []
    code, out, err = select(capsys, "--policy", policy, *extra)
    assert code == 0, err
    text = SAMPLE.read_text(encoding="utf-8")
    assert out["spans"] and all(0 <= s < e <= len(text) for s, e in out["spans"])
    assert out["chars"] > 0 and out["tokens"] > 0 and out["seconds"] >= 0
    if policy in ("topk", "rerank"):
        assert len(out["selected"]) == 3
    if policy == "qasc":
        assert out["selected"] is None and "seeds" in out["notes"][0]


def test_knobs_reach_the_policy(capsys):
    _, wide, _ = select(capsys, "--policy", "window", "--w", "2")
    _, narrow, _ = select(capsys, "--policy", "window", "--w", "1")
    assert len(wide["selected"]) > len(narrow["selected"])
    _, loose, _ = select(capsys, "--policy", "qasc", "--percentile", "50")
    _, strict, _ = select(capsys, "--policy", "qasc", "--percentile", "95", "--window-m", "0")
    assert strict["chars"] < loose["chars"]
    assert strict["params"]["percentile"] == 95.0
    _, adaptive, _ = select(capsys, "--policy", "qasc", "--adaptive", "--max-m", "1")
    assert "adaptive" in adaptive["notes"][0]


def test_rerank_with_more_candidates(capsys, tiny_reranker):
    code, out, err = select(
        capsys, "--policy", "rerank", "--reranker", tiny_reranker, "--n-candidates", "12"
    )
    assert code == 0, err
    assert "reranked 12 cosine candidates" in out["notes"][0]


def test_missing_reranker_is_one_error_line(capsys, tmp_path):
    code, _, err = select(capsys, "--policy", "rerank", "--reranker", str(tmp_path / "none"))
    assert code == cli.EXIT_FAILED
    assert err.startswith("error: ") and "cannot be loaded offline" in err
    assert err.count("\n") == 1


def test_a_knob_for_another_policy_is_an_error(capsys):
    code, _, err = select(capsys, "--policy", "scar", "--percentile", "50")
    assert code == cli.EXIT_FAILED and "does not take percentile" in err


def test_module_entry_point_runs_qasc(tmp_path):
    proc = run_cli(
        "select", str(SAMPLE), "--query", QUERY, "--model", "hash", "--policy", "qasc",
        "--cache", str(tmp_path / "c.sqlite"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "policy qasc:" in proc.stdout and "spans:" in proc.stdout
