"""The benchmarks measure fairly and leave their figures in files the README cites."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from scar_viz.evaluation.labelled_run import LabelledRun
from tests.conftest import ROOT


def load(name: str):
    spec = importlib.util.spec_from_file_location(
        f"bench_{name}", ROOT / "benchmarks" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def sweep_bench():
    return load("sweep_bench")


def tiny(bench):
    chunks, queries, golds = bench.synthesise(60, 6, 16, 0)
    lams, taus = np.linspace(0, 2, 4), np.linspace(0, 1.5, 3)
    return chunks, queries, golds, 3, lams, taus, 1


def imported_modules(path) -> set[str]:
    """The modules a Python file imports (absolute imports, at any depth of the file)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_benchmarks_and_scripts_never_import_the_tests():
    files = sorted((ROOT / "benchmarks").glob("*.py")) + sorted((ROOT / "scripts").glob("*.py"))
    assert len(files) > 20
    bad = {
        f.relative_to(ROOT).as_posix(): sorted(
            m for m in imported_modules(f) if m.split(".")[0] == "tests"
        )
        for f in files
    }
    assert {f: m for f, m in bad.items() if m} == {}
    shared = {m for f in files for m in imported_modules(f)}
    assert {"scripts.browser_actions", "scripts.tiny_models"} <= shared  # the helpers they share


def test_a_benchmark_never_imports_another():
    """What two benchmarks share lives in scripts/ (the frame clock, the synthetic corpus):
    ``python benchmarks/NAME.py`` has benchmarks/ first on the path, and ``benchmarks`` as a
    package is not this folder there (pysbd installs a top-level ``benchmarks`` package into
    site-packages, ahead of the checkout's root on the path)."""
    files = sorted((ROOT / "benchmarks").glob("*.py"))
    stems = {f.stem for f in files}
    bad = {
        f.name: sorted(m for m in imported_modules(f) if m.split(".")[0] in stems | {"benchmarks"})
        for f in files
    }
    assert {f: m for f, m in bad.items() if m} == {}
    assert {"scripts.frames", "scripts.synthetic_corpus"} <= {
        m for f in files for m in imported_modules(f)
    }


def test_fair_loop_normalises_once_and_never_calls_scar_select(sweep_bench, monkeypatch):
    calls = []
    real = sweep_bench.normalize
    monkeypatch.setattr(sweep_bench, "normalize", lambda x: calls.append(x.shape) or real(x))

    def forbidden(*_a, **_k):
        raise AssertionError("the fair loop must not re-normalise through scar_select")

    monkeypatch.setattr(sweep_bench, "scar_select", forbidden)
    inputs = tiny(sweep_bench)
    recall, chunks = sweep_bench.fair_loop(*inputs)
    assert calls == [(60, 16), (6, 16)]  # chunks once, queries once
    result, _ = sweep_bench.vectorised(*inputs)
    assert np.array_equal(recall, result.recall)
    assert np.array_equal(chunks, result.mean_chunks)


def test_naive_loop_agrees_with_the_fair_one(sweep_bench):
    inputs = tiny(sweep_bench)
    fair, naive = sweep_bench.fair_loop(*inputs), sweep_bench.naive_loop(*inputs)
    assert np.array_equal(fair[0], naive[0]) and np.array_equal(fair[1], naive[1])


def test_sweep_bench_writes_its_figures(sweep_bench, tmp_path, capsys):
    out = tmp_path / "sweep.json"
    returned = sweep_bench.main(
        ["--chunks", "60", "--queries", "6", "--dim", "16", "--grid", "3", "--out", str(out)]
    )
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["benchmark"] == "benchmarks/sweep_bench.py"
    assert data["identical"] is True and data["fair_loop_calls"] == 9 * 6
    assert data["ratio_vs_fair_loop"] == returned["ratio_vs_fair_loop"] > 0
    assert data["setting"]["chunks"] == 60 and "cpus" in data["machine"]
    assert f"{data['fair_loop_s']:.1f} s" in capsys.readouterr().out


