"""The page tests' own helpers: ``open_page`` opens the page under test as a link to it does
(its first run is the page's), and reads every page ``app.py`` declares."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pages.helpers import open_page, opens_directly, url_paths
from ui import keys

PAGES = Path(__file__).resolve().parents[2] / "pages"
TIMEOUT = 60


def test_every_page_file_is_read_from_the_app():
    assert set(url_paths()) == {f"pages/{p.name}" for p in PAGES.glob("*.py")}
    assert url_paths()["pages/fit_gate.py"] == "fit-gate"


@pytest.mark.parametrize("page", ["pages/budget.py", "pages/learn.py"])
def test_a_page_that_opens_directly_never_runs_the_explorer(hash_model, page):
    assert opens_directly(page)
    at = open_page(page, TIMEOUT)
    # the Explorer marks what its panel was sent and what question it drew for: never here
    assert keys.PANEL_SENT not in at.session_state
    assert keys.Q_DOC not in at.session_state


def test_a_page_named_otherwise_is_still_opened(hash_model):
    assert not opens_directly("pages/fit_gate.py")
    at = open_page("pages/fit_gate.py", TIMEOUT)
    assert any(h.value == "Fit a gate" for h in at.title), [h.value for h in at.title]
