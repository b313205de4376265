"""The QASC policies: sentences of the document, embedded with the query's model, then QASC.

``qasc`` runs QASC as its source does (docs/method.md §5): query-adaptive chunks are formed from
sentences, then the retriever ranks these chunks by their aggregated score A(C) = max W over
the seed windows inside them and keeps the top k (the same k as every other policy);
``all_windows=True`` sends every surviving window instead (steps 1–5 alone).

``qasc-hybrid``, the source's production proposal: the pre-chunked top-k by cos(q, c) are the
candidates; their sentences, widened by ``margin`` sentences on each side, are re-chunked by
QASC (seed threshold θ over every sentence of the document, seeds and windows confined to the
candidates' sentence ranges). Notation: C_k = top-k chunks; R = ∪_{c ∈ C_k} [first(c) − margin,
last(c) + margin] (sentence indices); context = QASC(s | R).

Each file (part) of the document is split into sentences on its own, and no window, region or
QASC chunk reaches past the file of its seed or candidate (:func:`sentence_files`).

Sentence embeddings come from ``inputs.embed``, which goes through the on-disk embedding cache,
so a document's sentences are encoded once per model; later queries only look them up.
"""

from __future__ import annotations

import time
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

import numpy as np

from scar_viz.chunking.qasc import (
    QascParams,
    QascResult,
    Window,
    qasc_choose,
    qasc_select,
    qasc_windows,
    sentence_scores,
)
from scar_viz.common.edges import doc_of_starts, reach
from scar_viz.common.errors import SettingsError
from scar_viz.common.knobs import from_values, knob_fields
from scar_viz.common.spans import Span
from scar_viz.documents.reading import Document
from scar_viz.documents.sentences import part_paragraph_spans, part_sentence_spans
from scar_viz.policies.base import PolicyResult, QueryInputs, policy_entry, span_result

QASC_KNOBS = tuple(f.name for f, _ in knob_fields(QascParams))


def document_sentences(
    inputs: QueryInputs, splitter: str = "pysbd"
) -> tuple[tuple[Span, ...], np.ndarray]:
    """The document's sentence spans and s_i = cos(q, s_i), shape (n,): the split and the
    sentence vectors every sentence-based policy shares (cached on disk by ``inputs.embed``).

    Raises:
        SettingsError: when ``inputs.embed`` is missing or the document has no sentences.
    """
    if inputs.embed is None:
        raise SettingsError(
            "QASC and the sentence window need the embedding model to embed the document's "
            "sentences."
        )
    key = ("sentences", splitter)
    if key in inputs.memo:
        return inputs.memo[key]
    doc = inputs.document
    text = doc.text
    sentences = part_sentence_spans(text, doc.part_bounds, splitter)
    if not sentences:
        raise SettingsError("The document has no sentences to chunk.")
    vecs = inputs.embed([text[s:e] for s, e in sentences])
    found = sentences, sentence_scores(vecs, inputs.query_vec)
    inputs.memo[key] = found
    return found


def document_paragraphs(document: Document) -> list[Span]:
    """The paragraph spans QASC snaps to: each file's own (found once per text and files,
    not per query)."""
    return list(_paragraphs(document.text, document.part_bounds))


@lru_cache(maxsize=8)
def _paragraphs(text: str, parts: tuple[Span, ...]) -> tuple[Span, ...]:
    return tuple(part_paragraph_spans(text, parts))


_last_files: list[tuple[tuple[Span, ...], Sequence[Span], np.ndarray]] = []
"""The last sentence tuple's files (a document's, asked for on every query)."""


def sentence_files(document: Document, sentences: Sequence[Span]) -> np.ndarray:
    """(n,) the file of each sentence (:mod:`scar_viz.common.edges`), remembered for the last
    document's parts and sentence tuple."""
    parts = document.part_bounds
    last = _last_files[0] if _last_files else None
    if last is not None and last[0] == parts and last[1] is sentences:
        return last[2]
    starts = np.array([s for s, _ in parts], dtype=np.int64)
    files = doc_of_starts(starts, np.array([s for s, _ in sentences], dtype=np.int64))
    files.flags.writeable = False
    if isinstance(sentences, tuple):  # immutable: safe to remember
        _last_files[:] = [(parts, sentences, files)]
    return files


_last_bounds: list[tuple[Sequence[Span], tuple[list[int], list[int]]]] = []
"""The last sentence tuple's starts and ends (a document's, asked for every candidate)."""


def _bounds(sentences: Sequence[Span]) -> tuple[list[int], list[int]]:
    last = _last_bounds[0] if _last_bounds else None
    if last is not None and last[0] is sentences:
        return last[1]
    bounds = [s for s, _ in sentences], [e for _, e in sentences]
    if isinstance(sentences, tuple):  # immutable: safe to remember
        _last_bounds[:] = [(sentences, bounds)]
    return bounds


