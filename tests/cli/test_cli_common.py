"""The options every sub-command shares, written once (scar_viz/cli/common.py)."""

from __future__ import annotations

import argparse
import re

import pytest

from scar_viz.cli.common import add_common_options, add_report_options, number_option
from scar_viz.cli.main import build_parser
from scar_viz.evaluation.bootstrap import DEFAULT_BOOT
from scar_viz.scoring.params import DEFAULT_PARAMS
from tests.conftest import ROOT


def _sub(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    commands: dict[str, argparse.ArgumentParser] = {}
    build_parser(commands)
    return commands[name]


def test_number_option_types_and_states_its_default():
    p = argparse.ArgumentParser()
    number_option(p, "--share", 0.25, "share cut", "1 cuts all")
    number_option(p, "--n", 40, "how many")
    helps = {a.dest: a.help for a in p._actions}
    assert helps["share"] == "share cut (default 0.25; 1 cuts all)"
    assert helps["n"] == "how many (default 40)"
    args = p.parse_args(["--share", "0.5", "--n", "7"])
    assert args.share == 0.5 and isinstance(args.n, int) and args.n == 7
    with pytest.raises(SystemExit):
        p.parse_args(["--n", "seven"])


def test_gate_defaults_come_from_gate_params():
    p = argparse.ArgumentParser()
    add_common_options(p)
    args = p.parse_args([])
    assert (args.k, args.lam, args.tau, args.radius) == (
        DEFAULT_PARAMS.k,
        DEFAULT_PARAMS.lam,
        DEFAULT_PARAMS.tau,
        DEFAULT_PARAMS.radius,
    )
    helps = {a.dest: a.help for a in p._actions}
    assert helps["lam"] == f"λ (default {DEFAULT_PARAMS.lam:g})"


def test_eval_and_answer_share_the_report_options():
    parser = build_parser()
    for name in ("eval", "answer"):
        sub = _sub(parser, name)
        args = sub.parse_args(["doc.md", "q.jsonl"])
        assert (args.boot, args.seed, args.no_per_query, args.policies) == (
            DEFAULT_BOOT,
            0,
            False,
            None,
        )
        assert sub.parse_args(["doc.md", "q.jsonl", "--boot", "0"]).boot == 0
    report = argparse.ArgumentParser()
    add_report_options(report)
    assert "0 skips it" in next(a.help for a in report._actions if a.dest == "boot")


def test_the_package_uses_no_private_argparse():
    private = re.compile(r"argparse\._|\._actions\b|_SubParsersAction")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in sorted((ROOT / "scar_viz").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if private.search(line)
    ]
    assert found == []


def test_every_command_that_reads_doc_reads_a_store_instead():
    commands: dict[str, argparse.ArgumentParser] = {}
    build_parser(commands)
    assert set(commands) == {
        "select", "eval", "recommend", "fit-gate", "make-queries", "answer", "index", "app"
    }  # fmt: skip
    with_doc = {n for n, p in commands.items() if "[doc]" in p.format_usage()}
    assert with_doc == set(commands) - {"index", "app"}
    required = {  # what each command needs besides DOC
        "select": ["--query", "q"],
        "eval": ["q.jsonl"],
        "recommend": ["q.jsonl"],
        "answer": ["q.jsonl"],
        "fit-gate": ["q.jsonl", "--out", "gate.json"],
        "make-queries": [],
    }
    assert set(required) == with_doc
    for name, argv in required.items():
        args = commands[name].parse_args([*argv, "--store", "s"])
        assert args.doc is None and args.store == "s"
    queries_only = commands["eval"].parse_args(["q.jsonl", "--store", "s"])
    assert (queries_only.doc, queries_only.queries) == (None, "q.jsonl")
    both = commands["eval"].parse_args(["d.md", "q.jsonl"])
    assert (both.doc, both.queries, both.store) == ("d.md", "q.jsonl", None)


def test_recommend_rewords_the_common_options_it_changes(monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    commands: dict[str, argparse.ArgumentParser] = {}
    build_parser(commands)
    text = commands["recommend"].format_help()
    assert "narrow the candidates to one retriever (default: dense, bm25, hybrid)" in text
    assert "k of the reference, window ±1 under dense retrieval (default 3)" in text
    assert "--lam" not in text and "--tau" not in text
    assert "μ > 0: tuned SCAR also tries this lexical weight (default 0)" in text
    assert "narrow the candidates to these policies" in text
    args = commands["recommend"].parse_args(["d.md", "q.jsonl"])
    assert (args.retriever, args.lam, args.tau) == (None, None, None)
    assert "chunks the retriever returns (default 3)" in commands["eval"].format_help()
