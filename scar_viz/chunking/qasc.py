"""QASC, Query-Adaptive Semantic Chunking (docs/method.md §5): chunks formed per query from
sentences.

Sentence spans and sentence scores s_i = cos(q, s_i) in, character windows out. Steps, one
function each:

1. :func:`sentence_scores`: s_i = cos(e_q, e_{s_i}).
2. :func:`seed_threshold` θ = the p-th percentile of all s_i (default p = 75), and
   :func:`select_seeds`: every sentence with s_i ≥ θ.
3. A window around each seed r: :func:`fixed_window` takes m sentences on each side;
   :func:`adaptive_window` expands outward while the next sentence's score stays above a second
   threshold θ_x (default the 50th percentile), at most ``max_m`` sentences per side.
4. :func:`window_score`: W = Σ_i α_i s_i / Σ_i α_i with α_i = exp(−λ_q · |i − r|); the window is
   kept iff W > ρ · θ (ρ = 0.6, the "0.6 × the seed threshold" of the method).
5. :func:`merge_windows` joins overlapping or adjacent windows (sentence index ranges);
   :func:`snap_to_paragraphs` moves each boundary outward to the paragraph break around it.
6. Retrieval over the QASC chunks (the source's retriever ranks these "pre-selected needles"):
   each merged chunk C scores A(C) = max W over the kept seed windows inside it, and
   :func:`rank_chunks` keeps the ``top_k`` best by A (``top_k`` = 0 keeps every window, the
   literal reading of steps 1–5).

The hybrid the source proposes for production restricts seeds and windows to ``regions``
(sentence ranges around pre-chunked top-k candidates): θ is still the percentile over every
sentence of the document, but seeds are taken, and windows grown, only inside a region.

In a corpus (``doc_of``, the file of each sentence) every window stays inside its seed's file,
and windows of two files never merge: a QASC chunk never spans a file edge.

The source gives no value for λ_q, m or θ_x; the defaults here (λ_q = 0.5, m = 2, θ_x at the
50th percentile, snapping at most 1,000 characters per side) are the app's and are exposed.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from scar_viz.common.edges import chunk_files, one_file, same_file
from scar_viz.common.errors import SettingsError
from scar_viz.common.knobs import knob
from scar_viz.common.spans import Span, merge_spans
from scar_viz.common.vectors import normalize

Window = tuple[int, int]
"""Inclusive sentence index range (lo, hi)."""


@dataclass(frozen=True)
class QascParams:
    """QASC's knobs. ``adaptive`` picks step 3's rule; ``snap_chars`` = 0 turns snapping off."""

    percentile: float = knob(75.0, "seed percentile p", "qp", (0, 100, 1), "slider")
    adaptive: bool = knob(False, "adaptive window instead of fixed m", "qa", widget="toggle")
    window_m: int = knob(2, "fixed m (sentences per side)", "qm", (0, 20, None), active="!adaptive")
    expand_percentile: float = knob(
        50.0, "adaptive: expand while above percentile", "qx", (0, 100, 1), "slider", "adaptive"
    )
    max_m: int = knob(
        5, "adaptive: max sentences per side", "qmax", (1, 50, None), active="adaptive"
    )
    decay: float = knob(
        0.5, "decay λ_q in α_i = exp(−λ_q·|i − r|)", "qd", (0.0, 3.0, 0.05), "slider"
    )
    keep_ratio: float = knob(
        0.6, "keep a window iff W > ρ·θ, ρ =", "qr", (0.0, 1.5, 0.05), "slider"
    )
    snap_chars: int = knob(
        1000, "snap to a paragraph break ≤ chars (0 off)", "qs", (0, 20_000, 100)
    )
    max_seeds: int = knob(0, "keep only the best N seeds (0 = all)", "qn", (0, 5000, None))
    top_k: int = 0
    """Keep the k best merged QASC chunks by A = max W (0 = every window); set from k."""

    def validate(self) -> None:
        if not 0.0 <= self.percentile <= 100.0:
            raise SettingsError("The seed percentile must lie between 0 and 100.")
        if not 0.0 <= self.expand_percentile <= 100.0:
            raise SettingsError("The expansion percentile must lie between 0 and 100.")
        if self.window_m < 0 or self.max_m < 0:
            raise SettingsError("The window radius m must be 0 or more sentences.")
        if self.decay < 0:
            raise SettingsError("The decay λ_q cannot be negative.")
        if self.snap_chars < 0:
            raise SettingsError("The snapping distance cannot be negative.")
        if self.max_seeds < 0:
            raise SettingsError("The seed cap must be 0 (no cap) or more.")
        if self.top_k < 0:
            raise SettingsError("The number of QASC chunks kept must be 0 (all) or more.")


@dataclass(frozen=True)
class ScoredWindow:
    """One seed's window: sentences lo..hi (inclusive), its score W and whether it is kept."""

    seed: int
    lo: int
    hi: int
    score: float
    kept: bool


