"""The development benchmark: a subset of the PostgreSQL 15 manual with hand-written questions.

``benchmarks/data/pgdocs15/pages.zip`` holds 80 HTML pages of the manual as Debian ships it
(package ``postgresql-doc-15``, 15.20-0+deb12u1, ``/usr/share/doc/postgresql-doc-15/html``):
chapter 8 (data types), chapter 5 (data definition), chapter 7 (queries), chapter 11
(indexes), chapter 13 (concurrency control) and the tutorial. The PostgreSQL Licence allows
copying the documentation with its notice: ``LICENSE.html`` (the manual's legal notice) and
``COPYRIGHT.debian`` (the package's copyright file) keep it.

``questions.txt`` holds the questions, written by hand on those pages, each with the exact
quotes that answer it; this script finds every quote in its page's text as the app reads it
(whitespace runs match any whitespace; a quote must occur exactly once) and writes
``queries.jsonl`` in the query-file format of docs/cli.md, then reports how many queries are
fragmented under the default chunking.

Run: ``.venv/bin/python benchmarks/pgdocs.py`` (``--extract DEB`` first copies the pages again
from a downloaded ``postgresql-doc-15`` package: ``apt-get download postgresql-doc-15``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
import zipfile
from collections import Counter
from pathlib import Path

from scar_viz.cli.common import load_document
from scar_viz.documents.reading import Document
from scripts.bench_smoke import parse

ROOT = Path(__file__).resolve().parent.parent

DATA = ROOT / "benchmarks" / "data" / "pgdocs15"
CORPUS = DATA / "pages.zip"
"""The pages as one zip, as a user uploads a knowledge base (a fifth of the pages' size, and
the manual's repeated markup is not counted as the project's own repeated lines)."""
QUESTIONS = DATA / "questions.txt"
QUERIES = DATA / "queries.jsonl"
PAGES = ("datatype", "ddl-", "indexes", "tutorial-", "mvcc", "queries-")
"""The pages kept: those whose file names start with one of these."""


def extract(deb: Path) -> None:
    """Copy the kept pages (and the licence) out of a ``postgresql-doc-15`` package."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["dpkg-deb", "-x", str(deb), tmp], check=True)
        src = Path(tmp) / "usr/share/doc/postgresql-doc-15"
        with zipfile.ZipFile(CORPUS, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as out:
            for page in sorted((src / "html").glob("*.html")):
                if page.name.startswith(PAGES):
                    out.writestr(
                        zipfile.ZipInfo(page.name), page.read_bytes(), zipfile.ZIP_DEFLATED
                    )
        (DATA / "LICENSE.html").write_bytes((src / "html/legalnotice.html").read_bytes())
        (DATA / "COPYRIGHT.debian").write_bytes((src / "copyright").read_bytes())


def read_questions(text: str) -> list[tuple[str, str, list[str]]]:
    """(file, question, quotes) from ``questions.txt``."""
    out: list[tuple[str, str, list[str]]] = []
    page = ""
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@ "):
            page = line[2:].strip()
        elif line.startswith("Q: "):
            out.append((page, line[3:].strip(), []))
        elif line.startswith("E: ") and out:
            out[-1][2].append(line[3:].strip())
        else:
            raise SystemExit(f"questions.txt line {n}: cannot read {line[:60]!r}")
    return out


def locate(page_text: str, quote: str) -> tuple[int, int]:
    """(start, end) of the one occurrence of ``quote`` in ``page_text`` (whitespace runs match
    any whitespace)."""
    pattern = r"\s+".join(re.escape(part) for part in quote.split())
    hits = [m.span() for m in re.finditer(pattern, page_text)]
    if len(hits) != 1:
        raise ValueError(f"{len(hits)} matches")
    return hits[0]


def build(document: Document) -> list[dict[str, object]]:
    """The query rows: each quote located in its page."""
    pages = {Path(p.path).name: p for p in document.parts}
    rows, bad = [], []
    for i, (page, question, quotes) in enumerate(read_questions(QUESTIONS.read_text()), 1):
        part = pages.get(page)
        if part is None:
            bad.append(f"{page}: no such page")
            continue
        text = document.text[part.start : part.end]
        evidence = []
        for quote in quotes:
            try:
                start, end = locate(text, quote)
            except ValueError as exc:
                bad.append(f"{page}: {exc} of {quote[:70]!r}")
                continue
            evidence.append({"doc": part.path, "text": text[start:end], "start": start, "end": end})
        if evidence and len(evidence) == len(quotes):
            rows.append({"id": f"pg-{i:03d}", "query": question, "evidence": evidence})
    if bad:
        raise SystemExit("\n".join(bad))
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--extract", type=Path, help="a postgresql-doc-15 .deb to copy from")
    parser.add_argument("--out", type=Path, default=QUERIES, help="the query file written")
    args = parse(parser, argv)  # --smoke: the same build, written to a temporary folder
    if args.extract:
        extract(args.extract)
    document = load_document(str(CORPUS))
    rows = build(document)
    args.out.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    from scar_viz.embeddings import HashEmbedder
    from scar_viz.pipeline import prepare_document
    from scar_viz.queries.gold import label_queries
    from scar_viz.queries.reading import parse_queries

    prep = prepare_document(document, HashEmbedder(64), cache=None)
    qset = parse_queries(args.out.read_text(encoding="utf-8"), document)
    if qset.errors:
        raise SystemExit("\n".join(str(e) for e in qset.errors))
    gold = label_queries(qset, document, prep.chunks)
    types = Counter(g.type for g in gold)
    print(
        f"{len(document.parts)} pages, {len(prep.chunks):,} chunks (default chunking), "
        f"{len(rows)} queries: " + ", ".join(f"{n} {t}" for t, n in sorted(types.items()))
    )


if __name__ == "__main__":
    main()
