"""Comparing an output with a stored reference: numbers within a stated tolerance, everything
else exactly.

A float computed through BLAS (a matrix product, a norm) may differ in its last digits on
another CPU, or under another OpenBLAS kernel or thread count: the kernel sums in another
order. A stored reference written on one machine must still match there, and must still fail
on a real change. So a float matches when

    |actual − stored| ≤ max(REL · max(|actual|, |stored|), ABS)

(REL = 1e-12, ABS = 1e-14: a few units in the last place of numbers near 1, and an absolute
floor for values near 0, such as b(c, n) = 1 − cos when cos ≈ 1); integers, booleans, strings,
None, keys and the order of lists compare exactly, as does the text around each number.
"""

from __future__ import annotations

import math
import re
from typing import Any

REL = 1e-12
"""Relative tolerance of a float."""
ABS = 1e-14
"""Absolute floor of the tolerance, for floats near 0."""

_FLOAT = re.compile(r"-?(?:\d+\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)")


def close(actual: float, stored: float) -> bool:
    """True when two floats agree within the tolerance (module docstring)."""
    if math.isnan(actual) or math.isnan(stored):
        return math.isnan(actual) and math.isnan(stored)
    return math.isclose(actual, stored, rel_tol=REL, abs_tol=ABS)


def mismatch(actual: Any, stored: Any, where: str = "$") -> str | None:
    """Where ``actual`` first departs from ``stored`` (JSON-like values), or None when they
    match: floats within the tolerance, everything else exactly (types included)."""
    if isinstance(stored, float) and type(actual) is float:
        return None if close(actual, stored) else f"{where}: {actual!r} != {stored!r}"
    if type(actual) is not type(stored):
        return f"{where}: {actual!r} ({type(actual).__name__}) != {stored!r}"
    if isinstance(stored, dict):
        if set(actual) != set(stored):
            return f"{where}: keys {sorted(actual)} != {sorted(stored)}"
        for key in stored:
            found = mismatch(actual[key], stored[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(stored, list | tuple):
        if len(actual) != len(stored):
            return f"{where}: {len(actual)} items != {len(stored)}"
        for i, (a, s) in enumerate(zip(actual, stored, strict=True)):
            found = mismatch(a, s, f"{where}[{i}]")
            if found:
                return found
        return None
    return None if actual == stored else f"{where}: {actual!r} != {stored!r}"


def split_floats(text: str) -> tuple[list[str], list[str]]:
    """(the text between the floats, the floats as written): ``text`` cut at every decimal
    number (a digit string with a point or an exponent); integers stay in the text."""
    return _FLOAT.split(text), _FLOAT.findall(text)


def text_mismatch(actual: str, stored: str) -> str | None:
    """Where printed ``actual`` first departs from ``stored``: the text around the numbers
    exactly, each float within the tolerance; None when they match."""
    a_text, a_nums = split_floats(actual)
    s_text, s_nums = split_floats(stored)
    if a_text != s_text:
        pairs = zip(actual.splitlines(), stored.splitlines(), strict=False)
        line = next((i + 1 for i, (a, s) in enumerate(pairs) if a != s), "past the shorter end")
        return f"the text differs (first at line {line})"
    for i, (a, s) in enumerate(zip(a_nums, s_nums, strict=True)):
        if not close(float(a), float(s)):
            return f"number {i}: {a} != {s}"
    return None


def assert_matches(actual: Any, stored: Any, name: str = "") -> None:
    """Fails, saying where, unless ``actual`` matches ``stored`` (:func:`mismatch`, or
    :func:`text_mismatch` for two strings)."""
    if isinstance(actual, str) and isinstance(stored, str):
        found = text_mismatch(actual, stored)
    else:
        found = mismatch(actual, stored)
    assert found is None, f"{name}: {found}" if name else found
