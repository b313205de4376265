"""``--settings FILE`` on select, eval and answer: the saved setting runs exactly (any retriever,
any expansion, the learned gate from the file), options given beside it override it and are
named in the output, and a bad file is one sentence with a non-zero exit. (Every retriever ×
expansion against the integrations: tests/integrations/test_settings_everywhere.py.)"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from scar_viz.cli.main import main
from scar_viz.evaluation.settings import ChosenSettings
from scar_viz.scoring.learned import default_gate
from tests.integrations.helpers import SAMPLE_DOC, SAMPLE_QUERIES

QUESTION = "What happens if the last crossing of the day is cancelled?"
DOC = ("--model", "hash", "--no-cache")


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


def _file(tmp_path: Path, name: str = "settings.json", **changes: object) -> Path:
    fields: dict = {
        "retriever": "hybrid", "policy": "learned", "k": 3, "radius": 1, "lam": None,
        "tau": None, "mu": None, "p": 0.2, "gate": default_gate(), "k_rrf": 20.0,
        "chosen_on": {"model": "hash:256"},
    }  # fmt: skip
    fields.update(changes)
    return ChosenSettings(**fields).save(tmp_path / name)


def _select(*argv: str) -> dict:
    rc, out, err = _run("select", str(SAMPLE_DOC), "--query", QUESTION, *DOC, *argv, "--json")
    assert rc == 0, err
    return json.loads(out)


def test_select_runs_the_file_and_says_so(tmp_path):
    path = _file(tmp_path)
    out = _select("--settings", str(path))
    assert out["policy"] == "learned" and out["settings"]["overridden"] == []
    assert out["params"]["k"] == 3 and out["params"]["retriever"] == {
        "name": "hybrid",
        "k_rrf": 20.0,
    }
    assert out["params"]["p"] == 0.2
    own = _select(
        "--policy", "learned", "--retriever", "hybrid", "--rrf-k", "20", "--k", "3", "--p", "0.2"
    )  # the same setting as select's own options (the default gate is the file's gate here)
    assert out["selected"] == own["selected"] and out["retrieved"] == own["retrieved"]
    rc, text, _ = _run(
        "select", str(SAMPLE_DOC), "--query", QUESTION, *DOC, "--settings", str(path)
    )
    assert rc == 0
    assert f"settings: {path} (learned on hybrid (k_rrf = 20), k = 3, r = 1, p = 0.2)" in text


def test_options_beside_the_file_override_it_and_are_named(tmp_path):
    path = _file(tmp_path)
    out = _select("--settings", str(path), "--k", "5", "--retriever", "bm25")
    assert out["settings"]["overridden"] == ["--retriever", "--k"]
    assert out["params"]["k"] == 5 and out["params"]["retriever"] == {"name": "bm25"}
    assert len(out["retrieved"]) == 5
    same = _select("--settings", str(_file(tmp_path, "b.json", k=5, retriever="bm25")))
    assert out["selected"] == same["selected"]
    scar = _select("--settings", str(path), "--policy", "scar")  # SCAR takes the defaults
    assert scar["policy"] == "scar" and scar["params"]["lam"] == 0.5
    assert scar["settings"]["overridden"] == ["--policy"]
    rc, text, _ = _run(
        "select", str(SAMPLE_DOC), "--query", QUESTION, *DOC, "--settings", str(path), "--p", "0.5"
    )
    assert rc == 0 and "p = 0.5; overridden by --p)" in text


def test_eval_runs_the_file_beside_other_policies(tmp_path):
    path = _file(tmp_path, policy="window1", retriever="bm25", p=None, gate=None)
    rc, out, err = _run(
        "eval", str(SAMPLE_DOC), str(SAMPLE_QUERIES), *DOC, "--settings", str(path),
        "--policies", "topk", "window1", "--boot", "0", "--json",
    )  # fmt: skip
    assert rc == 0, err
    data = json.loads(out)
    assert list(data["policies"]) == ["window1", "topk"]
    assert data["settings"] == {
        "file": str(path), "policy": "window1", "retriever": {"name": "bm25"}, "overridden": []
    }  # fmt: skip
    rc, own, _ = _run(
        "eval", str(SAMPLE_DOC), str(SAMPLE_QUERIES), *DOC, "--retriever", "bm25", "--k", "3",
        "--policies", "window1", "--boot", "0", "--json",
    )  # fmt: skip
    mine = [q["policies"]["window1"]["selected"] for q in data["queries"]]
    assert mine == [q["policies"]["window1"]["selected"] for q in json.loads(own)["queries"]]


def test_a_run_on_another_model_than_the_files_is_noted(tmp_path):
    path = _file(tmp_path, chosen_on={"model": "st:other", "chunking": "recursive 600/60"})
    rc, _, err = _run("select", str(SAMPLE_DOC), "--query", QUESTION, *DOC, "--settings", str(path))
    assert rc == 0
    assert "note: the setting was chosen with model st:other; this run has hash:256." in err
    assert "chunking" not in err  # the same chunking: no note


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "Cannot read settings file"),
        ("{not json", "not valid JSON"),
        ('{"format": "other"}', "Not a scar-viz settings file"),
        ('{"format": "scar-viz/settings", "version": 1, "retriever": "dense", "policy": "x", '
         '"k": 3}', "Unknown policy 'x'"),
        ('{"format": "scar-viz/settings", "version": 1, "retriever": "dense", '
         '"policy": "learned", "k": 3, "p": 0.1, "gate": {"weights": 1}}', "gate"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("command", ["select", "eval"])
def test_a_bad_file_is_one_sentence_and_a_non_zero_exit(tmp_path, command, content, said):
    path = tmp_path / "s.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    head = ["--query", QUESTION] if command == "select" else [str(SAMPLE_QUERIES)]
    argv = [command, str(SAMPLE_DOC), *head, *DOC, "--settings", str(path)]
    rc, out, err = _run(*argv)
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert rc == 1 and out == "" and len(errors) == 1 and said in errors[0], err
    assert "Traceback" not in err


def test_an_override_the_setting_cannot_take_is_one_sentence(tmp_path):
    rc, _, err = _run(
        "select", str(SAMPLE_DOC), "--query", QUESTION, *DOC, "--settings",
        str(_file(tmp_path)), "--policy", "rse",
    )  # fmt: skip
    assert rc == 1 and err.count("\n") == 1
    assert "with --policy: Unknown policy 'rse'" in err


def test_answer_runs_the_file(llm_server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    path = _file(tmp_path, k=2)
    rc, out, err = _run(
        "answer", str(SAMPLE_DOC), str(SAMPLE_QUERIES), *DOC, "--settings", str(path),
        "--llm-base-url", llm_server.base_url, "--limit", "3", "--boot", "0", "--json",
    )  # fmt: skip
    assert rc == 0, err
    data = json.loads(out)
    assert list(data["policies"]) == ["learned"] and data["settings"]["file"] == str(path)
    rc, ev, _ = _run(
        "eval", str(SAMPLE_DOC), str(SAMPLE_QUERIES), *DOC, "--settings", str(path),
        "--boot", "0", "--json",
    )  # fmt: skip
    want = [q["policies"]["learned"]["selected"] for q in json.loads(ev)["queries"][:3]]
    assert [q["policies"]["learned"]["chunks"] for q in data["queries"]] == want
