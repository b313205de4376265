"""The stage rule of docs/architecture.md, enforced: read the stage table there and fail on any
import in ``scar_viz/`` that runs back up it.

Each row of the table is one stage, in order (a row numbered "—" sits where the table puts
it); a row names its folders and root modules in backticks (``documents/``, ``pipeline.py``).
Row 0 is every other module at the root of ``scar_viz/``. A module may import from its own
row, from the rows above it and from row 0; every ``import`` counts, lazy ones inside a
function included.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import ROOT

DOC = ROOT / "docs" / "architecture.md"


def stage_table(text: str) -> dict[str, int]:
    """Unit (a folder or root module of ``scar_viz/``, without ``/`` or ``.py``) → its row."""
    start = text.index("| stage | folder |")
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(line.split("|")[2])
    ranks: dict[str, int] = {}
    for rank, cell in enumerate(rows):
        if "other modules at the root" in cell:
            continue  # row 0: whatever no other row names
        for name in re.findall(r"`([\w.]+)/?`", cell):
            unit = name.removesuffix(".py")
            if name.endswith("/") or name.endswith(".py") or "/" not in name:
                ranks.setdefault(unit, rank)
    return ranks


def _unit(package: Path, path: Path) -> str:
    parts = path.relative_to(package).parts
    return parts[0] if len(parts) > 1 else parts[0].removesuffix(".py")


def imports_of(path: Path) -> set[str]:
    """The units of ``scar_viz`` that the module at ``path`` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "scar_viz":
                names = [f"scar_viz.{a.name}" for a in node.names]
            else:
                names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        found |= {n.split(".")[1] for n in names if n.startswith("scar_viz.")}
    return found


def violations(package: Path, ranks: dict[str, int]) -> list[str]:
    """``module imports unit`` for each import of a later stage than the module's own."""
    out = []
    for path in sorted(package.rglob("*.py")):
        own = _unit(package, path)
        if own in ("__init__", "__main__"):
            continue
        for unit in sorted(imports_of(path)):
            if ranks.get(unit, 0) > ranks.get(own, 0):
                out.append(f"{path.relative_to(package.parent)} imports scar_viz.{unit}")
    return out


def test_the_table_names_the_stages_in_order():
    ranks = stage_table(DOC.read_text(encoding="utf-8"))
    order = ["documents", "chunking", "embeddings", "scoring", "policies", "queries"]
    assert [ranks[u] for u in order] == sorted(ranks[u] for u in order)
    assert ranks["pipeline"] > ranks["policies"] and ranks["views"] > ranks["evaluation"]
    missing = [
        d.name
        for d in (ROOT / "scar_viz").iterdir()
        if d.is_dir() and (d / "__init__.py").exists() and d.name not in ranks and d.name != "data"
    ]
    assert missing == [], "every stage folder has its row in docs/architecture.md"


def test_no_import_runs_back_up_the_stages():
    ranks = stage_table(DOC.read_text(encoding="utf-8"))
    assert violations(ROOT / "scar_viz", ranks) == []


def test_a_planted_upward_import_is_found(tmp_path):
    package = tmp_path / "scar_viz"
    for folder, source in {
        "documents": "def f():\n    from scar_viz.embeddings.base import Embedder\n",
        "chunking": "from scar_viz.documents import reading\nfrom scar_viz.common import spans\n",
        "embeddings": "import scar_viz.chunking\n",
        "common": "from scar_viz.common import memo\n",
    }.items():
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
        (package / folder / "x.py").write_text(source)
    (package / "common" / "spans.py").write_text("from scar_viz.common import errors\n")
    ranks = stage_table(DOC.read_text(encoding="utf-8"))
    assert violations(package, ranks) == ["scar_viz/documents/x.py imports scar_viz.embeddings"]
    (package / "common" / "spans.py").write_text("from scar_viz import pipeline\n")
    assert "scar_viz/common/spans.py imports scar_viz.pipeline" in violations(package, ranks)
