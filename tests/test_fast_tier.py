"""``scripts/test.sh --fast`` leaves out every browser test, every test that loads the
embedded default model and every test that starts Ray, and nothing else but the benchmarks'
slow smoke runs (``bench``, which both tiers leave to ``.ci/run``)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def fast_expression() -> str:
    """The marker expression ``scripts/test.sh`` runs pytest with under ``--fast``."""
    script = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    m = re.search(r'if \[ "\$fast" = 1 \]; then\n\s+exec \S+ -m pytest -m "([^"]+)"', script)
    assert m, "scripts/test.sh runs no marker expression under --fast"
    return m.group(1)


BROWSER = "tests/browser/test_live_app.py"
MODEL = "tests/embeddings/test_embeddings.py::test_default_model_embeds_offline"
RAY = "tests/store/test_ray_session.py"


def test_fast_leaves_out_the_browser_the_default_model_and_ray_and_nothing_else():
    pytest.importorskip("ray", reason="the scale extras are not installed")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
        + ["-m", fast_expression(), BROWSER, MODEL.split("::")[0], RAY],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    kept = [ln for ln in run.stdout.splitlines() if "::" in ln]
    assert kept and all(t.startswith("tests/embeddings/") for t in kept)
    assert MODEL not in kept
    browser_tests = len(re.findall(r"^def test_", (ROOT / BROWSER).read_text(), re.M))
    left_out = int(re.search(r"\((\d+) deselected\)", run.stdout)[1])
    ray_tests = len(re.findall(r"^def test_", (ROOT / RAY).read_text(), re.M))
    # the browser module, the one model test, the Ray module: no more
    assert left_out == browser_tests + 1 + ray_tests


def test_an_unmarked_test_that_loads_the_default_model_fails():
    from scar_viz.embeddings.sentence_transformers import (
        SentenceTransformerEmbedder,
        default_model_path,
    )

    with pytest.raises(pytest.fail.Exception, match="mark it @pytest.mark.model"):
        SentenceTransformerEmbedder(default_model_path()).load()


def test_an_unmarked_test_that_starts_ray_fails():
    ray = pytest.importorskip("ray", reason="the scale extras are not installed")
    with pytest.raises(pytest.fail.Exception, match="mark it @pytest.mark.ray"):
        ray.init(num_cpus=1)
