"""Stored outputs of ``eval`` and ``select`` on the built-in samples: every float within the
stated tolerance of :mod:`tests.stored_numbers` (1e-12 relative, 1e-14 absolute: another CPU's
BLAS kernel sums in another order), everything else exactly.

The references in ``tests/data/reference/`` were written by this module before a file and a
corpus became one representation, from the code as it stood; they hold the command line's
output for one file (the harbour manual, given as a file and as a folder holding only it) and
for the built-in corpus (kestrel), over every policy that runs offline. ``select``'s
``seconds`` (a wall-clock time) is the one field left out.

Regenerate them only for a change meant to alter these outputs, and say so in the commit:
``.venv/bin/python -m tests.cli.test_cli_reference``.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from scar_viz.cli.main import main
from tests.stored_numbers import assert_matches

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "scar_viz" / "documents" / "samples"
HARBOR = SAMPLES / "harbor_manual.md"
HARBOR_QUERIES = SAMPLES / "harbor_manual.queries.jsonl"
KESTREL = SAMPLES / "kestrel"
KESTREL_QUERIES = SAMPLES / "kestrel.queries.jsonl"
REFERENCE = ROOT / "tests" / "data" / "reference"
ONE_FILE_FOLDER = "{one_file_folder}"
"""Stands for a folder holding only the harbour manual, made afresh for each run."""

OFFLINE_POLICIES = (
    *("topk", "window1", "window2", "scar", "parent", "qasc", "qasc-hybrid", "rse"),
    *("automerge", "sentence-window", "learned"),
)
"""Every policy but rerank (its cross-encoder is not on this machine)."""

EVAL_CASES: dict[str, tuple[str, ...]] = {
    "eval_harbor_file": (str(HARBOR), str(HARBOR_QUERIES), "--json"),
    "eval_harbor_folder": (ONE_FILE_FOLDER, str(HARBOR_QUERIES), "--json"),
    "eval_harbor_text": (str(HARBOR), str(HARBOR_QUERIES), "--boot", "500"),
    "eval_harbor_all": (
        *(str(HARBOR), str(HARBOR_QUERIES), "--json", "--boot", "0"),
        *("--policies", *OFFLINE_POLICIES),
    ),
    "eval_harbor_sections_prepend": (
        *(str(HARBOR), str(HARBOR_QUERIES), "--json", "--boot", "0"),
        *("--chunker", "section", "--prepend"),
        *("--policies", "topk", "window1", "scar", "parent", "automerge", "learned"),
    ),
    "eval_kestrel": (str(KESTREL), str(KESTREL_QUERIES), "--json"),
    "eval_kestrel_text": (str(KESTREL), str(KESTREL_QUERIES), "--boot", "500"),
    "eval_kestrel_all": (
        *(str(KESTREL), str(KESTREL_QUERIES), "--json", "--boot", "0"),
        *("--policies", *OFFLINE_POLICIES),
    ),
    "eval_kestrel_sections_prepend": (
        *(str(KESTREL), str(KESTREL_QUERIES), "--json", "--boot", "0"),
        *("--chunker", "section", "--prepend"),
        *("--policies", "topk", "window1", "scar", "parent", "automerge", "learned"),
    ),
}
"""Name → arguments after ``eval`` (``--model hash`` added); the output is stored as printed."""

SELECT_POLICIES: tuple[tuple[str, ...], ...] = (
    ("--policy", "topk"),
    ("--policy", "window", "--w", "2"),
    ("--policy", "scar"),
    ("--policy", "scar", "--radius", "2", "--lam", "0.2", "--tau", "0"),
    ("--policy", "parent"),
    ("--policy", "parent", "--parent-level", "1"),
    ("--policy", "parent", "--parent-level", "2"),
    ("--policy", "parent", "--huge-chars", "500"),
    ("--policy", "parent", "--parent-level", "1", "--huge-chars", "900"),
    ("--policy", "qasc"),
    ("--policy", "qasc", "--adaptive"),
    ("--policy", "qasc-hybrid"),
    ("--policy", "rse"),
    ("--policy", "automerge"),
    ("--policy", "sentence-window"),
    ("--policy", "learned"),
)
SELECT_QUESTIONS = {
    "harbor": (
        str(HARBOR),
        (
            "What happens if the last crossing of the day is cancelled?",
            "Who takes command when the master is absent from the wheelhouse?",
        ),
    ),
    "kestrel": (
        str(KESTREL),
        (
            "How do I make the Kestrel API reachable from other hosts?",
            "How long are snapshots retained?",
        ),
    ),
}


def select_cases() -> dict[str, tuple[str, ...]]:
    """Name → arguments after ``select`` (``--model hash --json`` added)."""
    cases = {}
    for sample, (doc, questions) in SELECT_QUESTIONS.items():
        for q, question in enumerate(questions):
            for options in SELECT_POLICIES:
                name = f"{sample}/q{q}/{' '.join(options[1:])}"
                cases[name] = (doc, "--query", question, *options)
    return cases


def _one_file_folder(tmp: Path) -> Path:
    folder = tmp / "one"
    folder.mkdir(exist_ok=True)
    shutil.copy(HARBOR, folder / HARBOR.name)
    return folder


def run(command: str, args: tuple[str, ...], tmp: Path) -> str:
    """The standard output of ``python -m scar_viz COMMAND ARGS --model hash`` in process."""
    argv = [a.replace(ONE_FILE_FOLDER, str(_one_file_folder(tmp))) for a in args]
    argv = [command, *argv, "--model", "hash", "--no-cache"]
    if command == "select":
        argv.append("--json")
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(argv)
    assert code == 0, f"{command} {args} exited {code}"
    return out.getvalue()


def select_json(args: tuple[str, ...], tmp: Path) -> dict:
    out = json.loads(run("select", args, tmp))
    out.pop("seconds")
    return out


@pytest.mark.parametrize("name", sorted(EVAL_CASES))
def test_eval_output_is_the_stored_one(name, tmp_path):
    stored = (REFERENCE / f"{name}.txt").read_text(encoding="utf-8")
    assert_matches(run("eval", EVAL_CASES[name], tmp_path), stored, name)


def test_a_folder_of_one_file_evaluates_as_the_file(tmp_path):
    """The one-file folder and the file itself print the same JSON, byte for byte."""
    file = run("eval", EVAL_CASES["eval_harbor_file"], tmp_path)
    assert run("eval", EVAL_CASES["eval_harbor_folder"], tmp_path) == file


@pytest.mark.parametrize("sample", sorted(SELECT_QUESTIONS))
def test_select_output_is_the_stored_one(sample, tmp_path):
    stored = json.loads((REFERENCE / f"select_{sample}.json").read_text(encoding="utf-8"))
    cases = {k: v for k, v in select_cases().items() if k.startswith(f"{sample}/")}
    assert set(stored) == set(cases)
    for name, args in cases.items():
        assert_matches(select_json(args, tmp_path), stored[name], name)


def _write_references(tmp: Path) -> None:  # pragma: no cover - run by hand
    REFERENCE.mkdir(parents=True, exist_ok=True)
    for name, args in EVAL_CASES.items():
        (REFERENCE / f"{name}.txt").write_text(run("eval", args, tmp), encoding="utf-8")
    for sample in SELECT_QUESTIONS:
        cases = {k: v for k, v in select_cases().items() if k.startswith(f"{sample}/")}
        out = {name: select_json(args, tmp) for name, args in cases.items()}
        text = json.dumps(out, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
        (REFERENCE / f"select_{sample}.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":  # pragma: no cover
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        _write_references(Path(tmp))
    sys.exit(0)
