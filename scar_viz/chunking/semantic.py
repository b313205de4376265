"""The ``semantic`` chunker: sentence packing that also cuts wherever the cosine similarity of
two consecutive units falls below the ``percentile``-th percentile of all such similarities in
the document, using the embedder in use (docs/method.md §6).

Units are sentences grouped by line: no cut inside a line (unless the line alone exceeds
``size``), a heading stays with what follows it, and a similarity cut needs
min(size // 10, 60) characters since the last. Own code, because langchain's
``SemanticChunker`` lives in langchain-experimental (not installed) and returns no offsets.
"""

from __future__ import annotations

import numpy as np

from scar_viz.chunking.base import DEFAULT_PERCENTILE, Chunker, Embed
from scar_viz.chunking.sentence import pack, sentence_units
from scar_viz.common.errors import SettingsError
from scar_viz.common.spans import Span
from scar_viz.common.vectors import normalize
from scar_viz.documents.sections import detect_sections


def semantic_breaks(vectors: np.ndarray, percentile: float) -> set[int]:
    """Indices i (≥ 1) of the sentences that start a new chunk.

    sim_i = cos(e_{s_{i−1}}, e_{s_i}); a break precedes sentence i iff
    sim_i < P_percentile({sim_1, …, sim_{n−1}}).
    """
    if len(vectors) < 2:
        return set()
    v = normalize(vectors)
    sims = np.einsum("ij,ij->i", v[:-1], v[1:])
    threshold = np.percentile(sims, percentile)
    return {int(i) + 1 for i in np.flatnonzero(sims < threshold)}


def _line_units(text: str, size: int) -> tuple[list[Span], set[int], dict[int, int]]:
    """Sentences grouped so that no unit boundary falls inside a line, with each heading
    joined to what follows it.

    Sentences on the same line form one unit; a line longer than ``size`` keeps its sentences
    as separate units (the only cuts allowed inside a line). A heading line (as detected by
    :func:`scar_viz.documents.sections.detect_sections`) is merged into the unit after it.

    Returns:
        The units, the indices of the units that start a line (where a cut may go), and for
        each unit that starts with a heading, where its body starts.
    """
    sentences = sentence_units(text)
    lines: list[list[Span]] = []
    for span in sentences:
        if lines and "\n" not in text[lines[-1][-1][1] : span[0]]:
            lines[-1].append(span)
        else:
            lines.append([span])
    units: list[Span] = []
    line_starts: set[int] = set()
    for group in lines:
        line_starts.add(len(units))
        if group[-1][1] - group[0][0] <= size:
            units.append((group[0][0], group[-1][1]))
        else:
            units.extend(group)
    headings = {sec.start for sec in detect_sections(text) if sec.path}
    merged: list[Span] = []
    starts: set[int] = set()
    headed: dict[int, int] = {}
    pending: int | None = None  # start of heading lines waiting for their body
    for i, (a, b) in enumerate(units):
        first = a if pending is None else pending
        if _line_start(text, a) in headings and i + 1 < len(units):
            pending = first
            continue
        if i in line_starts or pending is not None:
            starts.add(len(merged))
        if pending is not None:
            headed[len(merged)] = a
        merged.append((first, b))
        pending = None
    if pending is not None:
        merged.append((pending, units[-1][1]))
    return merged, starts, headed


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def split_semantic(
    text: str,
    size: int,
    overlap: int,
    *,
    embed: Embed | None = None,
    percentile: float = DEFAULT_PERCENTILE,
) -> list[Span]:
    """Sentence packing with extra cuts where consecutive units' similarity drops.

    The units are sentences grouped by line (:func:`_line_units`): a cut never falls inside
    a line unless the line alone is longer than ``size``, and a heading stays with what
    follows it (even when heading and body together exceed ``size``). Similarity cuts happen
    only at the start of a line, and at least min(size // 10, 60) characters after the
    previous one.

    Raises:
        ValueError: without ``embed`` (the chunker needs the embedding model in use).
    """
    if embed is None:
        raise SettingsError("The semantic chunker needs an embedding model to compare sentences.")
    units, line_starts, headed = _line_units(text, size)
    if len(units) < 2:
        return pack(text, units, set(), size, overlap, headed)
    vectors = np.asarray(embed([text[s:e] for s, e in units]))
    if vectors.shape[0] != len(units):
        raise SettingsError("The embedder returned a different number of vectors than sentences.")
    breaks = semantic_breaks(vectors, percentile) & line_starts
    spaced = _spaced(units, breaks, min(size // 10, 60))
    return pack(text, units, spaced, size, overlap, headed)


def _spaced(units: list[Span], breaks: set[int], min_chars: int) -> set[int]:
    """The breaks that leave at least ``min_chars`` characters since the previous one (so a
    run of dissimilar short lines, such as a price list, is not cut into one-line chunks)."""
    kept: set[int] = set()
    last = units[0][0] if units else 0
    for i in sorted(breaks):
        if units[i][0] - last >= min_chars:
            kept.add(i)
            last = units[i][0]
    return kept


CHUNKER = Chunker(
    "semantic",
    split_semantic,
    name="Semantic",
    label="Semantic (similarity drop between sentences)",
    needs_embed=True,
)
