"""``benchmarks/gpu_embed.py``: the chunks it times are all distinct (nothing is skipped as
already embedded), and without a CUDA GPU it refuses in one line unless told ``--cpu``."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ROOT
from tests.fake_devices import fake_machine
from tests.test_benchmarks import load

RESULTS = ROOT / "benchmarks" / "results"


@pytest.fixture(scope="module")
def bench():
    return load("gpu_embed")


def test_the_corpus_is_grown_with_distinct_chunks(bench):
    docs, texts, copies = bench.corpus(None, 300)
    base = bench.bundled_documents()
    assert copies >= 1 and len(docs) == len(base) * (copies + 1)
    assert len(texts) >= 300 and len(set(texts)) == len(texts)
    assert texts == bench.chunk_texts(docs)


def test_a_shuffled_copy_keeps_its_lines_and_changes_their_order_of_words(bench):
    doc = bench.bundled_documents()[0]
    copy = bench.shuffled_copy(doc, 1)
    assert len(copy.text.splitlines()) == len(doc.text.splitlines())
    assert sorted(copy.text.split()) == sorted(doc.text.split()) and copy.text != doc.text
    assert copy.name == f"copy0001/{doc.name}"


def test_without_a_gpu_it_stops_in_one_line_unless_asked_for_the_cpu(
    bench, monkeypatch, capsys, tmp_path
):
    fake_machine(monkeypatch, cuda=0)
    out = tmp_path / "r.json"
    assert bench.main(["--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: no CUDA GPU here") and "--cpu" in err
    assert err.count("\n") == 1 and not out.exists()


def test_the_docs_cite_the_cpu_check_and_say_the_gpu_is_not_yet_measured():
    check = json.loads((RESULTS / "gpu_embed_cpu_check.json").read_text(encoding="utf-8"))
    assert check["gpu_figures"] is False and "not GPU figures" in check["note"]
    assert check["placement"] == "cpu, fp32"
    assert check["index_devices"] == {"index_local": ["cpu, fp32"], "index_ray": ["cpu, fp32"]}
    models, scale = (words(ROOT / "docs" / name) for name in ("models.md", "scale.md"))
    agree = check["fp16_against_fp32"]
    within = agree["scar_decisions_within"]
    assert (
        f"on the samples' {agree['questions']} labelled questions {within['0.002']} of "
        f"{agree['scar_decisions']} SCAR decisions lies within 0.002 of its bar "
        f"({within['0.005']} within 0.005)"
    ) in models
    assert f"on the samples' {agree['chunks']} chunks a cosine of at least" in models
    assert f"{agree['cosine_min']:.6f}"[:8] in models  # 0.999999
    assert f"adjacent cosines within {agree['adjacent_b_change_max']:.4f}" in models
    corpus = check["corpus"]
    assert f"on {corpus['chunks']} chunks ({corpus['files']} files)" in scale
    assert check["command"].replace("python ", "", 1) in scale.replace("python ", "")
    if not (RESULTS / "gpu_embed.json").exists():
        assert "On a GPU **Not yet measured.**" in scale
        assert "fp16 on a GPU is not yet measured by this project" in models


def words(path) -> str:
    return " ".join(path.read_text(encoding="utf-8").split())
