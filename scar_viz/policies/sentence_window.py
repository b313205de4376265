"""Sentence-window retrieval (LlamaIndex ``SentenceWindowNodeParser``, Haystack), docs/method.md §7.

The document's sentences s_1 … s_n are embedded and retrieved like chunks; each hit is
replaced by its window before it reaches the language model:

    H = top-k of s_i = cos(e_q, e_{s_i})        (k the retriever's k)
    context = ∪_{h ∈ H} s_{max(1, h−w)} … s_{min(n, h+w)}      (w = 3 by default in both)

Overlapping windows are sent once (character spans, merged). The sentence split and the
sentence vectors are QASC's (:func:`scar_viz.policies.qasc.document_sentences`), so the two
sentence policies share one encoding of the document. In a corpus a window stops at its hit's
file edge, and windows of two files are never merged.
"""

from __future__ import annotations

import time

import numpy as np

from scar_viz.chunking.qasc import Window, merge_windows
from scar_viz.common.edges import reach
from scar_viz.policies.base import PolicyResult, QueryInputs, policy_entry, span_result
from scar_viz.policies.qasc import document_sentences, sentence_files
from scar_viz.scoring.scar import top_k

DEFAULT_SENTENCE_W = 3


def sentence_windows(scores: np.ndarray, k: int, w: int, doc_of: np.ndarray) -> tuple[Window, ...]:
    """Merged inclusive sentence ranges [h − w, h + w] around the k best sentences h, inside
    h's file (``doc_of``, the file of each sentence; all zeros for one file).

    Raises:
        ValueError: when ``w`` < 0.
    """
    if w < 0:
        raise ValueError("The sentence window w must be 0 or more sentences.")
    n = len(scores)
    hits = top_k(np.asarray(scores, dtype=float), k)
    windows = []
    for h in hits:
        lo, hi = reach(doc_of, n, h)
        windows.append((max(lo, h - w), min(hi - 1, h + w)))
    return merge_windows(windows, doc_of)


def sentence_window_policy(
    inputs: QueryInputs, w: int = DEFAULT_SENTENCE_W, splitter: str = "pysbd"
) -> PolicyResult:
    """The k best sentences, each widened to ±``w`` sentences; ``detail`` = the windows.

    Raises:
        ValueError: when ``inputs.embed`` is missing or ``w`` < 0.
    """
    t0 = time.perf_counter()
    sentences, scores = document_sentences(inputs, splitter)
    k = max(1, int(inputs.params.k))
    windows = sentence_windows(scores, k, int(w), sentence_files(inputs.document, sentences))
    spans = [(sentences[lo][0], sentences[hi][1]) for lo, hi in windows]
    notes = [
        f"{len(sentences)} sentences; top {min(k, len(sentences))} by cos(q, s), each ± {int(w)} "
        f"sentences; {len(windows)} windows after merging."
    ]
    return span_result("sentence-window", inputs, spans, t0, notes=notes, detail=windows)


POLICY = policy_entry("sentence-window", sentence_window_policy)
