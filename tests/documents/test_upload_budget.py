"""Small uploads may not cost much: a zip is held to a whole-archive expansion budget, and a
query file to a number of queries, each refused with one message before the work starts; the
command line's peak memory on both stays far under 1 GB (measured in a fresh process)."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from scar_viz.documents import samples
from scar_viz.documents.collect import (
    MAX_ARCHIVE_RATIO,
    CorpusError,
    Limits,
    collect_files,
    collect_zip,
)
from scar_viz.queries.reading import MAX_QUERIES, QueryLimitError, parse_queries
from tests.fakes import make_zip
from tests.peak_memory import GIB, cli_peak

MIB = 2**20
LINE = b"Boats leave the harbour at dawn and come back before the evening tide. "


def amplifying_zip(n: int = 199, size: int = MIB) -> bytes:
    """``n`` entries of exactly ``size`` bytes of repeated prose (each at the per-file ratio
    check's floor, so no entry alone is refused)."""
    body = (LINE * (size // len(LINE) + 1))[:size]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for i in range(n):
            zf.writestr(f"part-{i:03d}.txt", body)
    return buf.getvalue()


@pytest.fixture(scope="module")
def amp() -> bytes:
    return amplifying_zip()


def test_the_amplifying_zip_is_refused_whole_before_reading(amp):
    assert len(amp) < 2 * MIB  # ~1,000:1 over 199 MiB
    with pytest.raises(CorpusError) as err:
        collect_zip("amp.zip", amp)
    message = str(err.value)
    assert message.startswith("'amp.zip' would expand to 199 MiB from ")
    assert f"at most {MAX_ARCHIVE_RATIO}:1 in all. Nothing was read from it." in message


def test_among_several_uploads_the_amplifying_zip_is_skipped_and_the_rest_kept(amp):
    got = collect_files([("amp.zip", amp), ("notes.txt", b"Harbour notes.\n")])
    assert [d.name for d in got.documents] == ["notes.txt"]
    assert [(s.path, s.reason) for s in got.skipped] == [
        ("amp.zip", f"the archive expands over {MAX_ARCHIVE_RATIO}:1")
    ]


def test_a_zip_of_ordinary_text_over_the_floor_still_opens():
    rows = [f"Line {i}: berth {i % 97} takes boats of {i % 13} metres." for i in range(60_000)]
    text = "\n".join(rows).encode()
    data = make_zip({"log.txt": text, "more.txt": text[::-1]})
    assert len(text) > MIB and len(text) * 2 / len(data) < MAX_ARCHIVE_RATIO
    assert [d.name for d in collect_zip("ok.zip", data).documents] == ["log.txt", "more.txt"]


def test_the_budget_counts_only_what_would_be_read():
    # one entry over the per-file limit is skipped on its own; it does not sink the archive
    data = make_zip({"big.txt": b"a" * (3 * MIB), "keep.txt": b"kept"})
    got = collect_zip("mixed.zip", data, Limits(file_bytes=2 * MIB))
    assert [d.name for d in got.documents] == ["keep.txt"]
    assert [s.reason for s in got.skipped] == ["larger than 2 MiB"]


def many_queries(n: int) -> str:
    """``n`` short labelled queries on the sample document (~130 bytes a line): 100,000 of
    them make the 13 MB file of the report."""
    text = samples.load_sample().text
    out = []
    for i in range(n):
        start = (i * 37) % (len(text) - 40)
        span = {"text": text[start : start + 30], "start": start, "end": start + 30}
        out.append(json.dumps({"id": f"q{i}", "query": f"What about {i}?", "evidence": [span]}))
    return "\n".join(out) + "\n"


def test_a_query_file_over_the_limit_is_refused_before_any_line_is_read():
    text = many_queries(MAX_QUERIES + 1)
    with pytest.raises(QueryLimitError) as err:
        parse_queries(text, samples.load_sample(), "big.jsonl", limit_hint=" in the app")
    assert str(err.value) == (
        f"'big.jsonl' holds {MAX_QUERIES + 1:,} queries; at most {MAX_QUERIES:,} are read from "
        "one file in the app. Split it, or keep a sample of it."
    )
    blank_lines = text + "\n\n   \n"
    with pytest.raises(QueryLimitError):
        parse_queries(blank_lines, samples.load_sample())
    assert len(parse_queries(text, samples.load_sample(), max_queries=None).queries) > MAX_QUERIES


def test_cli_refuses_the_100000_query_file_in_one_line_under_1_gb(tmp_path, sample_files):
    doc, _ = sample_files
    queries = tmp_path / "many.jsonl"
    queries.write_text(many_queries(100_000), encoding="utf-8")
    assert 10 * MIB < queries.stat().st_size < 20 * MIB
    run = cli_peak("eval", str(doc), str(queries), "--model", "hash")
    assert run.returncode != 0 and "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines() == [
        "error: 'many.jsonl' holds 100,000 queries; at most 20,000 are read from one file "
        "(--max-queries raises the limit). Split it, or keep a sample of it."
    ]
    assert run.peak_bytes < GIB, run.peak_bytes


def test_cli_max_queries_takes_a_smaller_or_larger_limit(tmp_path, sample_files):
    doc, _ = sample_files
    queries = tmp_path / "few.jsonl"
    queries.write_text(many_queries(30), encoding="utf-8")
    refused = cli_peak("eval", str(doc), str(queries), "--model", "hash", "--max-queries", "10")
    assert refused.returncode != 0 and "holds 30 queries; at most 10" in refused.stderr
    ran = cli_peak("eval", str(doc), str(queries), "--model", "hash", "--max-queries", "30")
    assert ran.returncode == 0, ran.stderr


def test_cli_eval_on_the_amplifying_zip_is_one_line_under_1_gb(tmp_path, amp, sample_files):
    _, queries = sample_files
    archive = tmp_path / "amp.zip"
    archive.write_bytes(amp)
    run = cli_peak("eval", str(archive), str(queries), "--model", "hash")
    assert run.returncode != 0 and "Traceback" not in run.stderr
    [line] = run.stderr.strip().splitlines()
    assert line.startswith("error: 'amp.zip' would expand to 199 MiB")
    assert line.endswith("Nothing was read from it.")
    assert run.peak_bytes < GIB, run.peak_bytes
