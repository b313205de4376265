"""``index`` and ``--store`` on the command line; the scale extras stay out of every other
command and the app."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from scar_viz.cli.main import main
from scripts.live_app import free_port
from tests.conftest import ROOT

SAMPLE = ROOT / "scar_viz" / "documents" / "samples"
DOC, QUERIES = SAMPLE / "harbor_manual.md", SAMPLE / "harbor_manual.queries.jsonl"


def _json(capsys, argv) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_eval_and_select_from_a_store_equal_the_document(tmp_path, capsys):
    pytest.importorskip("lancedb", reason="the scale extras are not installed")
    store = str(tmp_path / "s")
    assert (
        main(["index", str(DOC), "--store", store, "--model", "hash", "--chunk-size", "400"]) == 0
    )
    assert "1 added" in capsys.readouterr().out
    common = ["--model", "hash", "--chunk-size", "400", "--json", "--no-cache"]
    want = _json(capsys, ["eval", str(DOC), str(QUERIES), *common, "--boot", "200"])
    got = _json(capsys, ["eval", "--store", store, str(QUERIES), *common, "--boot", "200"])
    assert want["policies"]["scar"]["all"]["recall"] is not None
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
    q = ["--query", "What happens if the last crossing is cancelled?"]
    want = _json(capsys, ["select", str(DOC), *q, *common])
    got = _json(capsys, ["select", "--store", store, *q, *common])
    want.pop("seconds"), got.pop("seconds")
    assert got == want


def test_a_corpus_folder_indexed_and_read_back_gives_the_same_eval(tmp_path, capsys):
    pytest.importorskip("lancedb", reason="the scale extras are not installed")
    corpus, kq = SAMPLE / "kestrel", SAMPLE / "kestrel.queries.jsonl"
    store = str(tmp_path / "s")
    assert main(["index", str(corpus), "--store", store, "--model", "hash"]) == 0
    assert "6 added" in capsys.readouterr().out
    common = ["--model", "hash", "--json", "--no-cache", "--boot", "200"]
    want = _json(capsys, ["eval", str(corpus), str(kq), *common])
    got = _json(capsys, ["eval", "--store", store, str(kq), *common])
    assert len(want["documents"]) == 6
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", str(QUERIES), "--model", "hash"], "Give a document (DOC) or a store"),
        (["eval", str(DOC), str(QUERIES), "--store", "x"], "not both"),
        (["index", str(DOC), "--store", "x", "--batch-size", "0"], "--batch-size"),
    ],
)
def test_bad_input_is_one_line(argv, message, capsys):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_store_of_another_model_is_one_line(tmp_path, capsys):
    pytest.importorskip("lancedb", reason="the scale extras are not installed")
    store = str(tmp_path / "s")
    assert main(["index", str(DOC), "--store", store, "--model", "hash:64"]) == 0
    capsys.readouterr()
    assert main(["eval", "--store", store, str(QUERIES), "--model", "hash"]) == 1
    err = capsys.readouterr().err
    assert "made with hash:64 · recursive 600/60, not hash:256" in err and err.count("\n") == 1


@pytest.mark.parametrize(("engine", "module"), [("local", "lancedb"), ("ray", "ray")])
def test_without_the_extras_index_says_what_to_install(
    engine, module, tmp_path, capsys, monkeypatch
):
    monkeypatch.setitem(sys.modules, module, None)  # import fails as when not installed
    argv = [
        "index",
        str(DOC),
        "--store",
        str(tmp_path / "s"),
        "--model",
        "hash",
        "--engine",
        engine,
    ]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "pip install -r requirements-scale.txt" in err and err.count("\n") == 1


@pytest.mark.timeout(120)  # Ray alone retries such an address for many minutes
@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("127.0.0.1:{port}", "Cannot reach Ray at 127.0.0.1:{port} (Connection refused)"),
        ("ray://127.0.0.1:{port}", "Cannot reach Ray at ray://127.0.0.1:{port}"),
        ("head-node", "--ray-address 'head-node' is not auto, HOST:PORT or ray://HOST:PORT."),
    ],
)
def test_a_cluster_address_nothing_answers_at_is_one_line_at_once(address, said, tmp_path, capsys):
    pytest.importorskip("ray", reason="the scale extras are not installed")
    pytest.importorskip("lancedb", reason="the scale extras are not installed")
    port = free_port()  # nothing listens there: a connection is refused
    argv = ["index", str(DOC), "--store", str(tmp_path / "s"), "--model", "hash"]
    assert main([*argv, "--engine", "ray", "--ray-address", address.format(port=port)]) == 1
    err = capsys.readouterr().err
    assert said.format(port=port) in err and err.count("\n") == 1


CHECK = "import sys; print(sorted(m for m in ('ray', 'lancedb') if m in sys.modules))"


def test_cli_eval_never_imports_the_extras(tmp_path):
    code = (
        "import sys; from scar_viz.cli.main import main; "
        f"rc = main(['eval', {str(DOC)!r}, {str(QUERIES)!r}, '--model', 'hash', '--no-cache', "
        f"'--boot', '0', '--json']); {CHECK}"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_the_app_modules_never_import_the_extras():
    code = (
        "import importlib, pkgutil, scar_viz, ui\n"
        "for pkg in (scar_viz, ui):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        if not m.name.startswith('scar_viz.store') and m.name != 'scar_viz.__main__':\n"
        "            importlib.import_module(m.name)\n"
        f"{CHECK}\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"
