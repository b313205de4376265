"""The chunking lab's numbers and tables: one chunking's fragmentation of a set of units, the
query types under two chunkings, the per-chunker table, the shortest chunks, and the passage
window. Pure functions; the page (``pages/chunking.py``) renders them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.chunking.fragmentation import UNIT_LABELS, cut_mask
from scar_viz.chunking.registry import CHUNKERS, chunker_name
from scar_viz.common import fmt
from scar_viz.common.errors import UserError, user_message
from scar_viz.common.spans import Span
from scar_viz.documents.reading import Document
from scar_viz.queries.gold import label_queries, type_counts
from scar_viz.queries.reading import QuerySet

PASSAGE_CHARS = 2500
"""Characters of the document view."""
JUMP_BEFORE = 300
"""The document view starts this many characters before a unit jumped to."""


@dataclass(frozen=True)
class ChunkingSummary:
    """Chunking ``label`` ("A" or "B"): its spans and which units (``cut``, one per unit) its
    boundaries cut."""

    label: str
    config: ChunkingConfig
    spans: tuple[Span, ...]
    cut: np.ndarray

    @property
    def n_chunks(self) -> int:
        return len(self.spans)

    @property
    def mean_chars(self) -> float:
        """Mean chunk length in characters (0 without chunks)."""
        return float(np.mean([e - s for s, e in self.spans])) if self.spans else 0.0

    @property
    def n_cut(self) -> int:
        return int(self.cut.sum())

    @property
    def rate(self) -> float:
        """Share of units cut (0 without units)."""
        return float(self.cut.mean()) if len(self.cut) else 0.0

    @property
    def title(self) -> str:
        """``"A: recursive 600/60"``."""
        return f"{self.label}: {self.config.label}"

    @property
    def about(self) -> str:
        """What cut the chunks: the chunker's description, or for an index another tool cut,
        that the chunks are as stored."""
        if self.config.stored:
            return f"Chunks {self.config.label}: cut by that tool, not by scar-viz."
        return CHUNKERS[self.config.chunker].label


def summarise(
    label: str, text: str, config: ChunkingConfig, spans: Sequence[Span], units: Sequence[Span]
) -> ChunkingSummary:
    """Chunking ``label``'s spans and the units (of ``text``) they cut."""
    return ChunkingSummary(label, config, tuple(spans), cut_mask(text, spans, units))


def summary_metrics(s: ChunkingSummary, unit_kind: str) -> list[tuple[str, str, str]]:
    """The three metrics shown per chunking: (label, value, help)."""
    n_units = len(s.cut)
    return [
        (f"{s.label} chunks", str(s.n_chunks), f"{s.label}: {s.config.label}"),
        (f"{s.label} mean chars", f"{s.mean_chars:.0f}", "mean chunk length in characters"),
        (
            f"{s.label} units cut",
            fmt.percent(s.rate, 1),
            f"{s.n_cut} of {n_units} {UNIT_LABELS[unit_kind]}",
        ),
    ]


def metric_rows(
    summaries: Sequence[ChunkingSummary], unit_kind: str, per_row: int = 6
) -> list[list[tuple[str, str, str]]]:
    """Every chunking's :func:`summary_metrics`, in rows of ``per_row`` (3 in presenter mode,
    so that large labels and values are not truncated)."""
    flat = [m for s in summaries for m in summary_metrics(s, unit_kind)]
    return [flat[i : i + per_row] for i in range(0, len(flat), max(1, per_row))]


def type_rows(
    qset: QuerySet, document: Document, summaries: Sequence[ChunkingSummary]
) -> tuple[list[dict[str, object]], list[str]]:
    """Query types (fragmented / atomic / scattered) under each chunking, one row each, and a
    message per chunking whose chunks the evidence cannot be mapped to."""
    rows, problems = [], []
    for s in summaries:
        try:
            counts = type_counts(label_queries(qset, document, list(s.spans)))
        except (UserError, ValueError) as exc:
            problems.append(f"{s.label}: the evidence cannot be mapped to chunks: {exc}")
            continue
        rows.append({"chunking": s.title, **counts})
    return rows, problems


