"""Cutting a document into chunks that keep their character offsets.

Every chunk satisfies ``document.text[chunk.start:chunk.end] == chunk.text``. Six chunkers sit
behind one interface (:data:`CHUNKERS`, name -> ``fn(text, size, overlap, **options)`` returning
sorted (start, end) spans); METHODS.md §6 names them:

- ``recursive`` (the default): langchain-text-splitters' ``RecursiveCharacterTextSplitter``
  at 600/60 (METHODS.md §1), used as is so boundaries match the published setting exactly.
- ``fixed``: fixed-size character windows, langchain's ``CharacterTextSplitter`` with an
  empty separator (windows of ``size`` characters that start ``size - overlap`` apart, edge
  whitespace stripped).
- ``tokens``: fixed-size windows of ``o200k_base`` tokens, the app's tokenizer
  (:mod:`scar_viz.chunking.tokens`). Own code, because langchain's ``TokenTextSplitter`` needs
  tiktoken to download its vocabulary and returns decoded strings, not offsets (a window that
  cuts a multi-byte character decodes to U+FFFD, which is no substring of the document);
  bpe-openai's ``decode_with_offsets`` gives each token's code-point offset instead.
- ``sentence``: greedy sentence packing over :func:`scar_viz.documents.sentences.sentence_spans`
  (pysbd). Own code, because langchain's NLTK and spaCy splitters need model downloads and
  drop offsets.
- ``semantic``: sentence packing that also cuts wherever the cosine similarity of two
  consecutive units falls below the ``percentile``-th percentile of all such
  similarities in the document, using the embedder in use. Units are sentences grouped by
  line: no cut inside a line (unless the line alone exceeds ``size``), a heading stays with
  what follows it, and a similarity cut needs min(size // 10, 60) characters since the last.
  Own code, because langchain's ``SemanticChunker`` lives in langchain-experimental (not
  installed) and returns no offsets.
- ``section``: never crosses a heading detected by :mod:`scar_viz.documents.reading`; each section
  is split recursively. Own code composed of the recursive splitter, because langchain's
  header splitters know markdown only and drop offsets.

``size`` and ``overlap`` count characters, except for ``tokens``, which counts tokens.
Chunks are stripped of whitespace at their edges (as langchain's splitters do), so whitespace
between chunks may belong to no chunk; whitespace-only chunks are dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from scar_viz.documents.reading import FRONT_MATTER, Document, Section, detect_sections
from scar_viz.documents.sentences import strip_span
from scar_viz.embeddings.vectors import normalize
from scar_viz.errors import SettingsError
from scar_viz.fmt import join_words

DEFAULT_CHUNK_SIZE = 600
DEFAULT_OVERLAP = 60
DEFAULT_PERCENTILE = 10.0
"""Semantic chunker: cut where consecutive-sentence similarity is below this percentile."""

Span = tuple[int, int]
Embed = Callable[[list[str]], np.ndarray]
"""Embeds texts with the model in use: list of n texts -> (n, d) array."""


@dataclass(frozen=True)
class Chunk:
    """``document.text[start:end] == text``; ``section`` is the path of the section at ``start``."""

    index: int
    start: int
    end: int
    text: str
    section: tuple[str, ...] = ()

    @property
    def section_label(self) -> str:
        return " > ".join(self.section) if self.section else FRONT_MATTER


@dataclass(frozen=True)
class ChunkingConfig:
    """How to chunk: the chunker's name, its target size and overlap, and its knobs.

    ``size`` and ``overlap`` are characters (tokens for the ``tokens`` chunker);
    ``percentile`` is used by the ``semantic`` chunker only.
    """

    chunker: str = "recursive"
    size: int = DEFAULT_CHUNK_SIZE
    overlap: int = DEFAULT_OVERLAP
    percentile: float = DEFAULT_PERCENTILE

    def validate(self) -> None:
        if self.chunker not in CHUNKERS:
            raise SettingsError(
                f"Unknown chunker '{self.chunker}'; choose one of "
                f"{join_words(sorted(CHUNKERS), 'or')}."
            )
        if self.size < 1:
            raise SettingsError("Chunk size must be at least 1 character.")
        if self.overlap < 0:
            raise SettingsError("Overlap cannot be negative.")
        if self.overlap >= self.size:
            raise SettingsError(
                f"Overlap ({self.overlap}) must be smaller than chunk size ({self.size})."
            )
        if not 0.0 <= self.percentile <= 100.0:
            raise SettingsError(f"The percentile must be between 0 and 100, not {self.percentile}.")

    @property
    def needs_embed(self) -> bool:
        """True when chunking needs the embedding model (the semantic chunker)."""
        return CHUNKER_INFO[self.chunker].needs_embed if self.chunker in CHUNKER_INFO else False

    @property
    def label(self) -> str:
        unit = " tokens" if self.chunker == "tokens" else ""
        knob = f" p{self.percentile:g}" if self.chunker == "semantic" else ""
        return f"{self.chunker} {self.size}/{self.overlap}{unit}{knob}"


# --- helpers -----------------------------------------------------------------------------


def _locate(text: str, pieces: list[str], overlap: int) -> list[Span]:
    """Offsets of consecutive ``pieces`` in ``text``, searched forward like langchain does."""
    spans: list[Span] = []
    index, previous = 0, 0
    for piece in pieces:
        offset = max(0, index + previous - overlap)
        found = text.find(piece, offset)
        if found < 0:  # the forward guess overshot (repeated text): search from the last start
            found = text.find(piece, spans[-1][0] if spans else 0)
        if found < 0:
            raise RuntimeError("A chunk is not a substring of the document.")  # splitter bug
        index, previous = found, len(piece)
        spans.append((found, found + len(piece)))
    return spans


def _shift(spans: list[Span], offset: int) -> list[Span]:
    return [(s + offset, e + offset) for s, e in spans]


# --- the chunkers ------------------------------------------------------------------------


def split_recursive(text: str, size: int, overlap: int) -> list[Span]:
    """Spans of langchain's ``RecursiveCharacterTextSplitter(size, overlap)`` over ``text``."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap)
    return _locate(text, splitter.split_text(text), overlap)


