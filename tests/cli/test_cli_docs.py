"""docs/cli.md names every option of every sub-command: its "Every option, by sub-command"
section holds one subsection a sub-command, and the options named there are exactly those the
sub-command's parser takes (what ``--help`` lists). Options named only as shared must be in
the shared table, with their meaning."""

from __future__ import annotations

import argparse
import re

import pytest

from scar_viz.cli.main import build_parser
from tests.conftest import ROOT

CLI_MD = ROOT / "docs" / "cli.md"
OPTION = re.compile(r"`(--[a-z0-9][a-z0-9-]*)")


def _commands() -> dict[str, argparse.ArgumentParser]:
    commands: dict[str, argparse.ArgumentParser] = {}
    build_parser(commands)
    return commands


def _section(text: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of the same or a higher level."""
    level = heading.split(" ", 1)[0]
    start = text.index(heading + "\n") + len(heading) + 1
    ends = [
        m.start()
        for m in re.finditer(r"^(#+) ", text[start:], re.M)
        if len(m.group(1)) <= len(level)
    ]
    return text[start : start + ends[0]] if ends else text[start:]


def _parser_options(parser: argparse.ArgumentParser) -> set[str]:
    return {
        o for a in parser._actions for o in a.option_strings if o.startswith("--") and o != "--help"
    }


def _shared_table() -> set[str]:
    table = _section(CLI_MD.read_text(encoding="utf-8"), "## Shared options")
    return {
        o
        for line in table.splitlines()
        if line.startswith("| `--")
        for o in OPTION.findall(line.split("|")[1])
    }


@pytest.mark.parametrize("name", sorted(_commands()))
def test_every_option_of_the_sub_command_is_named_and_none_other(name):
    every = _section(CLI_MD.read_text(encoding="utf-8"), "## Every option, by sub-command")
    named = set(OPTION.findall(_section(every, f"### `{name}`")))
    wanted = _parser_options(_commands()[name])
    assert named - wanted == set(), f"named in docs/cli.md but not taken by {name}"
    assert wanted - named == set(), f"taken by {name} but not named in docs/cli.md"


def test_options_named_only_as_shared_are_in_the_shared_table():
    every = _section(CLI_MD.read_text(encoding="utf-8"), "## Every option, by sub-command")
    shared_lines = [line for line in every.splitlines() if line.startswith("Shared: ")]
    assert shared_lines
    named = {o for line in shared_lines for o in OPTION.findall(line)}
    assert named <= _shared_table()


def test_the_check_sees_a_missing_option(tmp_path):
    """The section reader finds what a subsection names (a stale doc would fail above)."""
    text = "## Every option, by sub-command\n\n### `x`\n\n| `--a` | a |\n\n### `y`\n\n`--b`\n"
    every = _section(text, "## Every option, by sub-command")
    assert set(OPTION.findall(_section(every, "### `x`"))) == {"--a"}
    assert set(OPTION.findall(_section(every, "### `y`"))) == {"--b"}


def test_the_settings_file_commands_run_as_written(tmp_path):
    """The two commands under "Running a settings file" run on the built-in sample with a
    settings file ``recommend --save`` wrote (DOC, QUERIES.jsonl and the question filled in,
    the optional ``[--policies topk]`` taken), and name the file's setting as the page says."""
    import shlex

    from tests.integrations.helpers import SAMPLE_DOC, SAMPLE_QUERIES, cli_json

    text = CLI_MD.read_text(encoding="utf-8")
    block = text[text.index("**Running a settings file.**") :].split("\n\n")[1]
    lines = [line.strip() for line in block.splitlines()]
    assert [line.split()[3] for line in lines] == ["select", "eval"], lines
    settings = tmp_path / "settings.json"
    cli_json(
        "recommend", str(SAMPLE_DOC), str(SAMPLE_QUERIES), "--model", "hash", "--no-cache",
        "--budget", "300", "--boot", "200", "--save", str(settings),
    )  # fmt: skip
    fill = {"DOC": str(SAMPLE_DOC), "QUERIES.jsonl": str(SAMPLE_QUERIES), "...": "Who may sail?"}
    fill |= {"settings.json": str(settings), "[--policies": "--policies", "topk]": "topk"}
    runs = []
    for line in lines:
        argv = [fill.get(word, word) for word in shlex.split(line)[3:]]
        runs.append(cli_json(*argv, "--model", "hash", "--no-cache"))
    select, evaluation = runs
    assert select["settings"]["file"] == str(settings) and select["policy"] == "learned"
    assert select["selected"]
    assert set(evaluation["policies"]) == {"learned", "topk"}  # the setting's row, and topk's
