"""The comparison with stored references (:mod:`tests.stored_numbers`) fails on a real change
and passes within its stated tolerance, on the project's own stored outputs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tests.stored_numbers import ABS, REL, assert_matches, mismatch, text_mismatch

REFERENCE = Path(__file__).resolve().parent / "data" / "reference"


def _floats(value, path=()):
    """Every (path, float) in a JSON-like value."""
    if isinstance(value, float):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _floats(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _floats(item, (*path, i))


def _set(value, path, new):
    for step in path[:-1]:
        value = value[step]
    value[path[-1]] = new


@pytest.fixture(scope="module")
def stored():
    return json.loads((REFERENCE / "select_harbor.json").read_text(encoding="utf-8"))


def test_every_float_of_a_stored_reference_fails_beyond_the_tolerance_and_passes_within(stored):
    floats = list(_floats(stored))
    assert len(floats) > 100
    for path, value in floats[::7]:
        beyond, within = copy.deepcopy(stored), copy.deepcopy(stored)
        _set(beyond, path, value * (1 + 1e3 * REL) + 1e3 * ABS)  # a real change
        _set(within, path, value * (1 + REL / 4) + ABS / 4)  # another BLAS kernel's sum
        assert mismatch(beyond, stored) is not None, path
        assert mismatch(within, stored) is None, path
        with pytest.raises(AssertionError, match="!="):
            assert_matches(beyond, stored, "select_harbor")


def test_the_last_digit_another_cpu_wrote_is_within_the_tolerance():
    """The difference the issue saw between two machines: S in the 16th digit."""
    assert mismatch({"S": -0.029164628930518216}, {"S": -0.02916462893051816}) is None
    assert mismatch({"b": 1e-17}, {"b": -2e-18}) is None  # near 0: the absolute floor
    assert mismatch({"S": -0.02916462893}, {"S": -0.02916462893051816}) is not None


@pytest.mark.parametrize(
    ("actual", "stored"),
    [
        ({"outcome": "admitted"}, {"outcome": "rejected"}),
        ({"selected": [1, 2]}, {"selected": [2, 1]}),  # order is exact
        ({"selected": [1, 2, 3]}, {"selected": [1, 2]}),
        ({"k": 3}, {"k": 3.0}),  # an int is not a float
        ({"k": 4}, {"k": 3}),  # integers exactly
        ({"admitted": None}, {"admitted": []}),
        ({"passes": True}, {"passes": False}),
        ({"a": 1.0}, {"a": 1.0, "b": 2.0}),  # a missing key
    ],
)
def test_everything_but_a_float_compares_exactly(actual, stored):
    assert mismatch(actual, stored) is not None


def test_printed_output_compares_its_text_exactly_and_its_floats_within_the_tolerance():
    stored = (REFERENCE / "eval_harbor_text.txt").read_text(encoding="utf-8")
    assert text_mismatch(stored, stored) is None
    line = next(line for line in stored.splitlines() if line.startswith("topk       all"))
    assert "0.542" in line
    assert text_mismatch(stored.replace(line, line.replace("0.542", "0.543")), stored)
    assert text_mismatch(stored.replace("topk", "top-k", 1), stored)
    assert text_mismatch(stored.replace("24 queries", "25 queries", 1), stored)  # an integer
    rewritten = stored.replace(line, line.replace("0.542", "0.5420000000000001"))
    assert text_mismatch(rewritten, stored) is None
