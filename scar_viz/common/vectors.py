"""Unit-norm rows: the one normaliser that the scoring and the embedders share."""

from __future__ import annotations

import numpy as np


def normalize(x: np.ndarray, dtype: type = np.float64) -> np.ndarray:
    """Rows of ``x`` (as ``dtype``) scaled to unit L2 norm; zero rows stay zero."""
    x = np.asarray(x, dtype=dtype)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return np.divide(x, norms, out=np.zeros_like(x), where=norms > 0)
