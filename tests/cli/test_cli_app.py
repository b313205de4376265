"""``scar-viz app [streamlit options]``: the app is found in the installed package or the
checkout, every further argument goes to ``streamlit run`` as given, the app's own launcher
runs it in this process with the model hubs switched off, and no app beside the package is one
line (the served app itself: tests/test_packaging.py)."""

from __future__ import annotations

import os
import sys
import types

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
    installed = tmp_path / "scar_viz_app"
    (installed / "pages").mkdir(parents=True)
    (installed / "app.py").write_text("")
    monkeypatch.setattr(cli_app, "INSTALLED_APP", installed / "app.py")
    assert main(["app"]) == 0
    assert served == [(installed / "app.py", [])]


def test_the_installed_app_sits_beside_the_package_not_inside_it():
    assert cli_app.INSTALLED_APP.parent.name == cli_app.APP_PACKAGE == "scar_viz_app"
    assert cli_app.INSTALLED_APP.parent.parent == cli_app.PACKAGE.parent
    assert cli_app.CHECKOUT_APP == ROOT / "app.py"


@pytest.mark.parametrize(
    ("folder", "module"),
    [(ROOT, "ui.serve"), (ROOT / "site" / "scar_viz_app", "scar_viz_app.ui.serve")],
)
def test_the_apps_launcher_runs_in_this_process_with_the_hubs_off(folder, module, monkeypatch):
    calls: list = []

    def launch(script, args):
        calls.append((script, list(args), {n: os.environ[n] for n in cli_app.OFFLINE_ENV}))
        return 3

    for name in cli_app.OFFLINE_ENV:
        monkeypatch.setenv(name, "0")  # restored after the test
    monkeypatch.setitem(sys.modules, module, types.SimpleNamespace(serve=launch))
    assert cli_app.launcher(folder / "app.py") == module
    assert cli_app.serve(folder / "app.py", ["--server.port", "1"]) == 3
    assert calls == [
        (folder / "app.py", ["--server.port", "1"], dict.fromkeys(cli_app.OFFLINE_ENV, "1"))
    ]


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
