"""The verdict: tune on one half, check on the other; a document where SCAR pays and one where
the window should stay."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.base import Chunk
from scar_viz.documents.reading import read_document
from scar_viz.embeddings import HashEmbedder, embed_cached
from scar_viz.errors import SettingsError
from scar_viz.evaluation import evaluate
from scar_viz.evaluation.queries import label_queries, parse_queries, split_alternate
from scar_viz.evaluation.recommend import (
    KEEP_WINDOW,
    USE_SCAR,
    TunePoint,
    choose,
    recommend,
    verdict_rows,
)

POLICIES = ("topk", "window1", "window2", "scar")


def _words(topic: int, part: int, n: int = 12) -> list[str]:
    return [f"t{topic}p{part}w{j}" for j in range(n)]


def synthetic(span: int, n_topics: int = 16):
    """A document of topics, each ``span`` consecutive chunks (one paragraph a chunk, its own
    words); one query a topic whose evidence covers the topic's chunks. With span 2 a retrieved
    chunk's one useful neighbour is on one side (SCAR admits it, the window also takes the
    foreign one); with span 3 both neighbours are needed (the window takes exactly them)."""
    paragraphs, owners = [], []
    for t in range(n_topics):
        for part in range(span):
            paragraphs.append(" ".join(_words(t, part)) + ".")
            owners.append(t)
    text = "\n\n".join(paragraphs)
    doc = read_document("synthetic.txt", text.encode())
    chunks, pos = [], 0
    for i, para in enumerate(paragraphs):
        start = doc.text.index(para, pos)
        chunks.append(Chunk(i, start, start + len(para), para))
        pos = start + len(para)
    emb = HashEmbedder(1024)
    from scar_viz.pipeline import prepare_document

    prep = prepare_document(doc, emb, chunks=chunks)
    lines = []
    for t in range(n_topics):
        first = chunks[owners.index(t)]
        last = chunks[owners.index(t) + span - 1]
        # the query names the middle part most, so the middle (or first) chunk is retrieved
        mid = span // 2 if span == 3 else 0
        words = [w for p in range(span) for w in _words(t, p)[: (8 if p == mid else 5)]]
        lines.append(
            {
                "id": f"q{t:02d}",
                "query": " ".join(words),
                "evidence": [
                    {
                        "text": doc.text[first.end - 20 : last.start + 20],
                        "start": first.end - 20,
                        "end": last.start + 20,
                    }
                ],
            }
        )
    import json

    qset = parse_queries("\n".join(json.dumps(x) for x in lines), doc.text)
    assert not qset.errors
    labelled = label_queries(qset, doc.text, prep.chunks)
    vecs = embed_cached(emb, [q.query.query for q in labelled], None).vectors
    return prep, labelled, vecs


def test_scar_wins_where_one_neighbour_holds_the_rest():
    prep, labelled, vecs = synthetic(span=2)
    v = recommend(prep, labelled, vecs, budget_policies=POLICIES, n_boot=500)
    assert v.kind == USE_SCAR, v.sentence()
    assert v.scar.recall == pytest.approx(v.window1.recall)
    assert v.token_saving.ci_low > 0 and v.chunk_saving.mean_diff > 0
    assert v.beaten_by is None
    s = v.sentence()
    assert s.startswith("Use SCAR at k = ") and "\n" not in s and s.count(". ") == 0
    tune, check = split_alternate(labelled)
    assert v.check_ids == tuple(q.id for q in check)
    assert v.tune_ids == tuple(q.id for q in tune)
    assert not set(v.check_ids) & set(v.tune_ids)
    rows = verdict_rows(v)
    assert [r["policy"] for r in rows] == ["SCAR", "window ±1"]


def test_window_kept_where_both_neighbours_are_needed():
    prep, labelled, vecs = synthetic(span=3)
    v = recommend(prep, labelled, vecs, budget_policies=POLICIES, n_boot=500)
    assert v.kind == KEEP_WINDOW
    assert v.keep_window
    assert v.sentence().startswith("Keep the window")
    assert not v.saves  # admitting both neighbours is what the window does: nothing saved


def test_check_figures_are_evaluate_on_the_check_half():
    prep, labelled, vecs = synthetic(span=2)
    v = recommend(prep, labelled, vecs, budget_policies=POLICIES, n_boot=200)
    rows = [i for i, q in enumerate(labelled) if q.id in set(v.check_ids)]
    ev = evaluate(prep, [labelled[i] for i in rows], vecs[rows], ["window1", "scar"], v.params)
    s = ev.policies["scar"].summaries["all"]
    assert (s.recall, s.mean_chunks, s.mean_tokens) == (
        v.scar.recall,
        v.scar.mean_chunks,
        v.scar.mean_tokens,
    )
    out = v.as_json()
    assert set(out["check"]) == {"scar", "window1"}
    assert set(out["check"]["scar"]) == {"recall", "mean_chunks", "mean_tokens"}
    assert out["equal_budget"]["on_front"] is True


def test_choose_keeps_the_reference_recall():
    per_k = (
        TunePoint(1, 0.0, 0.5, 0.40, 1.5, 0.40, 3.0),  # cheapest but far below the reference
        TunePoint(2, 0.1, 0.3, 0.795, 3.0, 0.80, 5.0),  # within a point of k 3's window
        TunePoint(3, 0.1, 0.3, 0.80, 3.5, 0.80, 7.0),
    )
    assert choose(per_k, reference_k=3).k == 2
    assert choose(per_k, reference_k=1).k == 1
    with pytest.raises(SettingsError):
        choose((), 3)


def test_too_few_queries_is_a_clear_error():
    prep, labelled, vecs = synthetic(span=2, n_topics=2)
    with pytest.raises(SettingsError, match="at least two"):
        recommend(prep, labelled[:1], vecs[:1])
    assert np.isfinite(vecs).all()