def chunker_row(name: str, s: ChunkingSummary) -> dict[str, object]:
    """One row of the per-chunker table."""
    return {
        "chunker": chunker_name(name),
        "setting": s.config.label,
        "chunks": s.n_chunks,
        "mean chars": round(s.mean_chars),
        "units cut": s.n_cut,
        "% cut": round(100 * s.rate, 1),
    }


def failed_chunker(name: str, exc: Exception) -> str:
    """The warning for a chunker that could not run."""
    return f"{chunker_name(name)}: {user_message(exc)}"


def shortest_chunks(text: str, spans: Sequence[Span], n: int = 8) -> list[dict[str, object]]:
    """The ``n`` shortest chunks (by non-whitespace length, then position): chunk, start, end,
    characters and the text's first 80 characters on one line. A chunk made of a heading
    alone shows up here first."""
    order = sorted(range(len(spans)), key=lambda i: (len(text[slice(*spans[i])].strip()), i))
    return [
        {
            "chunk": i,
            "start": spans[i][0],
            "end": spans[i][1],
            "chars": spans[i][1] - spans[i][0],
            "text": " ".join(text[slice(*spans[i])].split())[:80],
        }
        for i in order[:n]
    ]


def cut_unit_options(
    text: str, units: Sequence[Span], cut: np.ndarray, limit: int = 200
) -> dict[int, str]:
    """Start of each cut unit (at most ``limit``) -> its label in the jump select:
    ``"at 1,234: first words …"``."""
    picked = [units[i] for i in np.flatnonzero(cut)[:limit]]
    return {int(s): f"at {s:,}: {' '.join(text[s : s + 60].split())[:60]}" for s, _ in picked}


def cut_units(units: Sequence[Span], cut: np.ndarray) -> list[Span]:
    """The units a chunking cuts."""
    return [units[int(i)] for i in np.flatnonzero(cut)]


def unit_kinds(has_evidence: bool) -> list[str]:
    """The unit kinds the lab offers: evidence spans first when a query set gives some."""
    return (["evidence"] if has_evidence else []) + ["sentence", "paragraph"]


def last_position(text: str) -> int:
    """The last character the document view may start at."""
    return max(0, len(text) - 1)


def jump_position(unit_start: int) -> int:
    """Where the document view starts to show the unit at ``unit_start`` with some context."""
    return max(0, int(unit_start) - JUMP_BEFORE)


def passage_window(pos: int, text_len: int, size: int = PASSAGE_CHARS) -> tuple[int, int]:
    """The document view's (lo, hi): ``size`` characters from ``pos``, inside the text."""
    lo = min(max(0, int(pos)), max(0, text_len - 1))
    return lo, min(text_len, lo + size)


@dataclass(frozen=True)
class FileView:
    """One file of the document as the lab's document view draws it: its ``text``, and each
    chunking's spans, the units and each chunking's cut mask over them, all in the file's own
    character positions (a single document is its one file)."""

    text: str
    spans: dict[str, list[Span]]
    units: list[Span]
    cuts: dict[str, np.ndarray]


def file_view(
    text: str,
    extent: Span,
    spans: dict[str, Sequence[Span]],
    units: Sequence[Span],
    cuts: dict[str, np.ndarray],
) -> FileView:
    """The file ``text[extent[0]:extent[1]]``: the spans and units inside it (a chunk or unit
    never crosses a file), shifted to start at 0, with the cut masks of those units."""
    a, b = extent
    inside = [i for i, (s, e) in enumerate(units) if a <= s and e <= b]
    return FileView(
        text[a:b],
        {t: [(s - a, e - a) for s, e in sp if a <= s and e <= b] for t, sp in spans.items()},
        [(units[i][0] - a, units[i][1] - a) for i in inside],
        {t: np.asarray(m, dtype=bool)[inside] for t, m in cuts.items()},
    )
