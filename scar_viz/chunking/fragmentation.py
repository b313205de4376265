"""How much a chunking fragments the text: the share of units cut by a chunk boundary.

A *unit* is a (start, end) span of the document that should stay whole: the evidence spans of
a labelled query set when there is one, otherwise the document's own sentences or paragraphs.
A unit is *cut* when no single chunk covers every non-whitespace character of it, i.e. when
its minimal covering run of chunks (docs/method.md §4,
:func:`scar_viz.queries.gold.covering_run`) holds two or more chunks. The cut rate is
the share of cut units; sweeping chunk size and overlap gives the curves and the heatmap of
the chunking lab.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking.base import DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP, DEFAULT_PERCENTILE, Embed
from scar_viz.chunking.config import ChunkingConfig, chunk_spans
from scar_viz.chunking.registry import CHUNKERS
from scar_viz.common.errors import SettingsError
from scar_viz.common.spans import Span
from scar_viz.documents.reading import Document

UNIT_LABELS = {
    "evidence": "evidence spans of the query set",
    "sentence": "sentences of the document",
    "paragraph": "paragraphs of the document",
}
DEFAULT_SIZES = (200, 300, 400, 600, 800, 1000, 1500)
DEFAULT_OVERLAPS = (0, 30, 60, 120)
REFERENCE = (DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP)
"""The reference setting (size, overlap) in characters: recursive 600/60."""

Progress = Callable[[int, int], None]


# --- units -----------------------------------------------------------------------------------


def document_units(document: Document, kind: str) -> list[Span]:
    """The document's sentences (pysbd, :mod:`scar_viz.documents.sentences`) or paragraphs,
    each file of a corpus on its own (no unit crosses two files).

    Raises:
        ValueError: for a kind other than ``sentence`` or ``paragraph``.
    """
    from scar_viz.documents.sentences import part_paragraph_spans, part_sentence_spans

    if kind == "sentence":
        return list(part_sentence_spans(document.text, tuple(document.part_bounds)))
    if kind == "paragraph":
        return part_paragraph_spans(document.text, tuple(document.part_bounds))
    raise SettingsError(f"Units of kind '{kind}' do not come from the document; use a query set.")


# --- cuts ------------------------------------------------------------------------------------


def _trimmed(text: str, units: Sequence[Span]) -> np.ndarray:
    """(n, 2) array of each unit narrowed to its first and past-last non-whitespace character."""
    out = np.zeros((len(units), 2), dtype=np.int64)
    for i, (s, e) in enumerate(units):
        piece = text[s:e]
        stripped = piece.lstrip()
        s2 = s + len(piece) - len(stripped)
        out[i] = (s2, s2 + len(stripped.rstrip()))
    return out


def pieces(text: str, spans: Sequence[Span], units: Sequence[Span]) -> np.ndarray:
    """Chunks in each unit's minimal covering run (1 = whole, ≥ 2 = cut), shape (n_units,).

    With chunk starts and ends non-decreasing and the unit trimmed to [s, e):
    hi = the last chunk with start ≤ s, lo = the first chunk with end > e − 1;
    pieces = 1 if lo ≤ hi (one chunk holds both ends) else lo − hi + 1.
    Units with no non-whitespace character count as whole.
    """
    if not len(units):
        return np.zeros(0, dtype=np.int64)
    if not len(spans):
        raise SettingsError("The chunking produced no chunks, so no unit can be covered.")
    trimmed = _trimmed(text, units)
    starts = np.array([s for s, _ in spans], dtype=np.int64)
    ends = np.array([e for _, e in spans], dtype=np.int64)
    hi = np.maximum(np.searchsorted(starts, trimmed[:, 0], side="right") - 1, 0)
    lo = np.minimum(np.searchsorted(ends, trimmed[:, 1] - 1, side="right"), len(spans) - 1)
    out = np.where(lo <= hi, 1, lo - hi + 1)
    return np.where(trimmed[:, 1] > trimmed[:, 0], out, 1)


def cut_mask(text: str, spans: Sequence[Span], units: Sequence[Span]) -> np.ndarray:
    """Boolean (n_units,): True where the unit is cut by a chunk boundary (pieces ≥ 2)."""
    return pieces(text, spans, units) >= 2


@dataclass(frozen=True)
class CutStats:
    """One chunking's fragmentation of one set of units."""

    config: ChunkingConfig
    n_units: int
    n_cut: int
    n_chunks: int
    mean_chars: float

    @property
    def rate(self) -> float:
        """Share of units cut: n_cut / n_units (0 when there are no units)."""
        return self.n_cut / self.n_units if self.n_units else 0.0


def cut_stats(
    document: Document,
    config: ChunkingConfig,
    units: Sequence[Span],
    embed: Embed | None = None,
) -> CutStats:
    """Chunk ``document`` under ``config`` and count the ``units`` its boundaries cut."""
    spans = chunk_spans(document, config, embed)
    cut = cut_mask(document.text, spans, units)
    mean = float(np.mean([e - s for s, e in spans])) if spans else 0.0
    return CutStats(config, len(units), int(cut.sum()), len(spans), mean)


