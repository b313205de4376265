"""docs/architecture.md stays a true map: every file it names exists, every type it lists is
defined in the file it names, and the registries it sends a developer to hold their lists."""

from __future__ import annotations

import re

from tests.conftest import ROOT

DOC = ROOT / "docs" / "architecture.md"
PREFIXES = ("scar_viz/", "ui/", "pages/", "scripts/", "tests/", "docs/")


def _text() -> str:
    return DOC.read_text(encoding="utf-8")


def test_every_named_file_exists():
    # NAME.py: the file a developer adds
    named = {n for n in re.findall(r"`([\w./-]+\.(?:py|js|md))`", _text()) if "NAME" not in n}
    paths = set()
    for name in named:
        if name.startswith(PREFIXES) or name in ("app.py", "pipeline.py"):
            paths.add(name if name.startswith(PREFIXES) or name == "app.py" else f"scar_viz/{name}")
        elif "/" in name:  # a path inside scar_viz/ given from its stage folder
            paths.add(f"scar_viz/{name}")
    assert len(paths) > 30
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert missing == []


def test_each_core_type_is_defined_where_the_table_says():
    rows = re.findall(r"^\| (`[^|]+`) \| `([\w/.]+\.py)`(?:, `[\w/.]+\.py`)? \|", _text(), re.M)
    assert len(rows) >= 15
    for types, where in rows:
        path = ROOT / (where if where.startswith(PREFIXES) else f"scar_viz/{where}")
        source = path.read_text(encoding="utf-8")
        first = re.findall(r"`(\w+)`", types)[0]
        assert re.search(rf"^class {first}\b", source, re.M), (first, where)


def test_the_registries_named_hold_their_lists():
    text = _text()
    for registry, name in [
        ("scar_viz/policies/registry.py", "_ALTERNATIVES"),
        ("scar_viz/chunking/registry.py", "CHUNKERS"),
        ("scar_viz/embeddings/registry.py", "EMBEDDERS"),
    ]:
        assert f"`{name}`" in text and f"`{registry}`" in text
        assert re.search(rf"^{name}\b", (ROOT / registry).read_text(encoding="utf-8"), re.M)
