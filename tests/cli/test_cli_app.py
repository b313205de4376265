"""``scar-viz app [streamlit options]``: the app is found in the installed package or the
checkout, every further argument goes to ``streamlit run`` as given, and no app beside the
package is one line (the served app itself: tests/test_packaging.py)."""

from __future__ import annotations

import pytest

from scar_viz.cli import app as cli_app
from scar_viz.cli.main import main
from tests.conftest import ROOT


@pytest.fixture
def served(monkeypatch) -> list:
    """What serve() was asked to run (Streamlit is not started here)."""
    calls: list = []
    monkeypatch.setattr(cli_app, "serve", lambda script, args: calls.append((script, args)) or 0)
    return calls


def test_the_checkouts_app_gets_every_further_argument_as_given(served):
    argv = ["app", "--server.port", "8600", "--theme.base=dark", "--help"]
    assert main(argv) == 0
    assert served == [(ROOT / "app.py", ["--server.port", "8600", "--theme.base=dark", "--help"])]


def test_an_installed_app_comes_first(served, monkeypatch, tmp_path):
    (tmp_path / "pages").mkdir()
    (tmp_path / "app.py").write_text("")
    monkeypatch.setattr(cli_app, "INSTALLED_APP", tmp_path / "app.py")
    assert main(["app"]) == 0
    assert served == [(tmp_path / "app.py", [])]


def test_no_app_beside_the_package_is_one_line(served, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(cli_app, "INSTALLED_APP", tmp_path / "a" / "app.py")
    monkeypatch.setattr(cli_app, "CHECKOUT_APP", tmp_path / "b" / "app.py")
    assert main(["app", "--server.port", "1"]) == 1
    err = capsys.readouterr().err
    assert (
        err.startswith("error: The app's files are not beside this scar_viz")
        and err.count("\n") == 1
    )
    assert served == []


def test_the_help_lists_app_among_the_commands(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "app" in out and "streamlit run" in out
