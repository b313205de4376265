"""The package is pure: no module of ``scar_viz/`` imports Streamlit, not even lazily inside a
function (the app's side, ``ui/`` and ``pages/``, does; ``scar-viz app`` hands over to
``ui/serve.py``)."""

from __future__ import annotations

import ast

from tests.conftest import ROOT


def _imports_streamlit(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(a.name.split(".")[0] == "streamlit" for a in node.names)
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] == "streamlit"
    return False


def test_no_module_of_the_package_imports_streamlit():
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sorted((ROOT / "scar_viz").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if _imports_streamlit(node)
    ]
    assert found == []


def test_the_scan_sees_a_lazy_import():
    tree = ast.parse("def f():\n    from streamlit.web.cli import main\n")
    assert any(_imports_streamlit(n) for n in ast.walk(tree))
