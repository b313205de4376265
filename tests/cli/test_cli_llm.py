"""``python -m scar_viz make-queries`` and ``answer`` against the loopback fake chat server."""

from __future__ import annotations

import json
import os
import re

import pytest

from scar_viz.cli.main import main
from scar_viz.documents import samples
from scar_viz.documents.reading import load_path
from scar_viz.queries.reading import parse_queries
from tests.conftest import run_cli

SECRET = "sk-test-SECRET0123456789abcdef"
DOWN = "http://127.0.0.1:9/v1"


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    doc = tmp_path / "harbor.md"
    doc.write_text(samples.load_sample().text, encoding="utf-8")
    queries = tmp_path / "harbor.queries.jsonl"
    queries.write_text(samples.sample_queries_text(), encoding="utf-8")
    return doc, queries


def make_queries(*argv) -> int:
    return main(["make-queries", *map(str, argv), "--chunk-size", "300", "--overlap", "30"])


def test_make_queries_writes_the_corpus_format(llm_server, files, capsys):
    doc, _ = files
    assert make_queries(doc, "--n", "4", "--model", "m", "--base-url", llm_server.base_url) == 0
    out, err = capsys.readouterr()
    parsed = parse_queries(out, load_path(doc))
    assert len(parsed.queries) == 4 and not parsed.issues
    assert all(json.loads(line)["type"] in ("fragmented", "atomic") for line in out.splitlines())
    assert "kept 4 of 4 generated" in err and "m @ http://127.0.0.1" in err
    assert {r["body"]["model"] for r in llm_server.requests} == {"m"}
    assert SECRET not in out + err


def test_make_queries_llm_spelling_and_seed(llm_server, files, capsys):
    doc, _ = files
    url = llm_server.base_url
    assert make_queries(doc, "--n", "3", "--llm-model", "m", "--llm-base-url", url) == 0
    first = capsys.readouterr().out
    assert make_queries(doc, "--n", "3", "--llm-model", "m", "--llm-base-url", url) == 0
    assert capsys.readouterr().out == first
    assert llm_server.calls == 3  # the second run came from the disk cache
    assert make_queries(doc, "--n", "3", "--model", "m", "--base-url", url, "--seed", "5") == 0
    assert capsys.readouterr().out != first


@pytest.mark.parametrize(
    "mode,argv,message",
    [
        (None, ["--base-url", DOWN], "error: Could not connect to the LLM endpoint at " + DOWN),
        (
            "500",
            ["--retries", "1"],
            "error: The LLM endpoint failed with HTTP 500",
        ),
        ("401", [], "error: The LLM endpoint refused the API key"),
        ("garbage", [], "error: no generated query was kept"),
    ],
)
def test_make_queries_failures_are_one_error_line(llm_server, files, capsys, mode, argv, message):
    doc, _ = files
    llm_server.mode = mode or "ok"
    base = [] if "--base-url" in argv else ["--base-url", llm_server.base_url]
    assert make_queries(doc, "--n", "2", *base, *argv) == 1
    out, err = capsys.readouterr()
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith(message)
    assert "Traceback" not in err and out == "" and SECRET not in err


def answer(files, *argv) -> int:
    doc, queries = files
    return main(["answer", str(doc), str(queries), "--model", "hash", *map(str, argv)])


def test_answer_json(llm_server, files, capsys):
    url = llm_server.base_url
    argv = ["--llm-base-url", url, "--policies", "topk", "scar", "--limit", "3", "--boot", "200"]
    assert answer(files, *argv, "--json") == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["n_queries"] == 3 and set(data["policies"]) == {"topk", "scar"}
    assert data["policies"]["scar"]["n_scored"]["faithfulness"] == 3
    assert data["reference_answers"]  # the sample's query file carries reference answers
    assert data["policies"]["scar"]["n_scored"]["answer_correctness"] == 3
    assert data["answer_model"] == data["judge_model"] == f"gpt-4o-mini @ {url}"
    calls = re.search(r"(\d+) calls \((\d+) from the cache\)", err)
    assert calls and int(calls.group(1)) == llm_server.calls
    assert SECRET not in out + err


def test_answer_text_and_judge_model(llm_server, files, capsys):
    url = llm_server.base_url
    argv = ["--llm-base-url", url, "--judge-model", "j", "--policies", "scar", "--limit", "2"]
    assert answer(files, *argv) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].split() == [
        "policy",
        "faithful",
        "relevancy",
        "recall",
        "correct",
        "tokens",
        "bad",
    ]
    assert out.splitlines()[2].startswith("scar")
    assert {r["body"]["model"] for r in llm_server.requests} == {"gpt-4o-mini", "j"}


def test_answer_server_down_is_one_error_line(files, capsys):
    assert answer(files, "--llm-base-url", DOWN, "--limit", "2", "--json") == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip().splitlines()[-1].startswith("error: Could not connect to the LLM endpoint")
    assert [line for line in err.splitlines() if line.startswith("error:")] == [
        err.strip().splitlines()[-1]
    ]


def test_answer_entry_point_exits_non_zero_without_traceback(files):
    doc, queries = files
    env = {**os.environ, "OPENAI_API_KEY": SECRET}
    proc = run_cli(
        "answer", str(doc), str(queries), "--model", "hash", "--llm-base-url", DOWN,
        "--limit", "1", "--retries", "0",
        env=env,
    )  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: Could not connect") and "Traceback" not in proc.stderr
    assert SECRET not in proc.stdout + proc.stderr
