"""ui.loading: an upload to the app is held to the app's text budget (below the package's), the
bytes-bounded memos keep what fits, and the worst upload's memory is measured by
benchmarks/upload_memory.py; here the budget logic at a small scale."""

from __future__ import annotations

from dataclasses import replace

from scar_viz.documents.reading import UPLOAD_CHARS
from tests.fakes import make_zip
from ui import cache, loading


def test_an_upload_past_the_apps_text_budget_keeps_what_fits(monkeypatch):
    monkeypatch.setattr(loading, "APP_LIMITS", replace(loading.APP_LIMITS, text_chars=3_200))
    files = {f"kb/n{i}.txt": b"Harbour notes. " * 100 for i in range(4)}  # 1,500 chars each
    doc, collected = loading.read_files([("kb.zip", make_zip(files))])
    assert [p.path for p in doc.parts] == ["kb/n0.txt", "kb/n1.txt"]
    assert [(s.path, s.reason) for s in collected.skipped] == [
        ("kb/n2.txt", UPLOAD_CHARS),
        ("kb/n3.txt", UPLOAD_CHARS),
    ]


def test_the_apps_budget_is_below_the_packages_and_named_to_the_visitor():
    from scar_viz.documents.reading import MAX_UPLOAD_CHARS

    assert loading.APP_LIMITS.text_chars == loading.APP_TEXT_CHARS < MAX_UPLOAD_CHARS
    assert "48 million characters of text in all" in loading.upload_limits()


def test_the_process_memos_drop_the_least_recently_used_past_their_bytes(monkeypatch):
    import numpy as np

    from scar_viz.common.memo import Memo, held_bytes

    small = Memo(3 * 2**20, measure=held_bytes)
    monkeypatch.setattr(cache, "_CACHED", small)
    for key in range(6):
        cache.cached(("prepared", key), lambda: np.zeros(2**20 // 8))  # 1 MiB each
    # 1 MiB and an array's header each: two fit in 3 MiB, the least recently used go
    assert list(small.entries) == [("prepared", 4), ("prepared", 5)]
    assert cache.held()["cached"] <= 3 * 2**20


def test_a_query_file_past_the_sessions_budget_is_not_kept(monkeypatch):
    from scar_viz.documents.reading import document_from_text
    from scar_viz.runtime.budget import SESSION_MB_ENV
    from ui import keys, queryset

    monkeypatch.setenv(SESSION_MB_ENV, "1")
    state: dict = {}
    monkeypatch.setattr(queryset.st, "session_state", state)
    small = b'{"id": "q1", "query": "tide?", "evidence": []}\n'
    doc = document_from_text("notes.txt", "Harbour notes.")
    queryset.stash_query_set(doc, "upload", "small.jsonl", small)
    assert state[keys.QS_REFUSED] == "" and state[keys.QS_PICK] == "upload"
    queryset.stash_query_set(doc, "upload", "big.jsonl", small * 25_000)  # 1.2 MB
    refused = state[keys.QS_REFUSED]
    assert refused.startswith("The query file 'big.jsonl' would need 1.1 MiB")
    assert "allows 1.0 MiB a session" in refused
    (stored,) = state[keys.QUERY_SETS].values()
    assert stored["upload"] == ("small.jsonl", small)
