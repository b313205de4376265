"""pip install of the wheel into a fresh venv, then, from a folder outside the repository:
``scar-viz --help``, ``scar-viz eval`` on the sample inside the installed package (the same
figures as the checkout's), and ``scar-viz app`` answering on a port with the installed app,
its server settings included. The checkout is never on ``sys.path`` there."""

from __future__ import annotations

import ast
import json
import urllib.request
import zipfile
from pathlib import Path

import pytest

from scar_viz.cli.main import main
from scripts.live_app import LiveApp
from tests.conftest import ROOT
from tests.packaging import Installed, clean_env, install_wheel
from tests.test_pure_package import _imports_streamlit

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    return install_wheel(tmp_path_factory.mktemp("packaging"))


def test_the_wheel_carries_the_package_the_app_and_the_samples_and_nothing_else(installed):
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for must in (
        "scar_viz_app/app.py",
        "scar_viz_app/pages/explorer.py",
        "scar_viz_app/ui/sidebar.py",
        "scar_viz_app/ui/gate_panel.js",
        "scar_viz_app/static/favicon.png",
        "scar_viz_app/.streamlit/config.toml",
        "scar_viz/documents/samples/harbor_manual.md",
        "scar_viz/documents/samples/kestrel/docs/setup.md",
        "scar_viz/data/default_gate.json",
        "scar_viz/integrations/langchain.py",
    ):
        assert must in names, must
    assert not [
        n for n in names if n.startswith(("tests/", "ui/", "pages/", "app.py", "scar_viz/_app"))
    ]
    # the installed scar_viz is as pure as the checkout's: the app's Streamlit code is beside it
    package = [n for n in names if n.startswith("scar_viz/") and n.endswith(".py")]
    with zipfile.ZipFile(installed.wheel) as wheel:
        assert not [
            n
            for n in package
            if any(map(_imports_streamlit, ast.walk(ast.parse(wheel.read(n).decode()))))
        ]
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    meta = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert (
        "scar-viz = scar_viz.cli.main:entry" in zipfile.ZipFile(installed.wheel).read(meta).decode()
    )


def test_the_installed_package_is_what_runs_and_the_checkout_is_not_on_the_path(installed):
    code = "import json, sys, scar_viz; print(json.dumps([scar_viz.__file__, sys.path]))"
    out = installed.run("python", "-c", code)
    assert out.returncode == 0, out.stderr
    where, path = json.loads(out.stdout)
    assert where.startswith(str(installed.site))
    assert str(ROOT) not in path and ROOT not in installed.elsewhere.parents
    # no entry but the venv's own site-packages holds a scar_viz (the test venv's packages,
    # seen through the .pth file, hold none: the checkout is not installed there)
    holders = [p for p in path if (Path(p or installed.elsewhere) / "scar_viz").exists()]
    assert holders == [str(installed.site)]


def test_scar_viz_help_lists_the_app_and_the_commands(installed):
    out = installed.run("scar-viz", "--help")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: scar-viz")
    for command in ("app", "select", "eval", "recommend", "index", "fit-gate"):
        assert command in out.stdout


def test_scar_viz_eval_on_the_installed_sample_gives_the_checkouts_figures(installed, capsys):
    samples = installed.site / "scar_viz" / "documents" / "samples"
    opts = ["--model", "hash", "--no-cache", "--boot", "200", "--json"]
    out = installed.run(
        "scar-viz", "eval", str(samples / "harbor_manual.md"),
        str(samples / "harbor_manual.queries.jsonl"), *opts,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    here = ROOT / "scar_viz" / "documents" / "samples"
    assert (
        main(
            [
                "eval",
                str(here / "harbor_manual.md"),
                str(here / "harbor_manual.queries.jsonl"),
                *opts,
            ]
        )
        == 0
    )
    assert json.loads(out.stdout) == json.loads(capsys.readouterr().out)
    bad = installed.run("scar-viz", "eval", "missing.md", "q.jsonl", "--model", "hash")
    assert bad.returncode == 1 and bad.stderr.count("\n") == 1 and "missing.md" in bad.stderr


def test_the_installed_app_reads_its_own_server_settings(installed):
    code = (
        "from streamlit import config\n"
        "from scar_viz.cli.app import app_script\n"
        "config._main_script_path = str(app_script())  # as 'streamlit run' sets it\n"
        "config.get_config_options(force_reparse=True)\n"
        "print(app_script())\n"
        "get = config.get_option\n"
        "print(get('theme.primaryColor'), get('server.maxUploadSize'))\n"
    )
    out = installed.run("python", "-c", code)
    assert out.returncode == 0, out.stderr
    script, settings = out.stdout.strip().splitlines()[-2:]
    assert script == str(installed.site / "scar_viz_app" / "app.py")
    assert settings == "#1f3b73 20"


def test_scar_viz_app_answers_on_a_port_from_another_folder(installed, tmp_path):
    app = LiveApp(env=clean_env(SCAR_VIZ_DEFAULT_MODEL="hash", SCAR_VIZ_CACHE_DIR=str(tmp_path)))
    app.command = [str(installed.bin / "scar-viz"), "app"]
    app.cwd = installed.elsewhere
    with app:
        with urllib.request.urlopen(f"{app.url}/_stcore/health", timeout=10) as r:
            assert r.read() == b"ok"
        with urllib.request.urlopen(f"{app.url}/", timeout=10) as r:
            page = r.read().decode()
        assert r.status == 200 and '<div id="root">' in page
    assert "Traceback" not in app.log()
