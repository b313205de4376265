"""ui.state outside a page: the process-wide hold on model downloads in a shared deployment."""

from __future__ import annotations

import os

import pytest

from ui.state import OFFLINE_ENV, hold_model_downloads


@pytest.fixture
def clean_env(monkeypatch):
    for name in (*OFFLINE_ENV, "SCAR_VIZ_ONLY_ALLOWED_BASE_URLS", "SCAR_VIZ_ALLOWED_BASE_URLS"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_held_visitors_cannot_make_the_server_download_a_model(clean_env):
    clean_env.setenv("SCAR_VIZ_ONLY_ALLOWED_BASE_URLS", "1")
    clean_env.setenv("HF_HUB_OFFLINE", "0")  # even an operator's leftover setting is overridden
    assert hold_model_downloads()
    assert all(os.environ[name] == "1" for name in OFFLINE_ENV)


def test_a_malformed_allow_list_holds_too(clean_env):
    clean_env.setenv("SCAR_VIZ_ALLOWED_BASE_URLS", "localhost:8000")
    assert hold_model_downloads()
    assert os.environ["HF_HUB_OFFLINE"] == "1"


def test_one_person_on_their_own_machine_is_not_held(clean_env):
    assert not hold_model_downloads()
    assert not any(name in os.environ for name in OFFLINE_ENV)
