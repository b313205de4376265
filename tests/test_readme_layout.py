"""The README's Layout table names every top-level entry of the repository and every folder of
``scar_viz/``, and only paths that exist; ``scar_viz/`` keeps at most four loose modules."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

LOOSE_AT_MOST = 4


def layout_paths(readme: str) -> list[str]:
    """Every backticked path in the first cell of the Layout table's rows."""
    section = readme[readme.index("## Layout") :]
    section = section[: section.index("\n## ", 1)]
    paths = []
    for line in section.splitlines():
        if line.startswith("| `"):
            paths += re.findall(r"`([^`]+)`", line.split("|")[1])
    return paths


def named(entry: str, paths: list[str]) -> bool:
    """Whether ``entry`` (a file, or a folder written with a trailing slash) is in ``paths``;
    ``requirements-*.txt`` names every file it matches; a top-level folder is named by any row
    under it."""
    folder = entry.endswith("/")
    if folder and entry.count("/") == 1 and any(p.startswith(entry) for p in paths):
        return True  # a top-level folder named by its own rows (scar_viz/ by its folders)
    return any(Path(entry).match(p.rstrip("/")) and p.endswith("/") == folder for p in paths)


def top_level(root: Path) -> list[str]:
    """The repository's tracked top-level entries (folders with a trailing slash), dot-files out."""
    try:
        out = subprocess.run(
            ["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked entries cannot be listed")
    entries = set()
    for name in out.splitlines():
        first, _, rest = name.partition("/")
        entries.add(first + "/" if rest else first)
    return sorted(e for e in entries if e not in (".gitignore",))


def missing(root: Path, paths: list[str]) -> list[str]:
    wanted = top_level(root) + [
        f"scar_viz/{d.name}/"
        for d in sorted((root / "scar_viz").iterdir())
        if d.is_dir() and (d / "__init__.py").exists()
    ]
    return [entry for entry in wanted if not named(entry, paths)]


def test_the_layout_names_every_top_level_entry_and_package_folder():
    paths = layout_paths((ROOT / "README.md").read_text(encoding="utf-8"))
    assert missing(ROOT, paths) == []


def test_every_path_the_layout_names_exists():
    paths = layout_paths((ROOT / "README.md").read_text(encoding="utf-8"))
    assert [p for p in paths if not list(ROOT.glob(p.rstrip("/")))] == []


def test_a_missing_row_is_found():
    paths = layout_paths((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "scar_viz/common/" in paths
    without = [p for p in paths if p != "scar_viz/common/"]
    assert missing(ROOT, without) == ["scar_viz/common/"]
    assert named("requirements-dev.txt", paths) and not named("requirements-dev.txt", ["ui/"])


def test_at_most_four_loose_modules_at_the_package_root():
    loose = sorted(p.name for p in (ROOT / "scar_viz").glob("*.py"))
    assert len(loose) <= LOOSE_AT_MOST, loose