def test_perf_results_are_merged_part_by_part(tmp_path):
    perf = load("perf")
    path = tmp_path / "perf.json"
    perf.save_results({"a_cold_start": {"app_s": 2.5, "met": True}}, path)
    perf.save_results({"c_upload": {"ratio": 1.2, "met": False}}, path)
    data = perf.save_results({"a_cold_start": {"app_s": 2.9, "met": True}}, path)
    assert json.loads(path.read_text(encoding="utf-8")) == data
    assert set(data["parts"]) == {"a_cold_start", "c_upload"}
    assert data["parts"]["a_cold_start"]["app_s"] == 2.9
    assert data["parts"]["c_upload"]["ratio"] == 1.2
    assert all("measured_at" in part for part in data["parts"].values())
    assert perf.RESULTS == ROOT / "benchmarks" / "results" / "perf.json"


def test_the_performance_doc_cites_the_result_files():
    doc = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    for name in ("perf.json", "sweep_bench.json", "gate_panel.json", "explorer_rerun.json"):
        assert f"benchmarks/results/{name}" in doc
    sweep = json.loads((ROOT / "benchmarks/results/sweep_bench.json").read_text(encoding="utf-8"))
    assert f"{sweep['vectorised_s']:.2f} s" in doc
    assert f"{sweep['ratio_vs_fair_loop']:,.0f}×" in doc
    panel = json.loads((ROOT / "benchmarks/results/gate_panel.json").read_text(encoding="utf-8"))
    for run in panel["runs"]:
        cells = (f"{run[key]:.1f} ms" for key in ("median_ms", "p95_ms", "max_ms"))
        assert "| " + " | ".join(cells) + " |" in doc


def test_store_scale_writes_stores_that_read_back_as_built(tmp_path):
    pytest.importorskip("lancedb", reason="the scale extras are not installed")
    from scar_viz.embeddings import HashEmbedder
    from scar_viz.store import open_store

    bench = load("store_scale")
    docs = bench.files(3)
    vectors = HashEmbedder(bench.DIM).embed(bench.chunk_texts(docs))
    bench.write_store(str(tmp_path / "s"), docs, vectors)
    stored = open_store(str(tmp_path / "s"), f"hash:{bench.DIM}", bench.CONFIG)
    memory = bench.prepared(docs, vectors)
    assert len(stored.chunks) == 3 * bench.PER_FILE
    assert stored.chunks == memory.chunks
    assert np.array_equal(stored.unit, memory.unit)
    assert stored.document.text == memory.document.text


SUITE_OUTPUT = """........................................................................ [ 99%]
live app: 12 servers started, 1 Chromium launched
============================= slowest 10 durations =============================
51.20s call     tests/browser/test_concurrency.py::test_six_sessions_at_once
3.04s setup    tests/pages/test_budget_page.py::test_every_policy_over_k_with_the_front
1 failed, 1834 passed, 3 warnings in 431.52s (0:07:11)
"""


def test_the_suite_benchmark_reads_counts_slowest_and_starts():
    data = load("suite_time").parse(SUITE_OUTPUT)
    assert data["counts"] == {"failed": 1, "passed": 1834, "warnings": 3}
    assert data["pytest_s"] == 431.52
    assert data["slowest"][0] == {
        "seconds": 51.2,
        "phase": "call",
        "test": "tests/browser/test_concurrency.py::test_six_sessions_at_once",
    }
    assert [s["phase"] for s in data["slowest"]] == ["call", "setup"]
    assert (data["servers_started"], data["chromium_launched"]) == (12, 1)
    with pytest.raises(ValueError, match="no pytest summary"):
        load("suite_time").parse("collected nothing\n")


def test_the_suite_benchmarks_clone_gets_a_venv_of_its_own(tmp_path):
    """A linked ``.venv`` holds this checkout's editable install, which the clone's
    ``tests/test_install.py`` refuses in CI: the clone is left without one, for its own
    ``scripts/bootstrap.sh`` to build."""
    clone = load("suite_time").fresh_clone(tmp_path)
    assert (clone / "scripts" / "bootstrap.sh").is_file()
    assert not (clone / ".venv").exists() and not (clone / ".venv").is_symlink()


