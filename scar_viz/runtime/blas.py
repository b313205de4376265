"""One BLAS thread for code made of many small matrix products.

The verdict (:mod:`scar_viz.evaluation.recommend`) and the gate fits
(:func:`scar_viz.scoring.learned.fit.fit_folds`) multiply thousands of small matrices; OpenBLAS
spreads each over its threads, which then wait on each other, worst when the cores are shared.
Measured on 2 shared cores at load average 9–11: 77 gate fits × 8,000 rows in 0.93 s with one
thread and 5.9 s with the default; the whole verdict on 1,152 chunks and 248 queries in 67 s
against 116 s (``benchmarks/verdict.py``'s corpus, back to back).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any


def one_blas_thread() -> AbstractContextManager[Any]:
    """A context in which BLAS runs on one thread (threadpoolctl; the previous limits come
    back on exit)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")
