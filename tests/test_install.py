"""How a checkout is importable (docs/architecture.md, "How the app is packaged"): no file edits
``sys.path``; scripts/bootstrap.sh installs the checkout editable, which puts its root on the
venv's path and copies nothing of it into site-packages; the venv the tests run in is that
install (mandatory in CI)."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from tests.conftest import ROOT, in_ci

SKIPPED_FOLDERS = {".venv", ".git", "node_modules", "__pycache__", "shared"}


def path_edits(source: str) -> list[int]:
    """The lines of ``source`` that change ``sys.path`` (a call of one of its list methods, an
    assignment to it or to an item of it)."""

    def is_sys_path(node: ast.AST) -> bool:
        return (
            isinstance(node, ast.Attribute)
            and node.attr == "path"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        )

    lines = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and is_sys_path(node.func.value)
            and node.func.attr in {"insert", "append", "extend", "remove", "pop", "clear"}
        ):
            lines.append(node.lineno)
        targets = node.targets if isinstance(node, ast.Assign) else []
        targets += [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
        for target in targets:
            if is_sys_path(target) or (
                isinstance(target, ast.Subscript) and is_sys_path(target.value)
            ):
                lines.append(node.lineno)
    return sorted(lines)


def python_files() -> list[Path]:
    return sorted(
        p for p in ROOT.rglob("*.py") if not SKIPPED_FOLDERS & set(p.relative_to(ROOT).parts[:-1])
    )


def test_no_file_in_the_tree_edits_sys_path():
    files = python_files()
    assert len(files) > 300 and ROOT / "benchmarks" / "perf.py" in files
    found = {
        f.relative_to(ROOT).as_posix(): lines
        for f in files
        if (lines := path_edits(f.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_scan_sees_each_kind_of_path_edit():
    # written with P for sys.path, so that a grep for the calls finds none in the tree
    source = (
        "import sys\n"
        "P.insert(0, 'a')\n"
        "def f():\n"
        "    P.append('b')\n"
        "P[0:0] = ['c']\n"
        "P += ['d']\n"
        "P = ['e']\n"
        "print(P, list(P))\n"
    ).replace("P", "sys.path")
    assert path_edits(source) == [2, 4, 5, 6, 7]


def _hatchling():
    if importlib.util.find_spec("hatchling") is None:
        reason = "hatchling is not installed (pip install -r requirements-dev.txt)"
        if in_ci():
            pytest.fail(f"mandatory in CI: {reason}")
        pytest.skip(reason)
    from hatchling.builders.wheel import WheelBuilder

    return WheelBuilder


def test_the_editable_install_names_the_root_and_copies_nothing(tmp_path):
    (wheel,) = _hatchling()(str(ROOT)).build(directory=str(tmp_path), versions=["editable"])
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        pth = z.read("_scar_viz.pth").decode()
        entry_points = z.read("scar_viz-0.1.0.dist-info/entry_points.txt").decode()
    assert sorted(n for n in names if ".dist-info/" not in n) == ["_scar_viz.pth"]
    assert pth.splitlines() == [str(ROOT)]
    assert "scar-viz = scar_viz.cli.main:entry" in entry_points


def test_the_wheel_puts_the_app_beside_the_package_under_one_name(tmp_path):
    (wheel,) = _hatchling()(str(ROOT)).build(directory=str(tmp_path), versions=["standard"])
    with zipfile.ZipFile(wheel) as z:
        tops = {n.split("/")[0] for n in z.namelist()}
        app = {n for n in z.namelist() if n.startswith("scar_viz_app/")}
    assert tops == {"scar_viz", "scar_viz_app", "scar_viz-0.1.0.dist-info"}
    assert {
        "scar_viz_app/app.py",
        "scar_viz_app/pages/explorer.py",
        "scar_viz_app/ui/serve.py",
        "scar_viz_app/static/favicon.png",
        "scar_viz_app/.streamlit/config.toml",
    } <= app
    pages = {p.name for p in (ROOT / "pages").glob("*.py")}
    assert {n.rsplit("/", 1)[1] for n in app if n.startswith("scar_viz_app/pages/")} == pages


def test_the_tests_run_in_this_checkouts_editable_install(tmp_path):
    """scripts/bootstrap.sh installed this checkout editable into the venv running the tests:
    ``python benchmarks/NAME.py`` and ``scar-viz`` in .venv/bin import this checkout."""
    try:
        dist = metadata.distribution("scar-viz")
        direct = json.loads(dist.read_text("direct_url.json") or "{}")
    except metadata.PackageNotFoundError:
        direct = {}
    editable = direct.get("dir_info", {}).get("editable", False)
    where = direct.get("url", "").removeprefix("file://")
    if not editable or Path(where) != ROOT:
        reason = (
            f"this venv ({sys.prefix}) has scar-viz installed "
            + (f"editable from {where}" if editable else "not editable, or not at all")
            + f", not from {ROOT}: run scripts/bootstrap.sh requirements-dev.txt"
        )
        if in_ci():
            pytest.fail(f"mandatory in CI: {reason}")
        pytest.skip(reason)
    pth = Path(dist.locate_file("_scar_viz.pth"))
    assert pth.read_text(encoding="utf-8").splitlines() == [str(ROOT)]
    # from a folder outside the checkout, with nothing but the install to find them: no
    # installed distribution shadows these names (pysbd's top-level benchmarks package does
    # shadow benchmarks/, which is why no benchmark imports another)
    code = "import scar_viz, ui, scripts, tests; print(scar_viz.__file__, ui.__file__, "
    code += "scripts.__file__, tests.__file__)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert [Path(f).parent.parent for f in out.stdout.split()] == [ROOT] * 4
    assert (Path(sys.executable).parent / "scar-viz").is_file()