def test_page_times_corpus_mode_is_the_90_file_corpus_the_docs_cite():
    from scar_viz.chunking.config import ChunkingConfig, chunk_spans
    from scar_viz.queries.reading import parse_queries

    bench = load("page_times")
    doc, _, queries, question, size, overlap = bench._document(True)
    assert len(doc.parts) == 90 and len(doc.text) == 513_396
    assert len(chunk_spans(doc, ChunkingConfig(size=size, overlap=overlap))) == 1151
    assert len(parse_queries(queries.decode(), doc).queries) == 40 and question
    doc_md = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    assert "benchmarks/results/page_times_corpus.json" in doc_md
    results = json.loads((ROOT / "benchmarks/results/page_times_corpus.json").read_text())
    for page, figures in results["summary"].items():
        assert figures["median_seconds"] <= figures["target_seconds"], page
        assert f"{figures['median_seconds']:.2f} s" in doc_md, page


def test_page_times_at_many_questions_are_the_figures_the_docs_cite():
    """The 40- and 250-question figures of every page are those docs/performance.md shows, each
    within its target, and the benchmark makes 250 questions on the same corpus."""
    from scar_viz.queries.reading import parse_queries

    bench = load("page_times")
    doc, _, queries, _, _, _ = bench._document(True, 250)
    assert len(parse_queries(queries.decode(), doc).queries) == 250
    doc_md = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    path = "benchmarks/results/page_times_corpus_questions.json"
    assert path in doc_md
    results = json.loads((ROOT / path).read_text())
    assert {k.split(" (")[1] for k in results["summary"]} >= {
        "cold, 40 questions)",
        "cold, 250 questions)",
    }
    for page, figures in results["summary"].items():
        assert f"{figures['median_seconds']:.2f} s" in doc_md, page
        assert figures["median_seconds"] <= figures["target_seconds"], page
    pages = {k.split(" (")[0] for k in results["summary"]}
    assert pages == set(bench.CORPUS_PAGES)  # every page, at both counts
    assert len(results["summary"]) == 2 * len(pages)
    click = results["summary"]["evaluate (cold, 250 questions)"]
    assert f"{click['median_verdict_on_click_seconds']:.2f} s" in doc_md  # the verdict waited


def test_ranking_features_come_from_the_retrievers_scores_alone():
    """The neighbour's ranks, RRF score and top-2k membership follow the scores given: another
    order of the BM25 scores changes them; there is no gold argument to take labels from."""
    import inspect

    bench = load("ranking_gate")
    rng = np.random.default_rng(0)
    dense, bm25 = rng.normal(size=(4, 30)), rng.normal(size=(4, 30))
    rrf = rng.random((4, 30))
    query = np.repeat(np.arange(4), 6)
    neighbour = rng.integers(0, 30, size=24)
    x = bench.ranking_features(dense, bm25, rrf, query, neighbour, 3)
    assert x.shape == (24, 4)
    ranks = bench.ranks_of(dense)
    assert np.allclose(x[:, 0], np.log1p(ranks[query, neighbour]))
    assert ranks[0, int(np.argmax(dense[0]))] == 0
    shuffled = rng.permuted(bm25, axis=1)
    y = bench.ranking_features(dense, shuffled, rrf, query, neighbour, 3)
    assert not np.allclose(x[:, 1], y[:, 1])  # the BM25 rank follows the BM25 scores
    assert np.array_equal(x[:, [0, 2]], y[:, [0, 2]])  # dense rank and RRF untouched
    params = set(inspect.signature(bench.ranking_features).parameters)
    assert not params & {"gold", "golds", "labels"}


def test_the_held_out_protocol_reads_a_setting_as_the_verdict_scored_it():
    """verdict_heldout reads a candidate's setting on other queries as ``eval --settings`` runs
    it: on the queries it was scored on, every untuned candidate gets its cross-validated
    figures (the two paths agree)."""
    from scar_viz.evaluation.recommend import recommend
    from tests.evaluation.verdict_corpora import rare_identifiers

    bench = load("verdict_heldout")
    prep, labelled, vecs = rare_identifiers(n_chunks=40, n_queries=20)
    order = sorted(range(len(labelled)), key=lambda i: labelled[i].id)
    labelled, vecs = [labelled[i] for i in order], vecs[order]
    run = LabelledRun(prep, labelled, vecs)
    v = recommend(run, n_boot=100, ks=(1, 2))
    checked = 0
    for c in v.candidates:
        if not c.tuned:
            got = bench.read_setting(run, c.setting(v.k_rrf))
            assert np.allclose(got, c.recall), (c.option, c.k)
            checked += 1
    assert checked == 3 * 2 * 4 + 1  # and the reference, window ±1 at k = 3


