"""scar_viz.runtime.budget: one visitor's budget of bytes held, read from the operator's value, and
the one sentence that refuses an addition past it."""

from __future__ import annotations

import pytest

from scar_viz.common.errors import SettingsError
from scar_viz.runtime.budget import (
    DEFAULT_SESSION_MB,
    SESSION_MB_ENV,
    SessionBudget,
    budget_from,
    budget_from_env,
    refusal,
)


def test_the_operators_value_states_the_budget_in_mib():
    assert budget_from("") == SessionBudget(DEFAULT_SESSION_MB * 2**20)
    assert budget_from(" 64 ").max_bytes == 64 * 2**20
    assert budget_from_env({SESSION_MB_ENV: "2"}).max_bytes == 2 * 2**20
    assert budget_from_env({}).max_bytes == DEFAULT_SESSION_MB * 2**20


@pytest.mark.parametrize("value", ["0", "-5", "1.5", "lots", "9" * 400])
def test_a_value_out_of_range_is_one_sentence(value):
    with pytest.raises(SettingsError) as err:
        budget_from(value)
    message = str(err.value)
    assert message.startswith(SESSION_MB_ENV) and message.count(". ") == 0


def test_an_addition_fits_up_to_the_budget_and_is_refused_past_it():
    budget = SessionBudget(10 * 2**20)
    assert refusal(budget, 6 * 2**20, 4 * 2**20, "This upload") == ""
    message = refusal(budget, 6 * 2**20, 4 * 2**20 + 1, "This upload")
    assert message.startswith("This upload would need 4.0 MiB")
    assert "already holds 6.0 MiB" in message and "allows 10.0 MiB a session" in message
    assert message.endswith(".") and message.count(". ") == 0
