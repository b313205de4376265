"""``python -m scar_viz select ... --policy X`` for every policy, on the hashing embedder."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from scar_viz.chunking.qasc import QascParams
from scar_viz.cli import main as cli
from scar_viz.common.knobs import cli_fields, knob_fields, option_dest
from scar_viz.policies import ALL_ORDER, ORDER, policy_knobs
from scar_viz.views.compare_settings import CompareSettings
from scripts.tiny_models import tiny_cross_encoder
from tests.conftest import run_cli

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


def _select_parser() -> argparse.ArgumentParser:
    commands: dict[str, argparse.ArgumentParser] = {}
    cli.build_parser(commands)
    return commands["select"]


def test_every_compare_option_is_in_select_help(monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # one line per option: no help string wrapped
    sub = _select_parser()
    text = sub.format_help()
    actions = {a.option_strings[0]: a for a in sub._actions if a.option_strings}
    for f, option in cli_fields(CompareSettings):
        assert option.policy in (*cli.FIRST, *cli.THEN), f.name
        action = actions[option.flag]
        assert action.dest == option_dest(f) and action.default is None
        assert action.help == f"{option.policy}: {option.help}"
        assert f"{option.flag} " in text and action.help in text


def test_each_policy_knob_option_is_declared_once():
    # every option of select that sets a policy's knob comes from CompareSettings, QascParams
    # or the learned gate's --gate/--p, and no two declarations share an option
    knobs = {k for name in ALL_ORDER for k in policy_knobs(name)}
    compare = [option_dest(f) for f, _ in cli_fields(CompareSettings)]
    qasc = [f.name for f, _ in knob_fields(QascParams)]
    declared = [*compare, *qasc, "gate", "p"]
    assert len(set(declared)) == len(declared)
    sub = _select_parser()
    dests = [a.dest for a in sub._actions if a.option_strings and a.dest in knobs]
    assert sorted(dests) == sorted(declared)


def test_given_options_reach_their_policy_by_keyword():
    sub = _select_parser()

    def given(*argv: str) -> dict:
        return cli.policy_knobs(sub.parse_args(["d.md", "--query", "q", *argv]))

    assert given("--policy", "rse", "--rse-preset", "balanced", "--max-length", "4") == {
        "preset": "balanced",
        "max_length": 4,
    }
    assert given("--policy", "automerge", "--no-fill-gaps", "--merge-ratio", "0.3") == {
        "ratio": 0.3,
        "fill_gaps": False,
    }
    assert given("--policy", "sentence-window", "--w", "0") == {"w": 0}
    assert given("--policy", "scar", "--w", "2") == {}  # --w reaches window and sentence-window
    assert given("--policy", "qasc", "--all-windows", "--decay", "1") == {
        "decay": 1.0,
        "all_windows": True,
    }
    assert given("--policy", "topk") == {}


@pytest.mark.parametrize("spec", ["hash:0", "hash:2000000"])
def test_out_of_range_hash_dimensions_are_one_line_and_a_non_zero_exit(capsys, spec):
    code = cli.main(["select", str(SAMPLE), "--query", QUERY, "--model", spec])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err and err.count("\n") == 1
    assert f"'{spec}': the hash embedder takes a whole number of dimensions from 1 to" in err
