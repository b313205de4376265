"""Marks and labels along one axis that never overlap: group close marks, drop crowded labels.

The document overview puts a mark above every retrieved, admitted or rejected chunk. At a
few hundred chunks, marks of neighbouring chunks fall within one marker's width of each
other, and their rank labels run into each other. This module decides, in pixels, where each
mark and label goes so that no two boxes intersect (touching is allowed):

- :func:`group_marks`: walking the chunks of one kind left to right, a chunk whose marker
  would reach into the previous mark's box joins that mark instead, which then stands for
  several chunks and shows their count ("×3") to its right. A mark sits at its first chunk.
- :func:`place_labels`: labels in order of importance (best rank first), each centred over its
  mark (moved inwards at the plot's edges), in the first of a few rows where it touches no
  label already placed; a label that fits in none is dropped (the chart's hover and the hits
  list still name every rank).

Pixel positions assume a plot ``width`` px wide on an x axis from -0.5 to n - 0.5 (one unit a
chunk). Marker and text sizes are fixed in pixels while the distances between chunks grow with
the plot's width, so a placement made for width W holds at every width ≥ W.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

CHAR_EM = 0.62
"""Width of one character as a fraction of the font size: a little above a digit's width
in the sans-serif fonts plotly uses, so an estimated label box contains the drawn one."""
TEXT_PAD = 2.0
"""Pixels added to every estimated text width."""


@dataclass(frozen=True)
class Mark:
    """One drawn mark. ``x`` is in chunk units (the first member); ``members`` are the chunks it
    stands for, in document order."""

    x: int
    members: tuple[int, ...]

    @property
    def count(self) -> int:
        return len(self.members)


@dataclass(frozen=True)
class Label:
    """One placed label: centred at ``x`` (chunk units) in label row ``row`` (0 = nearest the
    marks), naming mark number ``mark`` of the list it was placed for."""

    x: float
    row: int
    text: str
    mark: int


def text_width(text: str, font_px: float) -> float:
    """Estimated pixel width of ``text`` at ``font_px`` (an upper bound for digits and words)."""
    return len(text) * CHAR_EM * font_px + TEXT_PAD


def count_text(count: int) -> str:
    """What a mark standing for ``count`` chunks shows beside it ("" for one chunk)."""
    return f"×{count}" if count > 1 else ""


def to_px(x: float, n: int, width: float) -> float:
    """Pixel position of chunk coordinate ``x`` on a ``width``-px plot of ``n`` chunks."""
    return (x + 0.5) / max(n, 1) * width


def to_x(px: float, n: int, width: float) -> float:
    """Inverse of :func:`to_px`."""
    return px / width * max(n, 1) - 0.5


def group_marks(
    positions: Sequence[int] | np.ndarray,
    n: int,
    width: float,
    mark_px: float,
    tail_px: Callable[[int], float] | None = None,
) -> list[Mark]:
    """Marks for the chunks ``positions`` of one kind, no two of whose boxes intersect.

    A mark's box is ``mark_px`` wide, centred on its first chunk, plus ``tail_px(count)`` to
    its right (room for the count; 0 for one chunk). A chunk whose own box would start inside
    the current mark's box joins that mark. Every position ends up in exactly one mark.
    """
    tail = tail_px or (lambda count: 0.0)
    marks: list[list[int]] = []
    end = -np.inf
    for p in sorted(int(c) for c in positions):
        left = to_px(p, n, width) - mark_px / 2
        if marks and left < end:
            marks[-1].append(p)
        else:
            marks.append([p])
        first = to_px(marks[-1][0], n, width)
        count = len(marks[-1])
        end = first + mark_px / 2 + (tail(count) if count > 1 else 0.0)
    return [Mark(m[0], tuple(m)) for m in marks]


def count_tail(font_px: float, offset_px: float) -> Callable[[int], float]:
    """``tail_px`` for :func:`group_marks`: the count text's width plus its offset from the mark."""
    return lambda count: offset_px + text_width(count_text(count), font_px)


def place_labels(
    marks: Sequence[Mark],
    texts: Sequence[str],
    order: Sequence[int],
    n: int,
    width: float,
    font_px: float,
    rows: int = 2,
    gap_px: float = 2.0,
) -> list[Label]:
    """Labels ``texts[i]`` over ``marks[i]``, no two of whose boxes intersect.

    Tried in ``order`` (mark numbers, most important first); each goes in the first of ``rows``
    rows where its box (:func:`text_width` wide, plus ``gap_px`` each side) meets no placed
    box, centred on its mark or moved just inside the plot's edge; otherwise it is dropped.
    """
    placed: list[list[tuple[float, float]]] = [[] for _ in range(rows)]
    out: list[Label] = []
    for i in order:
        half = text_width(texts[i], font_px) / 2 + gap_px
        centre = min(max(to_px(marks[i].x, n, width), half), max(width - half, half))
        box = (centre - half, centre + half)
        for row, taken in enumerate(placed):
            if all(box[1] <= a or b <= box[0] for a, b in taken):
                taken.append(box)
                out.append(Label(to_x(centre, n, width), row, texts[i], i))
                break
    return out