def split_fixed(text: str, size: int, overlap: int) -> list[Span]:
    """Fixed character windows: [i·(size − overlap), i·(size − overlap) + size), edges stripped.

    langchain's ``CharacterTextSplitter(separator="")`` merges single characters into windows
    of ``size`` and carries the last ``overlap`` characters into the next window.
    """
    from langchain_text_splitters import CharacterTextSplitter

    splitter = CharacterTextSplitter(separator="", chunk_size=size, chunk_overlap=overlap)
    return _locate(text, splitter.split_text(text), overlap)


@lru_cache(maxsize=4)
def _token_starts(text: str) -> tuple[int, ...]:
    """Code-point offset where each o200k_base token of ``text`` starts."""
    from scar_viz.chunking.tokens import encoding

    enc = encoding()
    _, starts = enc.decode_with_offsets(enc.encode(text, disallowed_special=()))
    return tuple(starts)


def split_tokens(text: str, size: int, overlap: int) -> list[Span]:
    """Windows of ``size`` o200k_base tokens starting every ``size − overlap`` tokens.

    Window i covers tokens [i·step, i·step + size) and the characters from the first token's
    start to the next window-external token's start, edges stripped.
    """
    starts = _token_starts(text) if text else ()
    bounds = [*starts, len(text)]
    n, step = len(starts), size - overlap
    spans: list[Span] = []
    for i in range(0, n, step):
        j = min(i + size, n)
        span = strip_span(text, bounds[i], bounds[j])
        if span and (not spans or span != spans[-1]):
            spans.append(span)
        if j == n:
            break
    return spans


def _sentence_units(text: str) -> list[Span]:
    from scar_viz.documents.sentences import sentence_spans

    return list(sentence_spans(text))


def _pack(
    text: str,
    units: list[Span],
    breaks: set[int],
    size: int,
    overlap: int,
    headed: dict[int, int] | None = None,
) -> list[Span]:
    """Greedy packing of consecutive ``units`` into chunks of at most ``size`` characters.

    A unit longer than ``size`` is split recursively; when the unit starts with heading lines
    (``headed``: unit index -> where its body starts), the pieces that hold only the heading
    are joined to the next piece, so a heading is never a chunk of its own (that chunk may
    exceed ``size`` by the heading's length). A new chunk always starts at a unit whose index
    is in ``breaks`` (no overlap across it). Elsewhere, when the next unit does not fit, the
    next chunk repeats the trailing whole units of the previous one that fit in ``overlap``
    characters (and leave room for the next unit).
    """
    headed = headed or {}
    pieces: list[Span] = []
    hard: list[bool] = []
    for i, (s, e) in enumerate(units):
        parts = _shift(split_recursive(text[s:e], size, overlap), s) if e - s > size else [(s, e)]
        while i in headed and len(parts) > 1 and parts[0][1] <= headed[i]:
            parts = [(parts[0][0], parts[1][1]), *parts[2:]]
        for j, part in enumerate(parts):
            pieces.append(part)
            hard.append(i in breaks and j == 0)
    spans: list[Span] = []
    first, i = 0, 0
    while i < len(pieces):
        if i > first and (hard[i] or pieces[i][1] - pieces[first][0] > size):
            spans.append((pieces[first][0], pieces[i - 1][1]))
            nxt = i
            while (
                not hard[i]
                and nxt - 1 > first
                and pieces[i - 1][1] - pieces[nxt - 1][0] <= overlap
                and pieces[i][1] - pieces[nxt - 1][0] <= size
            ):
                nxt -= 1
            first = nxt
        i += 1
    if pieces:
        spans.append((pieces[first][0], pieces[-1][1]))
    return spans


