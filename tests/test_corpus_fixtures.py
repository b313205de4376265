"""Corpus-dependent tests skip outside the project workspace but fail in CI (``CI=true``)."""

from __future__ import annotations

import pytest

from tests.conftest import require_file


def test_missing_corpus_fails_in_ci(tmp_path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="mandatory in CI"):
        require_file(tmp_path / "rfc9293.txt", "development corpus")


def test_missing_corpus_skips_outside_ci(tmp_path, monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="not present"):
        require_file(tmp_path / "rfc9293.txt", "development corpus")


def test_present_corpus_is_returned(tmp_path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    path = tmp_path / "rfc9293.txt"
    path.write_text("x", encoding="utf-8")
    assert require_file(path, "development corpus") == path
