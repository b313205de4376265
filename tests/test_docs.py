"""The documentation stays whole: every relative link resolves, every method citation names a
section that exists, and nothing cites the methods reference by a file a clone does not have."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CODE = [p for folder in ("scar_viz", "ui", "pages") for p in sorted((ROOT / folder).rglob("*.py"))]
CODE += sorted((ROOT / "ui").glob("*.js"))

_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_CITATION = re.compile(r"docs/method\.md\s+((?:§\d+(?:,\s*)?)+)")


def relative_links(path: Path) -> list[str]:
    """Targets of the Markdown links in ``path`` that point inside the repository."""
    text = path.read_text(encoding="utf-8")
    targets = [m.group(1).split("#")[0] for m in _LINK.finditer(text)]
    return [t for t in targets if t and not re.match(r"[a-z]+:", t)]


def method_sections() -> set[int]:
    """Numbers of the ``## N.`` sections of docs/method.md."""
    text = (ROOT / "docs" / "method.md").read_text(encoding="utf-8")
    return {int(n) for n in re.findall(r"^## (\d+)\. ", text, flags=re.MULTILINE)}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(doc):
    assert relative_links(doc), f"{doc.name} links nowhere"
    for target in relative_links(doc):
        resolved = (doc.parent / target).resolve()
        assert resolved.exists(), f"{doc.relative_to(ROOT)} links to a missing {target}"


def test_the_link_check_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("[ok](page.md) [gone](missing.md#x) [web](https://example.org)\n")
    assert relative_links(page) == ["page.md", "missing.md"]


def test_method_md_keeps_the_numbering_the_code_cites():
    assert method_sections() == set(range(1, 10))


def test_every_method_citation_names_an_existing_section():
    sections = method_sections()
    cited = 0
    for path in [*CODE, *DOCS]:
        for match in _CITATION.finditer(path.read_text(encoding="utf-8")):
            for number in re.findall(r"§(\d+)", match.group(1)):
                assert int(number) in sections, f"{path.relative_to(ROOT)} cites §{number}"
                cited += 1
    assert cited > 10  # the package does cite it


def test_nothing_cites_a_methods_file_a_clone_does_not_have():
    """The method is docs/method.md, in the repository: no module, page or doc points at the
    workspace's METHODS.md or shared/ folder, which a user's clone does not hold."""
    stale = re.compile(r"METHODS(\.md)?\b|shared/(docs|corpora)/")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in [*CODE, *DOCS]
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if stale.search(line) and "../shared" not in line
    ]
    assert not found, found