# --- the sweep -------------------------------------------------------------------------------


def chars_per_token(text: str) -> float:
    """len(text) / number of o200k_base tokens: converts token sizes to characters."""
    from scar_viz.chunking.tokens import count_tokens

    n = count_tokens(text)
    return len(text) / n if n else 1.0


def in_own_units(
    chunker: str,
    size_chars: int,
    overlap_chars: int,
    scale: float,
    percentile: float = DEFAULT_PERCENTILE,
) -> ChunkingConfig:
    """``chunker`` at about ``size_chars``/``overlap_chars`` characters: token chunkers get
    round(chars / ``scale``) tokens (``scale`` = :func:`chars_per_token`), others the same."""
    if CHUNKERS[chunker].unit != "tokens":
        return ChunkingConfig(chunker, size_chars, overlap_chars, percentile)
    size = max(1, round(size_chars / scale))
    return ChunkingConfig(chunker, size, min(size - 1, round(overlap_chars / scale)), percentile)


def in_characters(config: ChunkingConfig, scale: float) -> tuple[int, int]:
    """(size, overlap) of ``config`` in characters: token counts × ``scale``, rounded."""
    if CHUNKERS[config.chunker].unit != "tokens":
        return config.size, config.overlap
    return round(config.size * scale), round(config.overlap * scale)


def _memo_embed(embed: Embed | None) -> Embed | None:
    """``embed`` that remembers its last answer (a sweep embeds the same sentences each time)."""
    if embed is None:
        return None
    memo: dict[tuple[str, ...], np.ndarray] = {}

    def cached(texts: list[str]) -> np.ndarray:
        key = tuple(texts)
        if key not in memo:
            memo.clear()
            memo[key] = np.asarray(embed(texts))
        return memo[key]

    return cached


@dataclass(frozen=True)
class FragmentationGrid:
    """Cut rates of one chunker over sizes × overlaps (NaN where overlap ≥ size).

    ``sizes`` and ``overlaps`` are in the chunker's unit; ``scale`` converts them to
    characters (1, or characters per token for the ``tokens`` chunker).
    """

    chunker: str
    unit_kind: str
    n_units: int
    sizes: tuple[int, ...]
    overlaps: tuple[int, ...]
    scale: float
    rates: np.ndarray  # (len(sizes), len(overlaps))
    n_chunks: np.ndarray  # (len(sizes), len(overlaps))
    mean_chars: np.ndarray  # (len(sizes), len(overlaps))

    @property
    def size_chars(self) -> np.ndarray:
        return np.asarray(self.sizes, dtype=float) * self.scale

    @property
    def overlap_chars(self) -> np.ndarray:
        return np.asarray(self.overlaps, dtype=float) * self.scale


def fragmentation_grid(
    document: Document,
    chunker: str,
    units: Sequence[Span],
    unit_kind: str = "sentence",
    sizes: Sequence[int] = DEFAULT_SIZES,
    overlaps: Sequence[int] = DEFAULT_OVERLAPS,
    embed: Embed | None = None,
    percentile: float = DEFAULT_PERCENTILE,
    progress: Progress | None = None,
) -> FragmentationGrid:
    """Cut rate of ``units`` for every (size, overlap) with overlap < size.

    ``sizes`` and ``overlaps`` are characters; for the ``tokens`` chunker each is divided by
    :func:`chars_per_token` of the document and rounded (at least 1 token), so all chunkers
    are compared at about the same chunk length.

    Raises:
        ValueError: for an unknown chunker, or when no size is given.
    """
    if chunker not in CHUNKERS:
        raise SettingsError(f"Unknown chunker '{chunker}'.")
    if not len(sizes) or not len(overlaps):
        raise SettingsError("Give at least one chunk size and one overlap.")
    scale = chars_per_token(document.text) if CHUNKERS[chunker].unit == "tokens" else 1.0
    own_sizes = tuple(max(1, round(s / scale)) for s in sizes)
    own_overlaps = tuple(max(0, round(o / scale)) for o in overlaps)
    shape = (len(own_sizes), len(own_overlaps))
    rates, n_chunks, mean = (np.full(shape, np.nan) for _ in range(3))
    embed = _memo_embed(embed)
    total, done = shape[0] * shape[1], 0
    for i, size in enumerate(own_sizes):
        for j, overlap in enumerate(own_overlaps):
            if overlap < size:
                config = ChunkingConfig(chunker, size, overlap, percentile)
                stats = cut_stats(document, config, units, embed)
                rates[i, j], n_chunks[i, j], mean[i, j] = (
                    stats.rate,
                    stats.n_chunks,
                    stats.mean_chars,
                )
            done += 1
            if progress:
                progress(done, total)
    return FragmentationGrid(
        chunker, unit_kind, len(units), own_sizes, own_overlaps, scale, rates, n_chunks, mean
    )
