"""The integrations extra is never imported by the app or the plain command line, as Ray and
LanceDB are not: neither LlamaIndex, nor scar_viz.integrations, nor LangChain's embeddings,
retrievers or vector stores (langchain-core itself comes with langchain-text-splitters, which
the recursive chunker uses). Opening another tool's index needs none of them either."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT
from tests.integrations.helpers import SAMPLE_DOC, SAMPLE_QUERIES, require

EXTRA = (
    "llama_index",
    "scar_viz.integrations.langchain",
    "scar_viz.integrations.llamaindex",
    "langchain_core.embeddings",
    "langchain_core.retrievers",
    "langchain_core.vectorstores",
)
"""The modules the extra brings (the app's module walk imports the pure
``scar_viz.integrations`` package itself to list it: that imports no framework)."""


def _loaded(code: str, names: tuple[str, ...] = EXTRA) -> str:
    check = f"import sys; print(sorted(m for m in {names!r} if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\n{check}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


def test_the_check_sees_the_extra_when_it_is_imported():
    require("llama_index.core")
    assert "llama_index" in _loaded("import scar_viz.integrations.llamaindex")


def test_the_plain_cli_never_imports_the_extra():
    argv = ["eval", str(SAMPLE_DOC), str(SAMPLE_QUERIES), "--model", "hash", "--no-cache"]
    argv += ["--boot", "0", "--json"]
    code = f"from scar_viz.cli.main import main; assert main({argv!r}) == 0"
    assert _loaded(code, (*EXTRA, "scar_viz.integrations")) == "[]"


def test_opening_another_tools_index_never_imports_the_extra(tmp_path):
    require("llama_index.core")
    from llama_index.core import VectorStoreIndex

    from scar_viz.integrations.llamaindex import ScarEmbedding, split_nodes

    embedding = ScarEmbedding("hash", cache=False)
    index = VectorStoreIndex(split_nodes(SAMPLE_DOC), embed_model=embedding)
    index.storage_context.persist(str(tmp_path / "storage"))
    argv = ["select", "--store", str(tmp_path / "storage"), "--query", "cancelled crossing"]
    argv += ["--model", "hash", "--no-cache", "--json"]
    code = f"from scar_viz.cli.main import main; assert main({argv!r}) == 0"
    assert _loaded(code, (*EXTRA, "scar_viz.integrations")) == "[]"


def test_the_app_modules_never_import_the_extra():
    code = (
        "import importlib, pkgutil, scar_viz, ui\n"
        "for pkg in (scar_viz, ui):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        skip = m.name.startswith('scar_viz.integrations.')\n"
        "        skip = skip or m.name.endswith('__main__')\n"
        "        if not skip:\n"
        "            importlib.import_module(m.name)\n"
    )
    assert _loaded(code) == "[]"