def sentence_range(sentences: Sequence[Span], start: int, end: int) -> Window | None:
    """Inclusive index range of the sentences overlapping characters [start, end), or None."""
    starts, ends = _bounds(sentences)
    lo = bisect_right(ends, start)
    hi = bisect_left(starts, end) - 1
    return (lo, hi) if lo <= hi else None


def _params(knobs: dict[str, object], **fixed: int) -> QascParams:
    """A validated :class:`QascParams` from a policy's keyword knobs and ``fixed`` values."""
    params = replace(from_values(QascParams, knobs), **fixed)
    params.validate()
    return params


def _notes(res: QascResult, params: QascParams, n_sentences: int) -> list[str]:
    mode = (
        f"adaptive (θ_x = {res.expand_threshold:.3f}, ≤ {params.max_m}/side)"
        if params.adaptive
        else f"fixed m = {params.window_m}"
    )
    kept = (
        f"top {len(res.chosen)} of {len(res.merged)} by A = max W"
        if params.top_k and len(res.chosen) < len(res.merged)
        else f"all {len(res.merged)}"
    )
    notes = [
        f"{n_sentences} sentences; {len(res.seeds)} seeds at s ≥ θ = {res.threshold:.3f} "
        f"(p{params.percentile:g}); window {mode}; {len(res.kept)}/{len(res.windows)} windows "
        f"with W > {params.keep_ratio:g}·θ = {res.keep_bar:.3f}; {len(res.merged)} after "
        f"merging; sent {kept}."
    ]
    if res.unsnapped:
        notes.append(
            f"{res.unsnapped} boundaries stayed at a sentence: the paragraph break is "
            f"more than {params.snap_chars} characters away."
        )
    if not res.spans:
        notes.append("No window scored above the keep bar: QASC sends nothing for this query.")
    if res.threshold <= 0:
        notes.append("θ ≤ 0: the keep bar 0.6·θ is then above θ itself.")
    return notes


def qasc_policy(
    inputs: QueryInputs, splitter: str = "pysbd", all_windows: bool = False, **knobs: object
) -> PolicyResult:
    """QASC (docs/method.md §5) on ``inputs.document``: the top k QASC chunks by A = max W, or
    every window with ``all_windows``; ``knobs`` are :class:`QascParams` fields.

    Its time covers the sentence split (memoised per text), the sentence vectors (a cache
    look-up after the first query, an encoding before) and every QASC step.

    Raises:
        SettingsError: when ``inputs.embed`` is missing or a knob is out of range.
    """
    t0 = time.perf_counter()
    k = 0 if all_windows else max(1, int(inputs.params.k))
    params = _params(knobs, top_k=k)
    sentences, scores = document_sentences(inputs, splitter)
    doc = inputs.document
    key = ("qasc", splitter, replace(params, top_k=0))
    windows = inputs.memo.get(key)
    if windows is None:  # steps 2–5 do not depend on k: once per query
        windows = qasc_windows(sentences, scores, params, doc_of=sentence_files(doc, sentences))
        inputs.memo[key] = windows
    res = qasc_choose(windows, sentences, document_paragraphs(doc), params)
    notes = _notes(res, params, len(sentences))
    return span_result("qasc", inputs, res.spans, t0, notes=notes, detail=res)


def qasc_hybrid_policy(
    inputs: QueryInputs, margin: int = 2, splitter: str = "pysbd", **knobs: object
) -> PolicyResult:
    """Pre-chunked top-k, then QASC re-chunking of the sentences around the candidates.

    ``chunk_ids`` stay None (the context is sentence spans); ``detail`` is the QASC result.

    Raises:
        SettingsError: when ``inputs.embed`` is missing or a knob is out of range.
    """
    t0 = time.perf_counter()
    if margin < 0:
        raise SettingsError("The sentence margin around the candidates must be 0 or more.")
    params = _params(knobs, max_seeds=0, top_k=0)
    sentences, scores = document_sentences(inputs, splitter)
    candidates = inputs.top(max(1, int(inputs.params.k)))
    doc = inputs.document
    files = sentence_files(doc, sentences)
    regions = []
    for c in candidates:
        rng = sentence_range(sentences, inputs.chunks[c].start, inputs.chunks[c].end)
        if rng is not None:
            lo, hi = reach(files, len(sentences), rng[0])
            regions.append((max(lo, rng[0] - margin), min(hi - 1, rng[1] + margin)))
    res = qasc_select(
        sentences, scores, document_paragraphs(doc), params, regions=regions, doc_of=files
    )
    first, *rest = _notes(res, params, len(sentences))
    notes = [
        f"candidates: top {len(candidates)} chunks {sorted(candidates)}, their sentences "
        f"± {margin}; then QASC: " + first,
        *rest,
    ]
    return span_result("qasc-hybrid", inputs, res.spans, t0, notes=notes, detail=res)


QASC = policy_entry("qasc", qasc_policy, knobs=QASC_KNOBS)
QASC_HYBRID = policy_entry(
    "qasc-hybrid", qasc_hybrid_policy, knobs=tuple(k for k in QASC_KNOBS if k != "max_seeds")
)
