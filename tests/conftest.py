"""Shared fixtures: an isolated embedding cache, the development corpus, small documents."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpora" / "rfc9293.txt"
CORPUS_QUERIES = SHARED / "corpora" / "rfc9293.queries.jsonl"


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own embedding cache; the user's ~/.cache is never touched."""
    monkeypatch.setenv("SCAR_VIZ_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session", autouse=True)
def _component_manifests_scanned_once():
    """Each ``AppTest`` scans every installed distribution's metadata for Streamlit component
    manifests on its first run (``BidiComponentManager.discover_and_register_components``):
    0.25 s for the 158 distributions of the test environment, and the suite makes about 200
    AppTests. The installed packages do not change during a test run, so a process scans once
    and every AppTest registers what that scan found (``tests/pages`` alone in one process:
    123 and 128 s before, 85 and 84 s after). Only where a test module imported AppTest."""
    if "streamlit.testing.v1" not in sys.modules:
        yield
        return
    import functools

    from streamlit.components.v2 import manifest_scanner

    scan = functools.cache(manifest_scanner.scan_component_manifests)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            manifest_scanner, "scan_component_manifests", lambda max_workers=None: list(scan())
        )
        yield


@pytest.fixture(autouse=True)
def _default_model_only_when_marked(request, monkeypatch):
    """A test that loads the embedded default model in this process is marked ``model``
    (``scripts/test.sh --fast`` leaves those out): loading it unmarked fails the test."""
    if request.node.get_closest_marker("model"):
        return
    from scar_viz.embeddings import sentence_transformers as st

    load = st.SentenceTransformerEmbedder._load

    def refuse_the_default(self, progress):
        if self.name_or_path == st.default_model_path():
            pytest.fail(
                "this test loads the embedded default model: mark it @pytest.mark.model",
                pytrace=False,
            )
        return load(self, progress)

    monkeypatch.setattr(st.SentenceTransformerEmbedder, "_load", refuse_the_default)


@pytest.fixture(autouse=True)
def _ray_only_when_marked(request, monkeypatch):
    """A test that starts Ray is marked ``ray`` (``scripts/test.sh --fast`` leaves those out):
    ``ray.init`` in an unmarked test fails it. (Checked once Ray is imported, as it is in every
    process that collected a Ray test module.)"""
    ray = sys.modules.get("ray")
    if ray is None or request.node.get_closest_marker("ray"):
        return

    def refuse(*args, **kwargs):
        pytest.fail("this test starts Ray: mark it @pytest.mark.ray", pytrace=False)

    monkeypatch.setattr(ray, "init", refuse)


def require_file(path: Path, what: str) -> Path:
    """``path`` when it exists; otherwise skip, saying why, or fail in CI (``CI=true``), where
    the development corpus (``../shared``) is checked out and a missing file is a broken run."""
    if path.exists():
        return path
    reason = f"{what} not present at {path} (only in the project workspace)"
    if in_ci():
        pytest.fail(f"corpus tests are mandatory in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture
def corpus_path() -> Path:
    return require_file(CORPUS, "development corpus")


@pytest.fixture
def corpus_queries_path() -> Path:
    return require_file(CORPUS_QUERIES, "development queries")


@pytest.fixture
def hash_model(monkeypatch):
    """Pages start on the instant hashing embedder instead of loading torch."""
    monkeypatch.setenv("SCAR_VIZ_DEFAULT_MODEL", "hash")


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


@pytest.fixture
def llm_server():
    """A loopback fake OpenAI-compatible chat server (tests/fake_llm.py), stopped after."""
    from tests.fake_llm import ChatServer

    with ChatServer() as server:
        yield server


@pytest.fixture
def sample_files(tmp_path) -> tuple[Path, Path]:
    """The bundled sample document and its query set, written to ``tmp_path`` (for the CLI)."""
    from scar_viz.documents import samples

    doc = tmp_path / "harbor.md"
    doc.write_text(samples.load_sample().text, encoding="utf-8")
    queries = tmp_path / "harbor.queries.jsonl"
    queries.write_text(samples.sample_queries_text(), encoding="utf-8")
    return doc, queries


def run_cli(
    *args: str, env: Mapping[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m scar_viz *args`` from the project root, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "scar_viz", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=timeout,
    )


_WORKER_STARTS: dict[str, int] = {"servers": 0, "browsers": 0}
"""App servers and Chromiums the test workers started (``pytest -n``: summed as each ends)."""


def _own_starts() -> dict[str, int]:
    live = sys.modules.get("scripts.live_app")
    return dict(live.STARTED) if live is not None else {"servers": 0, "browsers": 0}


def pytest_sessionfinish(session):
    """In a worker of ``pytest -n`` (pytest-xdist): hand its starts to the controller."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output["live_app_starts"] = _own_starts()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """In the controller of ``pytest -n``: add up what each worker started."""
    starts = getattr(node, "workeroutput", {}).get("live_app_starts", {})
    for what in _WORKER_STARTS:
        _WORKER_STARTS[what] += int(starts.get(what, 0))


def pytest_terminal_summary(terminalreporter):
    """At the end of a run that drove the app in a browser: how many app servers and Chromiums
    it started (the browser tests share one Chromium and one server per configuration, per
    worker under ``pytest -n``)."""
    own = _own_starts()
    starts = {what: own.get(what, 0) + _WORKER_STARTS[what] for what in _WORKER_STARTS}
    if any(starts.values()):
        terminalreporter.write_line(
            f"live app: {starts['servers']} servers started, {starts['browsers']} Chromium launched"
        )
