"""The CLI on a corpus: a folder, a glob and a zip of the same files give the same ``eval``,
a folder of one file gives that file's, and no neighbour policy reaches into the next file."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from scar_viz.chunking.config import ChunkingConfig, chunk_doc_of, chunk_document
from scar_viz.cli.main import main
from scar_viz.documents.collect import collect_path
from scar_viz.documents.corpus import join_documents

FILES = {
    "a.md": (
        "# Arrivals\n\n"
        "Vessels report to the harbour office two hours before arrival. The office assigns a "
        "berth and a pilot. Small craft under twelve metres need no pilot.\n\n"
        "At night the outer channel is lit by green and red buoys. A vessel waits at the "
        "anchorage until the pilot boat comes alongside.\n\n"
        "The pilot ladder must be rigged on the lee side, one metre above the water, with a "
        "lifebuoy and a heaving line at hand."
    ),
    "b.md": (
        "# Berths\n\n"
        "Tankers moor at the north quay only after a gas-free inspection. The inspector signs "
        "the certificate on board.\n\n"
        "Container ships use the east terminal; cranes work in two shifts, from six to two and "
        "from two to ten.\n\n"
        "Fishing boats keep to the inner basin, where the ice plant and the auction hall stand."
    ),
    "sub/c.md": (
        "# Charges\n\n"
        "Harbour dues are charged per gross tonne and per day alongside. Pilotage is charged "
        "per movement, doubled at night.\n\n"
        "Waste reception is free for the first cubic metre. Fresh water is sold by the tonne "
        "at every quay."
    ),
}

END_OF_A = "with a lifebuoy and a heaving line at hand."
QUERIES = [
    {
        "id": "ladder",
        "query": "Where is the pilot ladder rigged and what must be at hand, a lifebuoy?",
        "doc": "a.md",
        "evidence": [{"text": END_OF_A}],
    },
    {
        "id": "tankers",
        "query": "When may tankers moor at the north quay?",
        "evidence": [{"doc": "b.md", "text": "Tankers moor at the north quay only after"}],
    },
    {
        "id": "night",
        "query": "What happens to pilotage charges at night and where does a vessel wait?",
        "evidence": [
            {"doc": "sub/c.md", "text": "Pilotage is charged per movement, doubled at night."},
            {"doc": "a.md", "text": "A vessel waits at the anchorage"},
        ],
    },
    {"id": "cranes", "query": "When do the cranes work?", "evidence": [{"text": "two shifts"}]},
]
CHUNKING = ["--chunker", "recursive", "--chunk-size", "160", "--overlap", "0"]


def write_files(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def write_queries(path: Path, queries: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(q) for q in queries) + "\n", encoding="utf-8")
    return path


def eval_json(capsys, doc: Path | str, queries: Path, *extra: str) -> dict:
    argv = ["eval", str(doc), str(queries), "--model", "hash", "--boot", "200", "--json"]
    assert main([*argv, *CHUNKING, *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_folder_holding_one_file_gives_that_files_eval(tmp_path, capsys):
    folder = write_files(tmp_path / "kb", {"a.md": FILES["a.md"]})
    queries = [{**q, "doc": "a.md"} for q in QUERIES if q.get("doc") == "a.md"]
    queries.append(
        {"id": "plain", "query": "Who needs no pilot?", "evidence": [{"text": "Small craft"}]}
    )
    qfile = write_queries(tmp_path / "q.jsonl", queries)
    alone = eval_json(capsys, folder / "a.md", qfile)
    assert eval_json(capsys, folder, qfile) == alone
    assert alone["document"] == "a.md" and "documents" not in alone
    assert all("gold_chunks" not in q for q in alone["queries"])


def test_folder_glob_and_zip_of_the_same_files_give_the_same_eval(tmp_path, capsys):
    folder = write_files(tmp_path / "kb", FILES)
    archive = tmp_path / "kb.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, text in FILES.items():
            zf.writestr(name, text)
    qfile = write_queries(tmp_path / "q.jsonl", QUERIES)
    by_folder = eval_json(capsys, folder, qfile)
    assert by_folder["documents"] == ["a.md", "b.md", "sub/c.md"]
    assert by_folder["n_queries"] == len(QUERIES)
    assert {i["level"] for i in by_folder["issues"]} == {"note"}  # located without offsets
    assert eval_json(capsys, f"{folder}/**/*.md", qfile) == by_folder
    assert eval_json(capsys, archive, qfile) == by_folder
    rows = {q["id"]: q for q in by_folder["queries"]}
    assert rows["night"]["type"] == "scattered"
    assert {g["doc"] for g in rows["night"]["gold_chunks"]} == {"a.md", "sub/c.md"}
    assert {g["doc"] for g in rows["cranes"]["gold_chunks"]} == {"b.md"}


def test_window_never_counts_a_chunk_of_the_next_file(tmp_path, capsys):
    folder = write_files(tmp_path / "kb", FILES)
    qfile = write_queries(tmp_path / "q.jsonl", QUERIES)
    out = eval_json(capsys, folder, qfile, "--policies", "topk,window1,window2,scar", "--k", "2")
    corpus = join_documents(collect_path(str(folder)).documents)
    chunks = chunk_document(corpus, ChunkingConfig("recursive", 160, 0))
    doc_of = chunk_doc_of(corpus, chunks)
    assert out["n_chunks"] == len(chunks)
    rows = {q["id"]: q for q in out["queries"]}
    # The ladder's evidence is the last chunk of a.md; the next chunk opens b.md.
    (last_a,) = rows["ladder"]["gold"]
    assert doc_of[last_a] == 0 and doc_of[last_a + 1] == 1
    assert rows["ladder"]["gold_chunks"] == [{"doc": "a.md", "index": int(sum(doc_of == 0)) - 1}]
    assert last_a in rows["ladder"]["policies"]["topk"]["selected"]
    for row in rows.values():
        retrieved = row["policies"]["topk"]["selected"]
        for name, w in (("window1", 1), ("window2", 2)):
            expected = {
                n
                for c in retrieved
                for n in range(c - w, c + w + 1)
                if 0 <= n < len(chunks) and doc_of[n] == doc_of[c]
            }
            assert set(row["policies"][name]["selected"]) == expected, (row["id"], name)
        for c in row["policies"]["scar"]["selected"]:
            assert any(doc_of[c] == doc_of[r] and abs(c - r) <= 1 for r in retrieved)
    # Concatenated, window ±1 would have sent b.md's first chunk with the ladder's.
    assert last_a + 1 not in rows["ladder"]["policies"]["window1"]["selected"]


def test_select_json_names_files_and_gives_file_offsets(tmp_path, capsys):
    folder = write_files(tmp_path / "kb", FILES)
    argv = ["select", str(folder), "--query", "pilot ladder lifebuoy", "--policy", "window"]
    assert main([*argv, "--model", "hash", "--json", *CHUNKING]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["documents"] == ["a.md", "b.md", "sub/c.md"]
    assert len(out["file_spans"]) == len(out["spans"])
    for fs in out["file_spans"]:
        assert FILES[fs["doc"]][fs["start"] : fs["end"]]
    joined = "\n\n".join(FILES[p] for p in out["documents"])
    texts = {joined[s:e] for s, e in out["spans"]}
    assert texts == {FILES[f["doc"]][f["start"] : f["end"]] for f in out["file_spans"]}
    assert len(out["selected_chunks"]) == len(out["selected"])


def test_nothing_usable_is_one_error_line(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    qfile = write_queries(tmp_path / "q.jsonl", QUERIES)
    assert main(["eval", str(empty), str(qfile), "--model", "hash"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:")
    assert main(["eval", str(tmp_path / "nothing-*.md"), str(qfile), "--model", "hash"]) != 0
    assert capsys.readouterr().err.count("\n") == 1


def test_skipped_files_are_noted_and_the_rest_runs(tmp_path, capsys):
    folder = write_files(tmp_path / "kb", FILES)
    (folder / "image.bin").write_bytes(b"\x00\xff" * 64)
    qfile = write_queries(tmp_path / "q.jsonl", QUERIES)
    argv = ["eval", str(folder), str(qfile), "--model", "hash", "--boot", "0", "--json"]
    assert main([*argv, *CHUNKING]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["documents"] == ["a.md", "b.md", "sub/c.md"]
    notes = [line for line in captured.err.splitlines() if "skipped" in line]
    assert len(notes) == 1 and "image.bin" in notes[0]


@pytest.mark.parametrize(
    ("evidence", "path"),
    [
        ({"doc": "nope/x.md", "text": "Tankers"}, "nope/x.md"),
        ({"doc": "a.md", "text": "Tankers"}, "a.md"),
    ],
)
def test_unknown_doc_or_missing_text_is_one_warning_and_the_rest_runs(
    tmp_path, capsys, evidence, path
):
    folder = write_files(tmp_path / "kb", FILES)
    bad = {"id": "bad", "query": "?", "evidence": [evidence]}
    qfile = write_queries(tmp_path / "q.jsonl", [*QUERIES, bad])
    argv = ["eval", str(folder), str(qfile), "--model", "hash", "--boot", "0", "--json"]
    assert main([*argv, *CHUNKING]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["n_queries"] == len(QUERIES)
    warnings = [line for line in captured.err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "(bad)" in warnings[0] and f"'{path}'" in warnings[0]


def test_make_queries_on_a_corpus_writes_doc_and_file_offsets(tmp_path, capsys, llm_server):
    folder = write_files(tmp_path / "kb", FILES)
    argv = ["make-queries", str(folder), "--n", "4", "--model", "m"]
    assert main([*argv, "--base-url", llm_server.base_url, *CHUNKING]) == 0
    out = capsys.readouterr().out
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows
    for row in rows:
        for item in row["evidence"]:
            assert FILES[item["doc"]][item["start"] : item["end"]] == item["text"]
    qfile = tmp_path / "generated.jsonl"
    qfile.write_text(out, encoding="utf-8")
    result = eval_json(capsys, folder, qfile, "--boot", "0")
    assert result["n_queries"] == len(rows) and result["issues"] == []
