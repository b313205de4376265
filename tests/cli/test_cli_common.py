"""The options every sub-command shares, written once (scar_viz/cli/common.py)."""

from __future__ import annotations

import argparse

import pytest

from scar_viz.cli.common import add_common_options, add_report_options, number_option
from scar_viz.cli.main import build_parser
from scar_viz.evaluation.bootstrap import DEFAULT_BOOT
from scar_viz.scoring.params import DEFAULT_PARAMS


def _sub(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices[name]


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
