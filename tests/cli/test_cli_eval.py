"""``python -m scar_viz eval``: the JSON shape outside checks parse, text output, errors."""

from __future__ import annotations

import json

import pytest

from scar_viz.chunking.config import chunk_document
from scar_viz.cli.main import main
from scar_viz.documents import samples
from scar_viz.queries.gold import label_queries, type_counts
from scar_viz.queries.reading import parse_queries
from tests.conftest import run_cli


def run_json(capsys, *argv) -> dict:
    assert main(["eval", *map(str, argv), "--model", "hash", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_shape_with_default_policies(sample_files, capsys):
    doc, queries = sample_files
    out = run_json(capsys, doc, queries, "--boot", "300")
    n = len([x for x in samples.sample_queries_text().splitlines() if x.strip()])
    assert out["n_queries"] == n
    assert {"topk", "window1", "window2", "scar"} <= set(out["policies"])
    for entry in out["policies"].values():
        for subset in ("all", "fragmented", "atomic"):
            assert 0.0 <= entry[subset]["recall"] <= 1.0
            assert entry[subset]["mean_chunks"] > 0
            assert entry[subset]["efficiency"] == pytest.approx(
                entry[subset]["recall"] / entry[subset]["mean_chunks"], abs=1e-5
            )
    assert out["n_fragmented"] + out["n_atomic"] == n


def test_options_reach_the_evaluation(sample_files, capsys):
    doc, queries = sample_files
    a = run_json(capsys, doc, queries, "--policies", "topk,scar", "--k", "2", "--boot", "0")
    b = run_json(
        capsys,
        doc,
        queries,
        "--policies",
        "topk",
        "scar",
        "--k",
        "4",
        "--lam",
        "0",
        "--tau",
        "0",
        "--boot",
        "0",
    )
    assert set(a["policies"]) == {"topk", "scar"}
    assert a["policies"]["topk"]["all"]["mean_chunks"] == 2.0
    assert b["policies"]["topk"]["all"]["mean_chunks"] == 4.0
    assert b["params"] == {"k": 4, "lam": 0.0, "tau": 0.0, "radius": 1, "prepend": False}
    assert b["policies"]["scar"]["all"]["mean_chunks"] > a["policies"]["scar"]["all"]["mean_chunks"]


def test_bad_lines_warn_and_relocations_note(sample_files, capsys, tmp_path):
    doc, queries = sample_files
    lines = samples.sample_queries_text().splitlines()
    first = json.loads(lines[0])
    first["evidence"][0]["start"] += 3  # stale offsets, unique text
    first["evidence"][0]["end"] += 3
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([json.dumps(first), "{oops", *lines[1:3]]), encoding="utf-8")
    out = run_json(capsys, doc, bad, "--boot", "0", "--no-per-query")
    assert out["n_queries"] == 3
    levels = {(i["line"], i["level"]) for i in out["issues"]}
    assert (1, "note") in levels and (2, "error") in levels
    assert "queries" not in out


def test_text_output_and_errors(sample_files, capsys, tmp_path):
    doc, queries = sample_files
    assert main(["eval", str(doc), str(queries), "--model", "hash", "--boot", "200"]) == 0
    text = capsys.readouterr().out
    assert "fragmented" in text and "scar − window1 chunks" in text
    empty = tmp_path / "empty.jsonl"
    empty.write_text("{bad\n", encoding="utf-8")
    assert main(["eval", str(doc), str(empty), "--model", "hash"]) == 1
    err = capsys.readouterr().err
    assert "error:" in err and "no valid query" in err
    assert main(["eval", str(doc), str(queries), "--model", "hash", "--policies", "nope"]) == 1
    assert "Unknown policy" in capsys.readouterr().err


def test_module_entry_point_on_the_development_corpus(corpus_path, corpus_queries_path):
    proc = run_cli(
        "eval", str(corpus_path), str(corpus_queries_path), "--model", "hash", "--json",
        "--boot", "1000",
        timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["n_queries"] == 40 and out["n_fragmented"] == 20
    assert (
        out["policies"]["window1"]["fragmented"]["recall"]
        >= out["policies"]["scar"]["fragmented"]["recall"]
    )


def _scattered_line() -> str:
    """A query whose two spans are the evidence of two atomic sample queries far apart."""
    rows = {q["id"]: q for q in map(json.loads, samples.sample_queries_text().splitlines())}
    spans = rows["harbor-a-01"]["evidence"] + rows["harbor-a-08"]["evidence"]
    return json.dumps({"id": "far", "query": "Two distant rules?", "evidence": spans})


def test_json_reports_scattered_only_when_such_queries_exist(sample_files, capsys):
    doc, queries = sample_files
    plain = run_json(capsys, doc, queries, "--policies", "topk,scar", "--boot", "0")
    assert plain["n_scattered"] == 0
    assert all("scattered" not in entry for entry in plain["policies"].values())
    queries.write_text(samples.sample_queries_text() + _scattered_line() + "\n", encoding="utf-8")
    out = run_json(capsys, doc, queries, "--policies", "topk,scar", "--boot", "0")
    assert (out["n_fragmented"], out["n_atomic"], out["n_scattered"]) == (
        plain["n_fragmented"],
        plain["n_atomic"],
        1,
    )
    (row,) = [q for q in out["queries"] if q["id"] == "far"]
    assert row["type"] == "scattered" and len(row["gold"]) == 2
    for name, entry in out["policies"].items():
        assert set(entry) >= {"all", "fragmented", "atomic", "scattered"}
        assert entry["scattered"]["n"] == 1
        assert entry["scattered"]["recall"] == pytest.approx(row["policies"][name]["recall"])
        assert entry["fragmented"] == plain["policies"][name]["fragmented"]


def test_text_output_counts_three_types(sample_files, capsys):
    doc, queries = sample_files
    queries.write_text(samples.sample_queries_text() + _scattered_line() + "\n", encoding="utf-8")
    assert main(["eval", str(doc), str(queries), "--model", "hash", "--boot", "0"]) == 0
    text = capsys.readouterr().out
    sample = samples.load_sample()
    counts = type_counts(
        label_queries(
            parse_queries(samples.sample_queries_text(), sample),
            sample,
            chunk_document(sample),
        )
    )
    assert f"{counts['fragmented']} fragmented, {counts['atomic']} atomic, 1 scattered" in text
    assert any(line.split()[1:2] == ["scattered"] for line in text.splitlines() if line.strip())


def test_a_cache_folder_holds_the_file_and_a_file_that_is_no_cache_is_one_error_line(
    sample_files, capsys, tmp_path
):
    doc, queries = sample_files
    folder = tmp_path / "cache"
    folder.mkdir()
    argv = ["eval", str(doc), str(queries), "--model", "hash", "--boot", "100"]
    assert main([*argv, "--cache", str(folder)]) == 0
    assert (folder / "embeddings.sqlite").is_file()
    capsys.readouterr()
    not_a_cache = tmp_path / "notes.txt"
    not_a_cache.write_text("these are notes, not a database\n" * 40, encoding="utf-8")
    assert main([*argv, "--cache", str(not_a_cache)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: The cache file") and "cannot be opened" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_corrupt_cache_file_is_moved_aside_with_one_note_and_the_command_runs(
    sample_files, capsys, tmp_path
):
    doc, queries = sample_files
    folder = tmp_path / "cache"
    folder.mkdir()
    garbage = b"this is no database at all\n" * 200
    (folder / "embeddings.sqlite").write_bytes(garbage)
    argv = ["eval", str(doc), str(queries), "--model", "hash", "--boot", "100"]
    assert main([*argv, "--cache", str(folder)]) == 0
    err = capsys.readouterr().err
    notes = [line for line in err.splitlines() if "cache" in line]
    assert len(notes) == 1 and notes[0].startswith("note: The cache file ")
    assert "was unreadable: moved to embeddings.sqlite.unreadable-" in notes[0]
    aside = [p for p in folder.iterdir() if ".unreadable-" in p.name and p.suffix != ".sqlite"]
    assert [p.read_bytes() for p in aside] == [garbage]
    assert main([*argv, "--cache", str(folder)]) == 0  # the fresh cache works: no note now
    assert "note: The cache file" not in capsys.readouterr().err
