"""The pinned requirements files and pyproject.toml name the same packages: each
``requirements-NAME.txt`` pins the ``NAME`` extra (``requirements.txt`` the dependencies), every
name it pins (its ``-r`` files' included) is one that extra installs, every name the extra
installs is pinned there, and each pin lies inside pyproject's range. A file that does not
include ``requirements.txt`` (``-scale``, ``-integrations``: installed on top of it, as
docs/scale.md does) is read against the extra's names alone. scripts/bootstrap.sh installs the
pins and then the project editable with that extra: a name missing on either side would go
unpinned or uninstalled for ``pip install scar-viz[NAME]``."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT

PROJECT = "scar-viz"


def pinned(path: Path) -> dict[str, Requirement]:
    """The requirements a pip requirements file names, ``-r`` files followed, by name."""
    found: dict[str, Requirement] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith(("-r ", "--requirement ")):
            found |= pinned(path.parent / line.split(maxsplit=1)[1])
            continue
        req = Requirement(line)
        found[canonicalize_name(req.name)] = req
    return found


def includes(path: Path) -> set[str]:
    """The file names a requirements file reads: itself and its ``-r`` files, followed."""
    names = {path.name}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line.startswith(("-r ", "--requirement ")):
            names |= includes(path.parent / line.split(maxsplit=1)[1])
    return names


def installed_by(project: dict, extra: str | None, base: bool = True) -> dict[str, Requirement]:
    """What ``pip install scar-viz[extra]`` asks for, by name: the dependencies (unless not
    ``base``), the extra's own names and those of the extras it names
    (``scar-viz[scale,integrations]``)."""
    deps = project["dependencies"] if base else []
    found = {canonicalize_name(r.name): r for r in map(Requirement, deps)}
    todo, seen = [extra] if extra else [], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for req in map(Requirement, project["optional-dependencies"][name]):
            if canonicalize_name(req.name) == PROJECT:
                todo.extend(req.extras)
            else:
                found[canonicalize_name(req.name)] = req
    return found


def mismatches(pins: dict[str, Requirement], wanted: dict[str, Requirement]) -> list[str]:
    """One line per disagreement between a requirements file and what its extra installs."""
    lines = [f"{n} is pinned but not in pyproject" for n in sorted(pins.keys() - wanted.keys())]
    lines += [f"{n} is in pyproject but not pinned" for n in sorted(wanted.keys() - pins.keys())]
    for name in sorted(pins.keys() & wanted.keys()):
        pin, want = pins[name], wanted[name]
        (spec,) = list(pin.specifier) or [None]
        if spec is None or spec.operator != "==":
            lines.append(f"{name} is not pinned with ==: {pin}")
        elif not want.specifier.contains(spec.version, prereleases=True):
            lines.append(f"{name}=={spec.version} is outside pyproject's {want.specifier}")
        if pin.extras != want.extras:
            lines.append(
                f"{name}: extras {sorted(pin.extras)} pinned, {sorted(want.extras)} wanted"
            )
    return lines


def extra_of(path: Path) -> str | None:
    """``requirements-dev.txt`` pins the ``dev`` extra; ``requirements.txt`` none (as
    scripts/bootstrap.sh reads the name)."""
    stem = path.stem.removeprefix("requirements").removeprefix("-")
    return stem or None


def test_every_requirements_file_agrees_with_its_extra():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    files = sorted(ROOT.glob("requirements*.txt"))
    assert [f.name for f in files] == [
        "requirements-dev.txt",
        "requirements-integrations.txt",
        "requirements-scale.txt",
        "requirements.txt",
    ]
    found = {
        f.name: mismatches(
            pinned(f), installed_by(project, extra_of(f), "requirements.txt" in includes(f))
        )
        for f in files
        if extra_of(f) is None or extra_of(f) in project["optional-dependencies"]
    }
    assert len(found) == 4  # every file has its extra
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_check_sees_a_dev_name_missing_from_the_extra():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = pinned(ROOT / "requirements-dev.txt")
    assert {"pytest-xdist", "mypy", "torch", "ray", "langchain-core"} <= pins.keys()
    wanted = installed_by(project, "dev")
    assert mismatches(pins, wanted) == []
    lacking = {
        **project,
        "optional-dependencies": {
            **project["optional-dependencies"],
            "dev": [r for r in project["optional-dependencies"]["dev"] if "xdist" not in r],
        },
    }
    assert mismatches(pins, installed_by(lacking, "dev")) == [
        "pytest-xdist is pinned but not in pyproject"
    ]
    del pins["mypy"]
    pins["numpy"] = Requirement("numpy==1.26.4")
    assert mismatches(pins, wanted) == [
        "mypy is in pyproject but not pinned",
        "numpy==1.26.4 is outside pyproject's <3,>=2.4",
    ]


def test_a_pin_without_equals_is_reported(tmp_path):
    (tmp_path / "base.txt").write_text("# runtime\nnumpy>=2\n", encoding="utf-8")
    (tmp_path / "requirements-x.txt").write_text("-r base.txt\nruff==0.17.5\n", encoding="utf-8")
    pins = pinned(tmp_path / "requirements-x.txt")
    assert sorted(pins) == ["numpy", "ruff"]
    wanted = {"numpy": Requirement("numpy>=2"), "ruff": Requirement("ruff>=0.17")}
    assert mismatches(pins, wanted) == ["numpy is not pinned with ==: numpy>=2"]
    assert extra_of(tmp_path / "requirements-x.txt") == "x"
    assert includes(tmp_path / "requirements-x.txt") == {"requirements-x.txt", "base.txt"}
    assert "requirements.txt" not in includes(ROOT / "requirements-scale.txt")
    assert "requirements.txt" in includes(ROOT / "requirements-dev.txt")
