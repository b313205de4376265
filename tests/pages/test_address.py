"""AppTest: an address with gate values out of range resets them with one notice saying which."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from scar_viz.scoring.params import DEFAULT_PARAMS
from tests.pages.helpers import alerts


def _open(hash_model, **params: str) -> AppTest:
    at = AppTest.from_file("../../app.py", default_timeout=90)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, at.exception
    return at


def test_out_of_range_values_are_reset_with_one_notice(hash_model):
    at = _open(hash_model, lam="5", k="999", tau="0.3")
    notices = [a for a in alerts(at, "warning") if "out of range" in a]
    assert len(notices) == 1
    assert "λ = 5 (allowed 0 … 2)" in notices[0] and "k = 999 (allowed 1 … 20)" in notices[0]
    assert "τ" not in notices[0]  # a value in range is kept, not named
    assert at.slider(key="lam").value == DEFAULT_PARAMS.lam
    assert at.slider(key="k").value == DEFAULT_PARAMS.k
    assert at.slider(key="tau").value == 0.3


def test_a_value_that_is_no_number_is_named(hash_model):
    at = _open(hash_model, lam="abc")
    notices = [a for a in alerts(at, "warning") if "out of range" in a]
    assert len(notices) == 1 and "λ = abc" in notices[0]


def test_a_good_address_says_nothing(hash_model):
    at = _open(hash_model, lam="0.2", k="4")
    assert not [a for a in alerts(at, "warning") if "out of range" in a]
    assert (at.slider(key="lam").value, at.slider(key="k").value) == (0.2, 4)
