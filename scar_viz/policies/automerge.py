"""Auto-merging retrieval (LlamaIndex ``AutoMergingRetriever``), docs/method.md §7.

Leaves are the chunks c_1 … c_N; the parent P(c) of a chunk is the section holding its start
(``Document.sections``, the parent policy's section, ``chunk.section``); children(p) = the
chunks whose parent is p. Starting from S = top-k chunks, repeat until nothing changes:

    fill:  i ∈ S, i + 2 ∈ S, i + 1 ∉ S  ⇒  S ← S ∪ {i + 1}           (a single gap is filled)
    merge: |S ∩ children(p)| / |children(p)| > ρ  ⇒  p replaces them: S ← S ∪ children(p)

ρ = 0.5 (LlamaIndex's ``simple_ratio_thresh``). The context is every merged section whole
(heading and all) plus the remaining leaves, in document order. Differences from LlamaIndex:
one level of parents (the section), not a 2048/512/128 chunk hierarchy; gaps are judged in
document order (LlamaIndex checks consecutive nodes of its result list). In a corpus a gap is
filled only inside one file, and a merged section is sent without the blank line joining it to
the next file (LlamaIndex likewise links nodes within one source only).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.common.edges import same_file
from scar_viz.common.spans import Span
from scar_viz.documents.reading import Document
from scar_viz.policies.base import (
    PolicyResult,
    QueryInputs,
    policy_entry,
    span_result,
    spans_of_chunks,
)

DEFAULT_RATIO = 0.5


@dataclass(frozen=True)
class MergeResult:
    """Selected leaves (merged sections' children included), the merged section indices and
    the leaves added by gap filling."""

    selected: tuple[int, ...]
    merged: tuple[int, ...]
    filled: tuple[int, ...]


def auto_merge(
    retrieved: Sequence[int],
    parents: Sequence[int],
    ratio: float = DEFAULT_RATIO,
    fill_gaps: bool = True,
    *,
    doc_of: np.ndarray,
) -> MergeResult:
    """Run fill and merge to a fixed point.

    Args:
        retrieved: leaf indices the retriever returned.
        parents: parents[i] = the parent id of leaf i (any hashable int), length N.
        ratio: a parent replaces its children when more than this share of them is selected.
        doc_of: (N,) the file of each leaf (all zeros for one file): a gap between
            two files' leaves is not filled.

    Raises:
        ValueError: when ``ratio`` is outside [0, 1].
    """
    if not 0.0 <= ratio <= 1.0:
        raise ValueError("The merge ratio must lie between 0 and 1.")
    children: dict[int, list[int]] = {}
    for i, p in enumerate(parents):
        children.setdefault(int(p), []).append(i)
    sel = {int(i) for i in retrieved}
    merged: set[int] = set()
    filled: set[int] = set()
    changed = True
    while changed:
        changed = False
        if fill_gaps:
            for i in sorted(sel):
                if i + 2 in sel and i + 1 not in sel and same_file(doc_of, i, i + 2):
                    sel.add(i + 1)
                    filled.add(i + 1)
                    changed = True
        for p, kids in children.items():
            if p in merged:
                continue
            if sum(k in sel for k in kids) / len(kids) > ratio:
                merged.add(p)
                sel.update(kids)
                changed = True
    return MergeResult(tuple(sorted(sel)), tuple(sorted(merged)), tuple(sorted(filled)))


_last_parents: list[tuple[Document, Sequence[Chunk], tuple[int, ...]]] = []


def chunk_parents(document: Document, chunks: Sequence[Chunk]) -> list[int]:
    """parents[i] = index in ``document.sections`` of the section holding chunk i's start
    (remembered for the last document and chunk list: an evaluation asks once per query)."""
    last = _last_parents[0] if _last_parents else None
    if last is not None and last[0] is document and last[1] is chunks:
        return list(last[2])
    parents = tuple(document.section_index_at(c.start) for c in chunks)
    _last_parents[:] = [(document, chunks, parents)]
    return list(parents)


def _in_file(document: Document, index: int) -> Span:
    """Section ``index``'s span, clipped to its file (a corpus' last section of a file holds
    the blank line before the next one)."""
    sec = document.sections[index]
    lo, hi = document.part_range(sec.start)
    return max(sec.start, lo), min(sec.end, hi)


def automerge_policy(
    inputs: QueryInputs, ratio: float = DEFAULT_RATIO, fill_gaps: bool = True
) -> PolicyResult:
    """Top-k leaves, single gaps filled, sections with more than ``ratio`` of their chunks
    retrieved sent whole; ``chunk_ids`` = the selected leaves, ``detail`` a MergeResult.

    Raises:
        ValueError: when ``ratio`` is outside [0, 1].
    """
    t0 = time.perf_counter()
    doc, chunks = inputs.document, inputs.chunks
    retrieved = inputs.top(max(1, int(inputs.params.k)))
    parents = chunk_parents(doc, chunks)
    res = auto_merge(retrieved, parents, float(ratio), bool(fill_gaps), doc_of=inputs.doc_of)
    sections = [_in_file(doc, p) for p in res.merged]
    spans = [*spans_of_chunks(chunks, res.selected), *sections]
    notes = [
        f"retrieved {sorted(retrieved)}; filled {list(res.filled) or 'no gap'}; "
        f"merged {len(res.merged)} section(s) with > {ratio:g} of their chunks retrieved"
        + (": " + "; ".join(doc.shown_sections[p].label for p in res.merged) if res.merged else ".")
    ]
    return span_result(
        "automerge", inputs, spans, t0, chunk_ids=res.selected, notes=notes, detail=res
    )


POLICY = policy_entry("automerge", automerge_policy)
