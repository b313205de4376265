"""The page tests' own helpers: ``open_page`` opens the page under test as a link to it does
(its first run is the page's), and reads every page ``app.py`` declares."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.helpers import go_to, open_page, opens_directly, url_paths
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


TWO_PAGES = {
    "app.py": (
        "import streamlit as st\n"
        "st.navigation([st.Page('a.py', default=True), st.Page('b.py')]).run()\n"
    ),
    "a.py": (
        "import streamlit as st\n"
        "st.markdown(f\"read {st.slider('k', 1, 10, 3, key='k', bind='query-params')}\")\n"
    ),
}
TWO_PAGES["b.py"] = TWO_PAGES["a.py"]


def _two_pages(tmp_path) -> AppTest:
    """Two pages with the same keyed, address-bound slider (as every page here draws k), set
    to 6 on the first."""
    for name, text in TWO_PAGES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    at = AppTest.from_file(tmp_path / "app.py", default_timeout=TIMEOUT).run()
    at.slider(key="k").set_value(6).run()
    return at


def first_run_value(at: AppTest) -> int:
    """The slider's value as the page's last run read it."""
    return int(at.markdown[0].value.removeprefix("read "))


def test_a_page_change_carries_a_bound_widgets_value_into_the_first_run(tmp_path):
    at = go_to(_two_pages(tmp_path), "b.py")
    assert first_run_value(at) == 6
    assert at.query_params["k"] == "6"


def test_under_plain_switch_page_the_first_run_reads_the_default(tmp_path):
    """Why :func:`go_to` exists: ``switch_page`` + ``run`` sends the previous page's widgets,
    and the new page's first run reads the default. When this fails, Streamlit's AppTest
    changes pages as the browser does, and ``go_to`` can become ``switch_page`` + ``run``."""
    at = _two_pages(tmp_path)
    at.switch_page("b.py").run()
    assert first_run_value(at) == 3
    at.run()
    assert first_run_value(at) == 6