@dataclass(frozen=True)
class QascResult:
    """Every intermediate of one QASC run, so a page can show each step."""

    scores: np.ndarray
    threshold: float
    expand_threshold: float | None
    keep_bar: float
    seeds: tuple[int, ...]
    windows: tuple[ScoredWindow, ...]
    merged: tuple[Window, ...]
    spans: tuple[Span, ...]
    unsnapped: int
    chunk_scores: tuple[float, ...] = ()
    chosen: tuple[Window, ...] = ()

    @property
    def kept(self) -> tuple[ScoredWindow, ...]:
        return tuple(w for w in self.windows if w.kept)


_last_unit: list[tuple[np.ndarray, np.ndarray]] = []
"""The last read-only sentence matrix and its unit rows (a document's, scored per query)."""


def sentence_scores(sentence_vecs: np.ndarray, query_vec: np.ndarray) -> np.ndarray:
    """Returns s with s[i] = cos(e_q, e_{s_i}), shape (n,).

    The unit rows of a read-only ``sentence_vecs`` (the embed function's, the same array for
    every query) are remembered, so a document's sentences are normalised once, not per query.
    """
    vecs = np.atleast_2d(np.asarray(sentence_vecs, dtype=np.float64))
    if vecs.shape[0] == 0:
        return np.zeros(0)
    query = np.asarray(query_vec, dtype=np.float64).reshape(-1)
    if vecs.shape[1] != query.shape[0]:
        raise SettingsError(
            f"The query has dimension {query.shape[0]} but the sentences have {vecs.shape[1]}."
        )
    return _unit_rows(sentence_vecs, vecs) @ normalize(query)


def _unit_rows(given: np.ndarray, vecs: np.ndarray) -> np.ndarray:
    if not isinstance(given, np.ndarray) or given.flags.writeable:
        return normalize(vecs)
    last = _last_unit[0] if _last_unit else None
    if last is not None and last[0] is given:
        return last[1]
    unit = normalize(vecs)
    _last_unit[:] = [(given, unit)]
    return unit


def seed_threshold(scores: np.ndarray, percentile: float) -> float:
    """θ = the ``percentile``-th percentile of ``scores`` (linear interpolation, numpy's)."""
    if len(scores) == 0:
        raise SettingsError("There are no sentences to score.")
    return float(np.percentile(np.asarray(scores, dtype=float), percentile))


def select_seeds(scores: np.ndarray, threshold: float, max_seeds: int = 0) -> tuple[int, ...]:
    """Indices i with s_i ≥ θ, in document order; with ``max_seeds`` > 0 only the best ones."""
    scores = np.asarray(scores, dtype=float)
    seeds = np.flatnonzero(scores >= threshold)
    if max_seeds and len(seeds) > max_seeds:
        best = np.argsort(-scores[seeds], kind="stable")[:max_seeds]
        seeds = seeds[best]
    return tuple(sorted(int(i) for i in seeds))


def fixed_window(seed: int, n: int, m: int) -> Window:
    """Sentences seed−m … seed+m, clipped to 0 … n−1."""
    return max(0, seed - m), min(n - 1, seed + m)


def adaptive_window(scores: np.ndarray, seed: int, expand_threshold: float, max_m: int) -> Window:
    """Grow from the seed one sentence at a time on each side while the next sentence's score is
    above ``expand_threshold``, at most ``max_m`` sentences per side."""
    n = len(scores)
    lo = seed
    while lo > 0 and seed - lo < max_m and scores[lo - 1] > expand_threshold:
        lo -= 1
    hi = seed
    while hi < n - 1 and hi - seed < max_m and scores[hi + 1] > expand_threshold:
        hi += 1
    return lo, hi


