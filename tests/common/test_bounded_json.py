"""The one reader of untrusted JSON, and every input that goes through it: a nesting bomb, a
deep value and an oversized text each give one message naming what was read, never a
``RecursionError``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from scar_viz.common.bounded_json import MAX_DEPTH, JsonInputError, read_json
from scar_viz.common.errors import SettingsError
from scar_viz.documents import samples
from scar_viz.llm.replies import make_reply, parse_json_object
from scar_viz.queries.reading import parse_queries
from scar_viz.scoring.learned import GateFileError, LearnedGate
from scar_viz.views.session import loads
from tests.conftest import ROOT

BOMB = "[" * 200_000
OBJECT_BOMB = '{"a":' * 200_000


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("text", [BOMB, OBJECT_BOMB, BOMB.encode()])
def test_a_nesting_bomb_is_one_message_not_a_recursion_error(text):
    with pytest.raises(JsonInputError) as err:
        read_json(text, "bomb.json", max_bytes=10**6)
    assert str(err.value) == f"bomb.json: nested deeper than {MAX_DEPTH} levels"
    assert err.value.kind == "depth"


def test_depth_is_counted_after_parsing_too():
    assert read_json(nested(MAX_DEPTH), max_bytes=10**6) == json.loads(nested(MAX_DEPTH))
    with pytest.raises(JsonInputError, match="nested deeper than 64 levels"):
        read_json(nested(MAX_DEPTH + 1), max_bytes=10**6)  # parses fine in Python: 65 < 1000
    deep_object = '{"a":' * 70 + "1" + "}" * 70
    with pytest.raises(JsonInputError, match="nested deeper"):
        read_json(deep_object, max_bytes=10**6)
    assert read_json(deep_object, max_bytes=10**6, max_depth=70)["a"]


def test_size_is_checked_before_parsing():
    with pytest.raises(JsonInputError) as err:
        read_json('"' + "x" * 2000 + '"', "big.json", max_bytes=1000)
    assert err.value.kind == "size" and "over 1,000 bytes" in str(err.value)
    multibyte = '"' + "é" * 600 + '"'  # 600 characters, 1,202 bytes
    with pytest.raises(JsonInputError, match="too large"):
        read_json(multibyte, max_bytes=1000)


@pytest.mark.parametrize("text", ["{oops", b"\xff\xfe\x00", ""])
def test_malformed_text_is_a_syntax_error(text):
    with pytest.raises(JsonInputError) as err:
        read_json(text, "x.json", max_bytes=100)
    assert err.value.kind == "syntax" and "not valid JSON" in str(err.value)


def test_start_reads_one_value_inside_a_longer_text():
    value, end = read_json('say {"a": [1, 2]} and more', max_bytes=100, start=4)
    assert value == {"a": [1, 2]} and end == 17


def test_query_file_with_a_bomb_line_keeps_its_other_lines():
    doc = samples.load_sample()
    good = samples.sample_queries_text().splitlines()
    text = "\n".join([good[0], BOMB, nested(100), good[1]])
    qset = parse_queries(text, doc, "bomb.jsonl")
    assert [q.line for q in qset.queries] == [1, 4]
    assert [str(e) for e in qset.errors] == [
        "line 2: nested deeper than 64 levels.",
        "line 3: nested deeper than 64 levels.",
    ]


def test_session_file_with_a_bomb_is_one_message():
    with pytest.raises(SettingsError) as err:
        loads(BOMB.encode())
    assert str(err.value) == "This session file cannot be read: it is nested deeper than 64 levels."
    deep = {"format": "scar-viz-session", "version": 1, "settings": {"q": json.loads(nested(80))}}
    with pytest.raises(SettingsError, match="nested deeper"):
        loads(json.dumps(deep))


def test_gate_file_with_a_bomb_is_one_message():
    with pytest.raises(GateFileError, match="nested deeper than 64 levels"):
        LearnedGate.from_json(BOMB)


def test_llm_reply_with_a_bomb_is_an_unparseable_reply():
    for text in (BOMB, f"Here: ```json\n{BOMB}\n```", "{" * 100_000, "x {" + OBJECT_BOMB):
        with pytest.raises(ValueError, match="no JSON object"):
            parse_json_object(text)
        assert make_reply(text, 1, 1, json_reply=True, cached=False).parse_error
    assert parse_json_object('noise {"ok": true} noise') == {"ok": True}


def test_cli_eval_on_a_bomb_query_file_is_one_line_and_no_traceback(tmp_path, sample_files):
    doc, _ = sample_files
    queries = tmp_path / "bomb.jsonl"
    queries.write_text(BOMB + "\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "scar_viz", "eval", str(doc), str(queries), "--model", "hash"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode != 0
    assert "Traceback" not in run.stderr and "RecursionError" not in run.stderr
    assert "line 1: nested deeper than 64 levels." in run.stderr
    assert "holds no valid query" in run.stderr.strip().splitlines()[-1]


HUGE = "9" * 400
"""An integer of 400 digits: ``float()`` of it raises ``OverflowError``."""


@pytest.mark.parametrize("text", [HUGE, f"[1, -{HUGE}]", f'{{"lam": {HUGE}}}'])
def test_an_integer_beyond_a_float_is_one_message_not_an_overflow_error(text):
    with pytest.raises(JsonInputError) as err:
        read_json(text, "'x.json'", max_bytes=10_000)
    assert err.value.kind == "range"
    assert str(err.value) == (
        "'x.json': out of range: it holds an integer of 400 digits, more than a float holds"
    )


def test_integers_a_float_holds_still_read():
    assert read_json("[12345678901234567890, -3, 0]", max_bytes=100) == [
        12345678901234567890,
        -3,
        0,
    ]


def test_session_gate_and_settings_files_with_a_huge_integer_are_one_sentence(tmp_path):
    from scar_viz.evaluation.settings import ChosenSettings, SettingsFileError, load_settings
    from scar_viz.scoring.learned import default_gate

    session = {"format": "scar-viz-session", "version": 1, "settings": {"lam": "HUGE"}}
    with pytest.raises(SettingsError, match="integer of 400 digits"):
        loads(json.dumps(session).replace('"HUGE"', HUGE))
    gate = default_gate().to_dict()
    gate["weights"] = ["HUGE", *gate["weights"][1:]]
    with pytest.raises(GateFileError, match="integer of 400 digits"):
        LearnedGate.from_json(json.dumps(gate).replace('"HUGE"', HUGE))
    settings = ChosenSettings("dense", "scar", 3, 1, 0.5, 0.1, 0.0, None).to_dict()
    path = tmp_path / "s.json"
    path.write_text(json.dumps({**settings, "lam": "HUGE"}).replace('"HUGE"', HUGE))
    with pytest.raises(SettingsFileError, match="integer of 400 digits"):
        load_settings(path)


def test_cli_gate_file_with_a_huge_integer_is_one_line(tmp_path, sample_files):
    from scar_viz.scoring.learned import default_gate

    gate = default_gate().to_dict()
    gate["weights"] = ["HUGE", *gate["weights"][1:]]
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(gate).replace('"HUGE"', HUGE))
    doc, _ = sample_files
    out = subprocess.run(
        [sys.executable, "-m", "scar_viz", "select", str(doc), "--query", "harbour", "--model",
         "hash", "--policy", "learned", "--gate", str(path)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1 and "integer of 400 digits" in out.stderr
