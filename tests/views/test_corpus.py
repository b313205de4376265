"""The corpus view's per-file rows (scar_viz.views.corpus)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scar_viz.chunking.config import ChunkingConfig, chunk_doc_of, chunk_document
from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import Document, Part, document_from_text
from scar_viz.queries.gold import GoldQuery
from scar_viz.queries.reading import LabelledQuery
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import normalize, select_from_sims
from scar_viz.views.corpus import LENGTH_MEASURE, corpus_view, loaded_view
from scar_viz.views.focus import STATUS_RETRIEVED


def _corpus():
    files = [
        document_from_text("b/notes.md", "Tide tables. " * 40),
        document_from_text("a/intro.txt", "The harbour opens at dawn. " * 30),
        document_from_text("c/code.py", "def pilot():\n    return 1\n" * 25),
    ]
    corpus = join_documents(files)
    chunks = chunk_document(corpus, ChunkingConfig(size=200, overlap=0))
    return corpus, chunks, chunk_doc_of(corpus, chunks)


def _selection(n: int, sims: np.ndarray, doc_of, k: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    unit = normalize(np.cumsum(rng.normal(size=(n, 8)), axis=0))
    return select_from_sims(sims, unit, GateParams(k=k, lam=0.0, tau=0.0, radius=1), doc_of)


def test_rows_count_each_file_and_order_hits_first():
    corpus, chunks, doc_of = _corpus()
    n = len(chunks)
    sims = np.linspace(0.0, 0.5, n)
    c_first = int(np.flatnonzero(doc_of == 2)[0])
    sims[c_first] = 0.9  # the best chunk, in c/code.py
    sel = _selection(n, sims, doc_of, k=1)
    view = corpus_view(corpus, doc_of, sims, sel)

    assert view.paths == ("a/intro.txt", "b/notes.md", "c/code.py")
    assert view.counts.sum() == n
    assert list(view.counts) == [int(np.sum(doc_of == d)) for d in range(3)]
    assert list(view.characters) == [
        len(t)
        for t in (
            "The harbour opens at dawn. " * 30,
            "Tide tables. " * 40,
            "def pilot():\n    return 1\n" * 25,
        )
    ]
    rows = view.rows()
    assert rows[0].path == "c/code.py"  # the one file holding the hit comes first
    assert rows[0].retrieved == 1 and rows[0].best_chunk == c_first
    assert rows[0].best == pytest.approx(0.9)
    # then by best cos(q,c): b/notes.md holds the higher tail of the linspace than a/intro.txt
    assert [r.path for r in rows[1:]] == ["b/notes.md", "a/intro.txt"]
    assert sum(r.admitted for r in rows) == len(sel.admitted)
    assert rows[0].admitted == len(sel.admitted)  # neighbours stay in the hit's file
    assert "queries" not in rows[0].as_row()


def test_file_overview_is_the_files_slice_on_one_scale():
    corpus, chunks, doc_of = _corpus()
    n = len(chunks)
    sims = np.random.default_rng(1).uniform(-0.1, 0.8, n)
    sel = _selection(n, sims, doc_of, k=4)
    view = corpus_view(corpus, doc_of, sims, sel)
    for d in range(view.n_files):
        part = view.file_overview(d)
        ids = np.flatnonzero(doc_of == d)
        assert np.array_equal(part.sims, sims[ids])
        assert int(np.sum(part.status == STATUS_RETRIEVED)) == view.retrieved[d]
        for c in ids:
            assert view.file_of(int(c)) == d
    assert view.scale == (pytest.approx(min(0.0, sims.min())), pytest.approx(sims.max()))


def _gold(qid: str, gold: tuple[int, ...], kind: str) -> GoldQuery:
    query = LabelledQuery(qid, "q?", (), None, 1)
    return GoldQuery(query, gold, (), kind)


def test_query_counts_per_file():
    corpus, chunks, doc_of = _corpus()
    n = len(chunks)
    a = np.flatnonzero(doc_of == 0)
    c = np.flatnonzero(doc_of == 2)
    gold = [
        _gold("1", (int(a[0]), int(a[1])), "fragmented"),
        _gold("2", (int(a[3]),), "atomic"),
        _gold("3", (int(a[0]), int(c[0])), "scattered"),
        _gold("4", (), "atomic"),  # evidence not mapped: counted nowhere
    ]
    sims = np.zeros(n)
    view = corpus_view(corpus, doc_of, sims, _selection(n, sims, doc_of), gold)
    assert list(view.queries) == [3, 0, 1]
    assert list(view.fragmented) == [1, 0, 0]
    row = view.row(0).as_row()
    assert row["queries"] == 3 and row["fragmented queries"] == 1


def test_one_file_is_one_row():
    doc = document_from_text("one.txt", "Only one file here. " * 50)
    chunks = chunk_document(doc, ChunkingConfig(size=200, overlap=0))
    n = len(chunks)
    sims = np.linspace(0, 1, n)
    doc_of = chunk_doc_of(doc, chunks)  # all zeros: one file
    assert not doc_of.any()
    view = corpus_view(doc, doc_of, sims, _selection(n, sims, doc_of, k=2))
    assert view.paths == ("one.txt",)
    assert view.counts.tolist() == [n] and view.retrieved.tolist() == [2]
    assert view.best_chunk.tolist() == [n - 1]


def _slow(paths, doc_of, sims, sel, gold):
    """A per-file loop: the reference the vectorised view must equal."""
    rows = []
    for d, path in enumerate(paths):
        ids = [i for i in range(len(sims)) if doc_of[i] == d]
        best = max((sims[i] for i in ids), default=math.nan)
        best_chunk = next((i for i in ids if sims[i] == best), -1)
        in_file = set(ids)
        rows.append(
            {
                "path": path,
                "chunks": len(ids),
                "retrieved": sum(c in in_file for c in sel.retrieved),
                "admitted": sum(c in in_file for c in sel.admitted),
                "best": best,
                "best_chunk": best_chunk,
                "queries": sum(any(g in in_file for g in q.gold) for q in gold),
                "fragmented": sum(q.fragmented and any(g in in_file for g in q.gold) for q in gold),
            }
        )
    hits = [r for r in rows if r["retrieved"]]
    rest = [r for r in rows if not r["retrieved"]]

    def key(r):
        return -(r["best"] if not math.isnan(r["best"]) else -math.inf)

    return sorted(hits, key=key) + sorted(rest, key=key)  # stable: corpus order on ties


def test_a_thousand_files_equal_a_per_file_loop():
    rng = np.random.default_rng(7)
    files = 1000
    counts = rng.integers(0, 30, files)  # some files without chunks
    doc_of = np.repeat(np.arange(files), counts)
    n = len(doc_of)
    parts, pos = [], 0
    for d in range(files):
        size = int(counts[d]) * 100 + 1
        parts.append(Part(f"dir{d % 7}/file{d:04d}.txt", pos, pos + size))
        pos += size + 2
    corpus = Document("corpus", "x" * pos, (), "", parts=tuple(parts))
    sims = np.round(rng.uniform(-0.2, 0.9, n), 2)  # rounded: ties inside files
    sel = _selection(n, sims, doc_of, k=20, seed=3)
    gold = [
        _gold(str(i), tuple(sorted(rng.choice(n, size=2, replace=False).tolist())), kind)
        for i, kind in enumerate(["fragmented", "scattered", "atomic"] * 30)
    ]
    view = corpus_view(corpus, doc_of, sims, sel, gold)
    expected = _slow([p.path for p in parts], doc_of, sims, sel, gold)
    got = view.rows()
    assert [r.path for r in got] == [r["path"] for r in expected]
    for row, want in zip(got, expected, strict=True):
        assert row.chunks == want["chunks"]
        assert row.retrieved == want["retrieved"] and row.admitted == want["admitted"]
        assert row.best_chunk == want["best_chunk"]
        assert (math.isnan(row.best) and math.isnan(want["best"])) or row.best == want["best"]
        assert row.queries == want["queries"] and row.fragmented == want["fragmented"]
    assert view.with_hits == sum(1 for r in expected if r["retrieved"])
    columns = view.columns()
    assert list(columns) == list(got[0].as_row())
    assert [list(r.as_row().values()) for r in got[:50]] == [
        [columns[name][i] for name in columns] for i in range(50)
    ]


def test_loaded_view_says_what_was_loaded_before_a_question():
    corpus, chunks, doc_of = _corpus()
    view = loaded_view(corpus, doc_of, chunks)
    assert not view.asked and view.measure == LENGTH_MEASURE
    assert list(view.order) == [0, 1, 2]  # corpus order, no hits to sort by
    assert list(view.counts) == [int(np.sum(doc_of == d)) for d in range(3)]
    assert view.retrieved.sum() == 0 and view.admitted.sum() == 0
    # each chunk's value is its length in characters; the scale runs to the longest
    lengths = [c.end - c.start for c in chunks]
    assert view.overview.sims.tolist() == lengths
    assert view.scale == (0.0, float(max(lengths)))
    part = view.file_overview(1)
    assert part.sims.tolist() == [lengths[i] for i in np.flatnonzero(doc_of == 1)]
    columns = view.columns()
    assert list(columns) == ["file", "chunks", "characters"]  # nothing of a question
    assert list(columns["file"]) == list(view.paths)
    assert list(columns["characters"]) == list(view.characters)


def test_loaded_view_counts_a_query_sets_files():
    corpus, chunks, doc_of = _corpus()
    c = int(np.flatnonzero(doc_of == 2)[0])
    gold = [_gold("pilot", (c,), "single")]
    columns = loaded_view(corpus, doc_of, chunks, gold).columns()
    assert list(columns) == ["file", "chunks", "characters", "queries", "fragmented queries"]
    assert list(columns["queries"]) == [0, 0, 1]