def window_score(scores: np.ndarray, lo: int, hi: int, seed: int, decay: float) -> float:
    """W = Σ_{i=lo}^{hi} α_i s_i / Σ α_i with α_i = exp(−λ_q · |i − r|), r the seed."""
    idx = np.arange(lo, hi + 1)
    alpha = np.exp(-decay * np.abs(idx - seed))
    return float(alpha @ np.asarray(scores, dtype=float)[lo : hi + 1] / alpha.sum())


def merge_windows(windows: Sequence[Window], doc_of: np.ndarray) -> tuple[Window, ...]:
    """Union of inclusive index ranges; overlapping or adjacent (hi + 1 = lo) ranges merge,
    except adjacent ranges of two files (``doc_of``, the file of each sentence)."""
    merged: list[list[int]] = []
    for lo, hi in sorted(windows):
        if merged and lo <= merged[-1][1] + 1 and same_file(doc_of, merged[-1][1], lo):
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return tuple((lo, hi) for lo, hi in merged)


def snap_to_paragraphs(
    spans: Sequence[Span], paragraphs: Sequence[Span], max_shift: int
) -> tuple[tuple[Span, ...], int]:
    """Move each span's start back to the start of its paragraph and its end on to the end of its
    paragraph, when that moves the boundary by at most ``max_shift`` characters.

    Returns (spans, number of boundaries left where they were because the break was farther).
    ``max_shift`` = 0 leaves every span as it is.
    """
    if max_shift <= 0 or not paragraphs:
        return tuple(spans), 0
    starts = [p[0] for p in paragraphs]
    out: list[Span] = []
    left = 0

    def holding(offset: int) -> Span | None:
        i = bisect_right(starts, offset) - 1
        if i >= 0 and paragraphs[i][0] <= offset < paragraphs[i][1]:
            return paragraphs[i]
        return None

    for s, e in spans:
        p = holding(s)
        if p is not None and s != p[0]:
            if s - p[0] <= max_shift:
                s = p[0]
            else:
                left += 1
        p = holding(e - 1)
        if p is not None and e != p[1]:
            if p[1] - e <= max_shift:
                e = p[1]
            else:
                left += 1
        out.append((s, e))
    return tuple(out), left


def chunk_score(windows: Sequence[ScoredWindow], lo: int, hi: int) -> float:
    """A(C) = max W over the kept seed windows lying inside the merged chunk lo..hi."""
    inside = [w.score for w in windows if w.kept and lo <= w.lo and w.hi <= hi]
    return max(inside) if inside else float("-inf")


def chunk_scores(windows: Sequence[ScoredWindow], merged: Sequence[Window]) -> tuple[float, ...]:
    """:func:`chunk_score` of every merged chunk, in one pass over the windows: the merged
    chunks are the union of the kept windows, so each kept window lies inside exactly one of
    them, found by bisection (the scan per chunk was quadratic in the windows)."""
    best = [float("-inf")] * len(merged)
    starts = [lo for lo, _ in merged]
    for w in windows:
        if not w.kept:
            continue
        i = bisect_right(starts, w.lo) - 1
        if i >= 0 and w.hi <= merged[i][1] and w.score > best[i]:
            best[i] = w.score
    return tuple(best)


def rank_chunks(
    merged: Sequence[Window], scores: Sequence[float], top_k: int
) -> tuple[Window, ...]:
    """The ``top_k`` merged chunks with the highest A(C) (ties: document order), in document
    order; ``top_k`` = 0 keeps them all."""
    if top_k <= 0 or len(merged) <= top_k:
        return tuple(merged)
    best = np.argsort(-np.asarray(scores, dtype=float), kind="stable")[:top_k]
    return tuple(merged[i] for i in sorted(int(i) for i in best))


def _split_at_files(areas: Sequence[Window], doc_of: np.ndarray) -> tuple[Window, ...]:
    """``areas`` cut wherever the file (``doc_of``) changes, so each lies inside one file."""
    out: list[Window] = []
    for lo, hi in areas:
        cuts = [
            lo,
            *(int(i) + 1 + lo for i in np.flatnonzero(np.diff(doc_of[lo : hi + 1]))),
            hi + 1,
        ]
        out.extend((a, b - 1) for a, b in zip(cuts[:-1], cuts[1:], strict=True))
    return tuple(out)


