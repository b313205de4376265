"""AppTest of where the sidebar's model runs: its line names the device and precision of a
transformer (``on cpu, fp32``), and a device the server lacks (``SCAR_VIZ_DEVICE``) is one
message on the page, the document kept, never a traceback. torch's checks are faked."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.runtime import devices
from scripts.tiny_models import tiny_bert
from tests.fake_devices import fake_machine
from tests.pages.helpers import alerts
from ui import keys

APP = "../../app.py"
TIMEOUT = 60


@pytest.fixture(scope="module")
def tiny_root(tmp_path_factory):
    """A models root holding the tiny model's folder (a visitor's model loads only from there)."""
    root = tmp_path_factory.mktemp("models")
    tiny_bert(root / "tiny")
    return root


@pytest.fixture
def tiny_folder(tiny_root, monkeypatch) -> str:
    """The tiny model's name as a visitor types it, under the operator's models root."""
    monkeypatch.setenv("SCAR_VIZ_MODELS_ROOT", str(tiny_root))
    return "tiny"


def on_tiny_model(folder: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[keys.MODEL] = "sentence-transformers"
    at.session_state[keys.ST_MODEL] = folder
    at.run()
    assert not at.exception, at.exception
    return at


def model_lines(at: AppTest) -> list[str]:
    return [line for line in alerts(at.sidebar, "caption") if "embedded now" in line]


def test_the_model_line_says_where_the_model_runs(monkeypatch, tiny_folder):
    fake_machine(monkeypatch, cuda=0)
    at = on_tiny_model(tiny_folder)
    lines = model_lines(at)
    assert len(lines) == 1, alerts(at.sidebar)
    assert f"sentence-transformers: {tiny_folder} on cpu, fp32 · embedded now" in lines[0]


def test_a_device_the_server_lacks_is_one_message_and_the_document_stays(monkeypatch, tiny_folder):
    fake_machine(monkeypatch, cuda=0, cuda_build=False)
    monkeypatch.setenv(devices.DEVICE_ENV, "cuda:1")
    at = on_tiny_model(tiny_folder)
    errors = [a for a in alerts(at, "error") if "Device 'cuda:1' is not available" in a]
    assert len(errors) == 1 and "Choose auto or cpu" in errors[0]
    assert model_lines(at) == []
    assert at.selectbox(key=keys.DOC).value == "harbor"
