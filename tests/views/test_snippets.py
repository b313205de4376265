""" "Use it in your code": the snippets the app shows beside the verdict run as written (the
command line, LangChain, LlamaIndex) and select what ``select --settings`` selects; names from
the user are quoted, never pasted raw."""

from __future__ import annotations

import ast
import re
import shlex
import subprocess
import sys

import pytest

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.evaluation.settings import ChosenSettings
from scar_viz.scoring.learned import default_gate
from scar_viz.views.snippets import SETTINGS_FILE, code_snippets, setting_words
from tests.conftest import ROOT
from tests.integrations.helpers import SAMPLE_DOC, SAMPLE_QUERIES, cli_json, require

QUESTION = "What happens if the last crossing of the day is cancelled?"
CHUNKING = ChunkingConfig(size=300, overlap=30)
LEARNED = ChosenSettings(
    "hybrid", "learned", 3, 1, None, None, None, 0.2, default_gate(), 20.0, {"model": "hash:256"}
)
SCAR = ChosenSettings("bm25", "scar", 2, 2, 0.3, 0.05, 0.0, None, None)


def test_the_setting_in_words():
    assert (
        setting_words(LEARNED) == "learned gate (p 0.2, r 1) on hybrid retrieval (k_rrf 20), k = 3"
    )
    assert setting_words(SCAR) == "SCAR (λ 0.3, τ 0.05, r 2) on bm25 retrieval, k = 2"


def test_names_from_the_user_are_quoted():
    name = 'it\'s $(touch pwned) "x".md'
    question = "what's `this`? $HOME"
    cli, langchain, llamaindex = code_snippets(
        LEARNED, document=name, model="hash", chunking=CHUNKING, question=question
    )
    select = shlex.split(cli.code.replace("\\\n", " ").splitlines()[1])
    assert select[2] == name and select[select.index("--query") + 1] == question
    for snippet in (langchain, llamaindex):
        tree = ast.parse(snippet.code)  # valid Python, the name one string literal
        strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
        assert name in strings and question in strings


def selected_chunks(text: str) -> list[int]:
    """The chunk ids ``select``'s text output lists (``selected:`` or ``chunks:``)."""
    m = re.search(r"^(?:selected|chunks): \[([^\]]*)\]", text, re.M)
    assert m, text
    return [int(c) for c in m.group(1).split(",") if c.strip()]


def run_snippet(title: str, language: str, code: str, folder) -> str:
    """Run a snippet as a user would, in ``folder`` (``scar-viz`` the package's module), with
    the checkout on the path, no model hub and a cache of its own; its standard output."""
    env = {"PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    env["SCAR_VIZ_CACHE_DIR"] = str(folder / "cache")
    if language == "python":
        argv = [sys.executable, "-c", code]
    else:
        code = code.replace("scar-viz ", f"{sys.executable} -m scar_viz ")
        argv = ["bash", "-euo", "pipefail", "-c", code]
    run = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"{title}:\n{code}\n{run.stderr[-3000:]}"
    return run.stdout


@pytest.mark.timeout(600)
@pytest.mark.parametrize("chosen", [LEARNED, SCAR], ids=["learned-hybrid", "scar-bm25"])
def test_every_snippet_runs_and_selects_what_select_settings_selects(chosen, tmp_path):
    require("langchain_core")
    require("llama_index.core")
    chosen.save(tmp_path / SETTINGS_FILE)
    want = cli_json(
        "select", str(SAMPLE_DOC), "--query", QUESTION, "--model", "hash", "--no-cache",
        "--chunk-size", "300", "--overlap", "30", "--settings", str(tmp_path / SETTINGS_FILE),
    )["selected"]  # fmt: skip
    assert want
    snippets = code_snippets(
        chosen,
        document=str(SAMPLE_DOC),
        model="hash",
        chunking=CHUNKING,
        question=QUESTION,
        queries=str(SAMPLE_QUERIES),
    )
    for snippet in snippets:
        out = run_snippet(snippet.title, snippet.language, snippet.code, tmp_path)
        if snippet.language == "bash":
            assert selected_chunks(out) == want, snippet.title
            assert f"settings: {SETTINGS_FILE} (" in out
            assert re.search(r"^learned|^scar", out, re.M)  # eval's row of the setting
        else:
            rows = [line.split() for line in out.splitlines()]
            assert [int(r[1]) for r in rows] == want, snippet.title
            assert {r[0] for r in rows} == {SAMPLE_DOC.name}
