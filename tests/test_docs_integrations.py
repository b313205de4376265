"""docs/integrations.md's examples run as written, in order, in an empty folder: its first
shell block (a verdict saved with recommend --save and run with select --settings), its Python
blocks (LangChain, LlamaIndex: the retrievers, the compressor and the postprocessor, from that
settings file too) with the hash model in place of the default, then its last shell block
(opening the store and the dump they wrote) as a user in a clone would run it."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.integrations.helpers import require

DOC = ROOT / "docs" / "integrations.md"
BLOCK = re.compile(r"^```(python|bash)\n(.*?)^```", re.S | re.M)


def blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(DOC.read_text(encoding="utf-8"))]


def test_the_page_has_an_example_for_each_piece():
    found = blocks()
    assert [kind for kind, _ in found] == ["bash", "python", "python", "bash"]
    verdict, langchain, llamaindex, shell = (code for _, code in found)
    assert "--save settings.json" in verdict and "--settings settings.json" in verdict
    assert "ScarRetriever.from_settings" in langchain and "ScarCompressor" in langchain
    assert "ScarRetriever.from_settings" in llamaindex
    assert "ScarPostprocessor.from_settings" in llamaindex
    assert "--store storage" in shell and "--store kb.json" in shell
    for _, code in found[1:3]:
        assert 'MODEL = "default"' in code  # what the test swaps for the hash model


@pytest.mark.timeout(600)
def test_every_example_runs(tmp_path):
    require("langchain_core")
    require("llama_index.core")
    env = {"PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    env["SCAR_VIZ_CACHE_DIR"] = str(tmp_path / "cache")
    outputs = []
    for i, (kind, code) in enumerate(blocks()):
        if kind == "python":
            script = tmp_path / f"example{i}.py"
            script.write_text(code.replace('MODEL = "default"', 'MODEL = "hash"'))
            argv = [sys.executable, str(script)]
        else:
            code = code.replace("scar-viz ", f"{sys.executable} -m scar_viz ")
            code = code.replace("--model default", "--model hash")
            code = code.replace(" scar_viz/documents/", f" {ROOT}/scar_viz/documents/")
            argv = ["bash", "-euo", "pipefail", "-c", code]
        out = subprocess.run(
            argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
        assert out.returncode == 0, f"block {i} ({kind}):\n{code}\n{out.stderr[-3000:]}"
        outputs.append(out.stdout)
    assert (tmp_path / "kb.json").is_file() and (tmp_path / "storage" / "docstore.json").is_file()
    verdict, langchain, llamaindex, shell = outputs
    assert (tmp_path / "settings.json").is_file() and "settings: settings.json" in verdict
    assert "retrieved" in langchain and "admitted" in langchain
    assert "verdict: [" in langchain and "behind yours: [" in langchain
    assert "retrieved" in llamaindex
    assert "verdict: [" in llamaindex and "behind yours: [" in llamaindex
    assert "as stored (LlamaIndex storage)" in shell and "policy scar" in shell
