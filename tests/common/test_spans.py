"""Span arithmetic against a boolean-mask reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scar_viz.common.spans import intersect_spans, jaccard, merge_spans, span_total, subtract_spans

spans_st = st.lists(
    st.tuples(st.integers(0, 60), st.integers(0, 20)).map(lambda t: (t[0], t[0] + t[1])),
    max_size=8,
)


def _mask(spans, n: int = 100) -> np.ndarray:
    m = np.zeros(n, bool)
    for s, e in spans:
        m[s:e] = True
    return m


def _spans_of(mask: np.ndarray) -> tuple[tuple[int, int], ...]:
    idx = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(int), [0]])))
    return tuple((int(a), int(b)) for a, b in zip(idx[::2], idx[1::2], strict=True))


@given(spans_st, spans_st)
def test_span_arithmetic_matches_masks(a, b):
    ma, mb = _mask(a), _mask(b)
    assert merge_spans(a) == _spans_of(ma)
    assert intersect_spans(a, b) == _spans_of(ma & mb)
    assert subtract_spans(a, b) == _spans_of(ma & ~mb)
    assert span_total(a) == ma.sum()
    union = (ma | mb).sum()
    assert jaccard(a, b) == pytest.approx((ma & mb).sum() / union if union else 1.0)


def test_jaccard_by_hand():
    assert jaccard([(0, 10)], [(5, 15)]) == pytest.approx(5 / 15)
    assert jaccard([(0, 10)], [(20, 30)]) == 0.0


def test_merge_spans_joins_touching_and_drops_empty_ranges():
    assert merge_spans([(5, 9), (0, 5), (12, 12), (20, 15)]) == ((0, 9),)
