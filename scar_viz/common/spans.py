"""Character ranges of a document: the ``Span`` type and set operations on lists of them.

A span is a half-open (start, end) range of character offsets, ``text[start:end]``. Chunks,
sentences, policy contexts and evidence are all spans of one document, so every stage shares
this type; the helpers treat a list of spans as the set of characters it covers.
"""

from __future__ import annotations

from collections.abc import Sequence

Span = tuple[int, int]
"""A half-open (start, end) range of character offsets."""


def merge_spans(spans: Sequence[Span]) -> tuple[Span, ...]:
    """Sorted union of character ranges; touching or overlapping ranges merge, empty ones drop."""
    merged: list[list[int]] = []
    for s, e in sorted(spans):
        if e <= s:
            continue
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return tuple((s, e) for s, e in merged)


def span_total(spans: Sequence[Span]) -> int:
    """Characters covered by ``spans`` (overlaps counted once)."""
    return sum(e - s for s, e in merge_spans(spans))


def intersect_spans(a: Sequence[Span], b: Sequence[Span]) -> tuple[Span, ...]:
    """Character ranges covered by both ``a`` and ``b``, merged and sorted."""
    a, b = merge_spans(a), merge_spans(b)
    out: list[Span] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return merge_spans(out)


def subtract_spans(a: Sequence[Span], b: Sequence[Span]) -> tuple[Span, ...]:
    """Character ranges covered by ``a`` and not by ``b``, merged and sorted."""
    out: list[Span] = []
    b = merge_spans(b)
    j = 0
    for s, e in merge_spans(a):
        while j < len(b) and b[j][1] <= s:
            j += 1
        pos, k = s, j
        while k < len(b) and b[k][0] < e:
            if b[k][0] > pos:
                out.append((pos, b[k][0]))
            pos = max(pos, b[k][1])
            k += 1
        if pos < e:
            out.append((pos, e))
    return merge_spans(out)


def jaccard(a: Sequence[Span], b: Sequence[Span]) -> float:
    """Jaccard overlap over characters: |A ∩ B| / |A ∪ B| (1.0 when both are empty)."""
    union = span_total([*a, *b])
    return 1.0 if union == 0 else span_total(intersect_spans(a, b)) / union