def split_sentences(text: str, size: int, overlap: int) -> list[Span]:
    """Sentences (pysbd) packed greedily into chunks of at most ``size`` characters."""
    return _pack(text, _sentence_units(text), set(), size, overlap)


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
    :func:`scar_viz.documents.reading.detect_sections`) is merged into the unit after it.

    Returns:
        The units, the indices of the units that start a line (where a cut may go), and for
        each unit that starts with a heading, where its body starts.
    """
    sentences = _sentence_units(text)
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
        return _pack(text, units, set(), size, overlap, headed)
    vectors = np.asarray(embed([text[s:e] for s, e in units]))
    if vectors.shape[0] != len(units):
        raise SettingsError("The embedder returned a different number of vectors than sentences.")
    breaks = semantic_breaks(vectors, percentile) & line_starts
    spaced = _spaced(units, breaks, min(size // 10, 60))
    return _pack(text, units, spaced, size, overlap, headed)


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


def split_sections(
    text: str, size: int, overlap: int, *, sections: tuple[Section, ...] | None = None
) -> list[Span]:
    """Each detected section split on its own by the recursive splitter: no chunk crosses a
    heading. ``sections`` default to :func:`scar_viz.documents.reading.detect_sections` of
    ``text``."""
    spans: list[Span] = []
    for section in sections if sections is not None else detect_sections(text):
        sub = text[section.start : section.end]
        if sub.strip():
            spans.extend(_shift(split_recursive(sub, size, overlap), section.start))
    return spans


Splitter = Callable[..., list[Span]]


@dataclass(frozen=True)
class ChunkerInfo:
    """What the UI and the CLI say about a chunker, and which options it takes."""

    label: str
    unit: str = "characters"
    needs_embed: bool = False
    needs_sections: bool = False
    name: str = ""
    """The short human name a select shows (``label`` is the long description)."""


CHUNKERS: dict[str, Splitter] = {
    "recursive": split_recursive,
    "fixed": split_fixed,
    "tokens": split_tokens,
    "sentence": split_sentences,
    "semantic": split_semantic,
    "section": split_sections,
}
"""Chunker name -> function (text, size, overlap, **options) -> list of (start, end) spans in
order. ``semantic`` also takes ``embed`` and ``percentile``; ``section`` takes ``sections``."""

CHUNKER_INFO: dict[str, ChunkerInfo] = {
    "recursive": ChunkerInfo(
        "Recursive characters (langchain; the reference)", name="Recursive (langchain)"
    ),
    "fixed": ChunkerInfo("Fixed-size characters", name="Fixed characters"),
    "tokens": ChunkerInfo("Fixed-size tokens (o200k_base)", unit="tokens", name="Fixed tokens"),
    "sentence": ChunkerInfo("Sentence packing (pysbd)", name="Sentence packing"),
    "semantic": ChunkerInfo(
        "Semantic (similarity drop between sentences)", needs_embed=True, name="Semantic"
    ),
    "section": ChunkerInfo(
        "Section-aware (never crosses a heading)", needs_sections=True, name="Section-aware"
    ),
}

CHUNKER_NAMES: dict[str, str] = {key: info.name for key, info in CHUNKER_INFO.items()}
"""Chunker id -> the short human name a select shows (the long description is in
:data:`CHUNKER_INFO`)."""


def chunk_spans(
    document: Document, config: ChunkingConfig | None = None, embed: Embed | None = None
) -> list[Span]:
    """The (start, end) spans ``config``'s chunker cuts ``document`` into, in order."""
    config = config or ChunkingConfig()
    config.validate()
    info = CHUNKER_INFO[config.chunker]
    options: dict[str, object] = {}
    if info.needs_embed:
        options.update(embed=embed, percentile=config.percentile)
    if info.needs_sections:
        options["sections"] = document.sections
    return CHUNKERS[config.chunker](document.text, config.size, config.overlap, **options)


def chunk_document(
    document: Document, config: ChunkingConfig | None = None, embed: Embed | None = None
) -> list[Chunk]:
    """Chunk ``document`` under ``config`` (default: recursive 600/60).

    Args:
        embed: the embedding model in use, for chunkers that need one (``semantic``).

    Raises:
        ValueError: for an invalid configuration (e.g. overlap >= size), or a chunker that
            needs ``embed`` without it.
    """
    text = document.text
    return [
        Chunk(i, s, e, text[s:e], document.section_at(s).path)
        for i, (s, e) in enumerate(chunk_spans(document, config, embed))
    ]


def embedding_texts(chunks: list[Chunk], prepend_section: bool = False) -> list[str]:
    """The texts to embed: the chunk text, or with contextual prepending its section path first.

    The prefix changes only what is embedded, never what is shown or counted as context.
    """
    if not prepend_section:
        return [c.text for c in chunks]
    return [f"{c.section_label}\n\n{c.text}" if c.section else c.text for c in chunks]
