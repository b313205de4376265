"""AppTest: one bad file never breaks a page. A nesting bomb in a session file or a query
file, a session file with numbers out of range, a query file over the app's limit and a cache
file corrupted mid-run each give one message, and the page keeps working."""

from __future__ import annotations

import json

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from scar_viz.chunking.base import DEFAULT_CHUNK_SIZE
from scar_viz.embeddings import default_cache_dir
from scar_viz.queries.reading import MAX_QUERIES
from scar_viz.runtime.sqlite_cache import ASIDE
from scar_viz.scoring.params import DEFAULT_PARAMS
from tests.documents.test_upload_budget import many_queries
from tests.pages.helpers import APP, alerts, open_page
from ui import cache

TIMEOUT = 120
BOMB = b"[" * 200_000
NOTES = "# Ferry notes\n\n" + "\n\n".join(
    f"Note {i}. Crossing {i} waits for the tide; the master logs each delay of {i} minutes."
    for i in range(30)
)
OTHER = NOTES.replace("Ferry", "Tug").replace("tide", "wind")


def messages(at: AppTest) -> str:
    """Every message on the page and in the sidebar: alerts, errors, warnings, infos."""
    boxes = [*alerts(at), *alerts(at.sidebar)]
    boxes += [e.value for e in (*at.error, *at.warning, *at.info, *at.sidebar.error)]
    return "\n".join(boxes)


def upload(at: AppTest, name: str, text: str) -> None:
    at.file_uploader(key="upload_file").set_value((name, text.encode(), "text/markdown")).run()
    assert not at.exception, at.exception


def prepared(at: AppTest, name: str) -> bool:
    """Whether the sidebar says ``name`` was chunked and embedded ("NAME: N characters, …")."""
    return any(c.startswith(f"{name}: ") for c in alerts(at.sidebar, "caption"))


def restore(at: AppTest, data: bytes) -> None:
    at.file_uploader(key="session_file").set_value(("s.json", data, "application/json")).run()
    assert not at.exception, at.exception


def session_file(settings: dict) -> bytes:
    return json.dumps({"format": "scar-viz-session", "version": 1, "settings": settings}).encode()


def test_a_session_file_bomb_is_one_message_and_nothing_is_lost(hash_model):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["k"] = "5"
    at.run()
    restore(at, BOMB)
    errors = alerts(at.sidebar, "error")
    assert errors == [
        "'s.json': This session file cannot be read: it is nested deeper than 64 levels."
    ]
    assert at.slider(key="k").value == 5  # what the visitor had is kept
    assert "Traceback" not in messages(at) and "RecursionError" not in messages(at)


def test_session_numbers_out_of_range_are_left_out_with_one_warning(hash_model):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    restore(at, session_file({"size": -5, "k": 10**12, "lam": 0.3, "overlap": 4001}))
    [note] = [a for a in alerts(at.sidebar, "warning") if "out of range" in a]
    assert note == (
        "The session file held values out of range, left as they were: chunk size = -5 "
        "(allowed 50 … 8000); overlap = 4001 (allowed 0 … 4000); k = 1000000000000 "
        "(allowed 1 … 20)."
    )
    assert at.slider(key="lam").value == 0.3  # the value in range is restored
    assert at.number_input(key="size").value == DEFAULT_CHUNK_SIZE
    assert at.slider(key="k").value == DEFAULT_PARAMS.k
    assert at.get("metric"), "the Explorer still works"


def test_a_query_file_bomb_is_one_line_in_the_lab(hash_model):
    at = open_page("pages/evaluate.py", TIMEOUT)
    good = many_queries(1).encode()
    at.file_uploader(key="qs_file").set_value(("bomb.jsonl", BOMB + b"\n" + good, "text/plain"))
    at.run()
    assert not at.exception, at.exception
    shown = messages(at)
    assert "1 line(s) of 'bomb.jsonl' are invalid and were skipped." in shown
    rows = at.dataframe  # the issues table names the line
    issues = next(df.value for df in rows if "message" in df.value.columns)
    assert list(issues["line"]) == [1]
    assert list(issues["message"]) == ["nested deeper than 64 levels."]


def test_a_query_file_over_the_apps_limit_is_refused_with_one_message(hash_model):
    at = open_page("pages/evaluate.py", TIMEOUT)
    data = many_queries(MAX_QUERIES + 1).encode()
    at.file_uploader(key="qs_file").set_value(("many.jsonl", data, "text/plain")).run()
    assert not at.exception, at.exception
    refused = [a for a in alerts(at) if "many.jsonl" in a]
    assert refused == [
        f"'many.jsonl' holds {MAX_QUERIES + 1:,} queries; at most {MAX_QUERIES:,} are read "
        "from one file in the app. Split it, or keep a sample of it."
    ]


@pytest.fixture
def own_caches():
    """The app's process-wide caches made afresh under this test's cache folder, and dropped
    after it (a cache this test turns off must not stay off for the next test)."""
    st.cache_resource.clear()
    cache.clear()
    yield
    st.cache_resource.clear()
    cache.clear()


def test_a_cache_file_corrupted_mid_run_leaves_the_next_upload_working(hash_model, own_caches):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["doc"] = "upload"
    at.run()
    upload(at, "ferry.md", NOTES)
    path = default_cache_dir() / "embeddings.sqlite"
    assert path.is_file() and prepared(at, "ferry.md")
    assert "unreadable" not in messages(at)
    for side in path.parent.glob("embeddings.sqlite-*"):
        side.unlink()
    path.write_bytes(b"no database here\n" * 100)
    upload(at, "tug.md", OTHER)
    assert prepared(at, "tug.md")  # chunked and embedded, without the cache
    captions = alerts(at.sidebar, "caption")
    off = [c for c in captions if "unreadable" in c]
    assert off == ["The cache at embeddings.sqlite is unreadable: working without it."]
    assert not path.exists()
    assert [p.name.split(ASIDE)[0] for p in path.parent.glob(f"*{ASIDE}*")] == ["embeddings.sqlite"]