def _region_of(regions: Sequence[Window], i: int) -> Window | None:
    for lo, hi in regions:
        if lo <= i <= hi:
            return lo, hi
    return None


def qasc_select(
    sentences: Sequence[Span],
    scores: np.ndarray,
    paragraphs: Sequence[Span] = (),
    params: QascParams | None = None,
    regions: Sequence[Window] | None = None,
    *,
    doc_of: np.ndarray,
) -> QascResult:
    """Run steps 2–6 of QASC on sentence spans (document order) and their scores s_i.

    ``regions`` (inclusive sentence ranges, the hybrid's) confine seeds and windows; None
    means the whole document. ``doc_of`` (the file of each sentence, all zeros for one file)
    confines each window to its seed's file.

    Raises:
        ValueError: for invalid knobs, no sentences, or scores that do not match the sentences.
    """
    params = params or QascParams()
    return qasc_choose(
        qasc_windows(sentences, scores, params, regions, doc_of=doc_of),
        sentences,
        paragraphs,
        params,
    )


def qasc_windows(
    sentences: Sequence[Span],
    scores: np.ndarray,
    params: QascParams,
    regions: Sequence[Window] | None = None,
    *,
    doc_of: np.ndarray,
) -> QascResult:
    """Steps 2–5 of :func:`qasc_select` (seeds, windows, the keep bar, merging, A(C)): what
    does not depend on ``params.top_k``; ``chosen`` and ``spans`` are left empty for
    :func:`qasc_choose`.

    Raises:
        ValueError: for invalid knobs, no sentences, or scores that do not match the sentences.
    """
    params.validate()
    scores = np.asarray(scores, dtype=float)
    if len(sentences) != len(scores):
        raise SettingsError(f"{len(sentences)} sentences but {len(scores)} sentence scores.")
    theta = seed_threshold(scores, params.percentile)
    n = len(scores)
    if len(doc_of) != n:
        raise SettingsError(f"{n} sentences but {len(doc_of)} sentence files.")
    of = chunk_files(doc_of, n)
    areas = _split_at_files(
        merge_windows(  # the regions as one run first, then cut at the files' edges
            [(max(0, lo), min(n - 1, hi)) for lo, hi in regions if lo <= hi and hi >= 0 and lo < n]
            if regions is not None
            else [(0, n - 1)],
            one_file(n),
        ),
        of,
    )
    masked = np.full(n, -np.inf)
    for lo, hi in areas:
        masked[lo : hi + 1] = scores[lo : hi + 1]
    seeds = select_seeds(masked, theta, params.max_seeds)
    expand = None
    if params.adaptive:
        expand = float(np.percentile(scores, params.expand_percentile))
    bar = params.keep_ratio * theta
    windows: list[ScoredWindow] = []
    for r in seeds:
        a_lo, a_hi = _region_of(areas, r) or (0, n - 1)
        if expand is None:
            lo, hi = fixed_window(r, n, params.window_m)
        else:
            lo, hi = adaptive_window(masked, r, expand, params.max_m)
        lo, hi = max(lo, a_lo), min(hi, a_hi)
        w = window_score(scores, lo, hi, r, params.decay)
        windows.append(ScoredWindow(r, lo, hi, w, w > bar))
    merged = merge_windows([(w.lo, w.hi) for w in windows if w.kept], doc_of)
    return QascResult(
        scores=scores,
        threshold=theta,
        expand_threshold=expand,
        keep_bar=bar,
        seeds=seeds,
        windows=tuple(windows),
        merged=merged,
        spans=(),
        unsnapped=0,
        chunk_scores=chunk_scores(windows, merged),
    )


def qasc_choose(
    res: QascResult, sentences: Sequence[Span], paragraphs: Sequence[Span], params: QascParams
) -> QascResult:
    """Step 6 of :func:`qasc_select` on the windows of :func:`qasc_windows`: the ``top_k``
    merged chunks by A(C), as character spans snapped to ``paragraphs``."""
    chosen = rank_chunks(res.merged, res.chunk_scores, params.top_k)
    char_spans = [(sentences[lo][0], sentences[hi][1]) for lo, hi in chosen]
    snapped, unsnapped = snap_to_paragraphs(char_spans, paragraphs, params.snap_chars)
    return replace(res, spans=merge_spans(snapped), unsnapped=unsnapped, chosen=chosen)