def test_the_performance_doc_gives_the_held_out_verdicts_figures():
    doc = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    assert "benchmarks/results/verdict_heldout.json" in doc
    result = json.loads(
        (ROOT / "benchmarks/results/verdict_heldout.json").read_text(encoding="utf-8")
    )
    for key in ("halves", "small_30"):
        summary = result[key]["summary"]
        for name in ("mean_claimed_minus_held_points", "mean_expected_minus_held_points"):
            assert f"{summary[name]:+.1f} (se".replace("-", "−") in doc, name


# --- every benchmark runs: its --smoke mode (scripts/bench_smoke.py) -----------------------

BENCH = pytest.mark.bench
IN_PROCESS = {
    **dict.fromkeys(("corpus_scale", "cut_rates", "fit_default_gate", "learned_gate"), ()),
    **dict.fromkeys(("lexical_gate", "reproduce", "retrievers", "sentence_estimate"), ()),
    **dict.fromkeys(("static_model", "suite_time", "sweep_bench"), ()),
    **dict.fromkeys(("cjk_tokens", "pgdocs"), ()),
    # slower (measured alone under load 12, docs/testing.md): left to .ci/run's -m bench step
    "equal_budget": (BENCH,),  # every policy at every k (15 s)
    "policy_times": (BENCH,),  # a tiny cross-encoder through sentence-transformers (27 s)
    "scale": (BENCH,),  # starts Ray (38 s)
    "store_scale": (BENCH,),  # LanceDB (17 s)
    "verdict": (BENCH,),  # recommend three times, twice as a fresh process (14 s)
    # the development benchmark (benchmarks/data/pgdocs15: 1,060 chunks, 213 questions)
    "verdict_heldout": (BENCH,),  # one half split and one small split on 40 questions
    "ranking_gate": (BENCH,),  # the gates fitted at one k on 40 questions
}
"""Run in the test process (main(argv)): hashing embedder, built-in samples."""
IN_A_SUBPROCESS = {
    "page_times": (BENCH,),  # changes directory, a worker process per page (100 s)
    "gpu_embed": (BENCH, pytest.mark.model),  # the default model on the CPU, a few chunks
    "explorer_rerun": (BENCH, pytest.mark.browser),
    "gate_panel": (BENCH, pytest.mark.browser),
    "corpus_upload": (BENCH, pytest.mark.browser),
    "upload_memory": (BENCH, pytest.mark.browser),  # a 1 MiB upload to a live server
    "perf": (BENCH, pytest.mark.browser),  # each part once; part b is explorer_rerun's method
}
"""Run as ``python benchmarks/NAME.py --smoke``."""


def _results() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (ROOT / "benchmarks" / "results").iterdir()}


def test_every_benchmark_has_a_smoke_run_in_the_tests():
    scripts = {p.stem for p in (ROOT / "benchmarks").glob("*.py")}
    assert scripts == set(IN_PROCESS) | set(IN_A_SUBPROCESS)
    for name in scripts:
        assert "--smoke" in (ROOT / "benchmarks" / f"{name}.py").read_text(encoding="utf-8") or (
            "bench_smoke" in (ROOT / "benchmarks" / f"{name}.py").read_text(encoding="utf-8")
        ), name


@pytest.mark.parametrize("name", [pytest.param(n, marks=marks) for n, marks in IN_PROCESS.items()])
def test_the_benchmark_runs_in_smoke_mode(name, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SCAR_VIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    before = _results()
    returned = load(name).main(["--smoke"])
    assert returned in (None, 0) or isinstance(returned, dict)
    assert capsys.readouterr().out.strip()
    assert _results() == before, "a smoke run must not touch the results the docs cite"


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=marks) for n, marks in IN_A_SUBPROCESS.items()]
)
def test_the_benchmark_runs_in_smoke_mode_as_a_script(name, tmp_path):
    before = _results()
    env = {**os.environ, "SCAR_VIZ_CACHE_DIR": str(tmp_path / "cache"), "HF_HUB_OFFLINE": "1"}
    run = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / f"{name}.py"), "--smoke"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert _results() == before, "a smoke run must not touch the results the docs cite"
