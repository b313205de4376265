"""Offline sentence splitting with exact character offsets (QASC's step 1, docs/method.md §5).

The splitter is pysbd (rule-based; its rules ship inside its wheel, so nothing is downloaded).
Every span satisfies ``text[start:end] == sentence``, is stripped of surrounding whitespace, and
spans are sorted and disjoint. pysbd is used *without* its ``char_span`` option, because that
option is unreliable: it re-finds each sentence with a regex over the whole text (quadratic,
seconds on a long document), may match an earlier repeat of a short sentence, and silently drops
a sentence its processor altered. Instead the sentences are aligned to the text here, by their
non-whitespace characters, in one forward pass.

Other quirks handled before pysbd sees the text:

- pysbd ends a sentence at every line break, which shreds hard-wrapped plain text (RFCs, e-mail)
  into line fragments. Paragraphs (split at blank lines) are unwrapped first: a single newline
  becomes a space, which keeps every offset unchanged. A line break stays a boundary before a
  list item and after a markdown heading.
- A "sentence" with no terminal punctuation (a table, ASCII art, a code block) can run for
  thousands of characters; pieces longer than ``max_chars`` are cut at line breaks, then spaces,
  then (text without spaces: Japanese, Chinese) after a comma 、，.
- Japanese and Chinese end a sentence with 。！？ (and ．｡) and no space after it. A piece holding
  one of these is split by pysbd's Japanese rules (``Segmenter(language="ja")``), which also
  keep a closing bracket 」』 with the sentence it closes (the English rules split 「行く。」
  after 。); the regex fallback breaks after these marks too.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Hashable
from functools import lru_cache, partial

from scar_viz.common.errors import SettingsError
from scar_viz.common.memo import Memo
from scar_viz.common.spans import Span
from scar_viz.runtime import speed

DEFAULT_MAX_CHARS = 1000
"""Longest sentence kept whole; longer pieces are cut at line breaks or spaces."""

_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n\s*")
_HARD_LINE = re.compile(r"[ \t]*(?:[-*+\u2022]\s|\d{1,3}[.)]\s|\([a-zA-Z0-9]{1,4}\)\s|#{1,6}\s|\|)")
_MEMO_CHARS = 32_000_000
"""The memo keeps splits of texts up to this many characters in all (least recently used
dropped first): every file of a large corpus, whose chunkers re-split each file per setting.
A count of entries (it was 8) thrashed on a 90-file corpus: the Chunking lab's sweep of the
sentence chunker re-ran pysbd on every file for each of its 28 settings, 155 s instead of 8."""


def _text_chars(key: Hashable) -> int:
    """A memo key's weight: the characters of its text (keys are ``(text, parts, …)``)."""
    return len(key[0]) if isinstance(key, tuple) else 1


_memo: Memo[tuple[Span, ...]] = Memo(_MEMO_CHARS, weigh=_text_chars)
_REGEX_END = re.compile(
    r"(?<=[.!?])([\"')\]]*)\s+(?=[\"'(\[]?[A-Z0-9])|(?<=[。！？．｡])([」』）〕】]*)\s*(?=\S)"
)
_CJK_END = re.compile("[。！？．｡]")
"""A sentence end of Japanese or Chinese: the piece goes to pysbd's Japanese rules."""
_CJK_COMMA = "、，"


def strip_span(text: str, start: int, end: int) -> Span | None:
    """(start, end) narrowed to exclude surrounding whitespace; None if nothing is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None


def paragraph_spans(text: str) -> list[Span]:
    """Spans of the paragraphs of ``text``: runs separated by blank lines, whitespace-stripped."""
    spans: list[Span] = []
    pos = 0
    for m in _PARAGRAPH_BREAK.finditer(text):
        span = strip_span(text, pos, m.start())
        if span:
            spans.append(span)
        pos = m.end()
    span = strip_span(text, pos, len(text))
    if span:
        spans.append(span)
    return spans


def _hard_pieces(text: str, start: int, end: int) -> list[Span]:
    """Cut a paragraph at the line breaks that stay boundaries (list items, headings, tables)."""
    cuts = [start]
    pos = text.find("\n", start, end)
    while pos >= 0:
        line_start = text.rfind("\n", start, pos) + 1
        line_start = max(line_start, start)
        if _HARD_LINE.match(text, pos + 1, end) or _HARD_LINE.match(text, line_start, pos):
            cuts.append(pos + 1)
        pos = text.find("\n", pos + 1, end)
    cuts.append(end)
    return [(a, b) for a, b in zip(cuts[:-1], cuts[1:], strict=True) if b > a]


def _align(piece: str, sentences: list[str]) -> list[Span] | None:
    """Offsets of ``sentences`` in ``piece`` by counting non-whitespace characters.

    Returns None when the sentences' non-whitespace characters are not exactly the piece's
    (pysbd altered the text), so the caller can fall back to the regex splitter.
    """
    spans: list[Span] = []
    pos = 0
    n = len(piece)
    for sentence in sentences:
        core = "".join(sentence.split())
        if not core:
            continue
        while pos < n and piece[pos].isspace():
            pos += 1
        start, j = pos, 0
        while j < len(core):
            if pos >= n:
                return None
            ch = piece[pos]
            if not ch.isspace():
                if ch != core[j]:
                    return None
                j += 1
            pos += 1
        spans.append((start, pos))
    rest = piece[pos:]
    return spans if not rest.strip() else None


@lru_cache(maxsize=2)
def _segmenter(language: str = "en"):
    import pysbd

    return pysbd.Segmenter(language=language, clean=False, char_span=False)


def regex_sentence_spans(piece: str) -> list[Span]:
    """A small fallback: break after . ! ? (and closing quotes) before a capital or digit."""
    spans: list[Span] = []
    pos = 0
    for m in _REGEX_END.finditer(piece):
        spans.append((pos, m.end(1) if m.group(1) is not None else m.end(2)))
        pos = m.end()
    spans.append((pos, len(piece)))
    return spans


def _cap(text: str, start: int, end: int, max_chars: int) -> list[Span]:
    """Cut ``text[start:end]`` into pieces of at most ``max_chars`` at newlines, then spaces."""
    out: list[Span] = []
    while end - start > max_chars:
        limit = start + max_chars
        cut = text.rfind("\n", start + max_chars // 2, limit)
        if cut < 0:
            cut = text.rfind(" ", start + max_chars // 2, limit)
        if cut < 0:
            cut = max(text.rfind(c, start + max_chars // 2, limit) for c in _CJK_COMMA)
        cut = limit if cut < 0 else cut + 1
        span = strip_span(text, start, cut)
        if span:
            out.append(span)
        start = cut
    span = strip_span(text, start, end)
    if span:
        out.append(span)
    return out


def split_piece(piece: str, method: str = "pysbd") -> list[Span]:
    """Sentence spans in one unwrapped piece (no blank lines), relative to the piece."""
    if method == "regex":
        return regex_sentence_spans(piece)
    language = "ja" if _CJK_END.search(piece) else "en"
    aligned = _align(piece, _segmenter(language).segment(piece))
    return aligned if aligned is not None else regex_sentence_spans(piece)


def sentence_spans(
    text: str, method: str = "pysbd", max_chars: int = DEFAULT_MAX_CHARS
) -> tuple[Span, ...]:
    """Sentences of ``text`` as (start, end) spans with ``text[start:end]`` the sentence.

    Sentences never cross a paragraph break; each is whitespace-stripped and at most
    ``max_chars`` long. Results are memoised on the text and the settings, however the
    arguments are spelled (a document is split once per process; :func:`remember` seeds it).

    Args:
        method: ``pysbd`` (default) or ``regex`` (the fallback splitter on its own).
        max_chars: longest sentence kept whole.

    Raises:
        ValueError: for an unknown method or a ``max_chars`` below 20.
    """
    return part_sentence_spans(text, ((0, len(text)),), method, max_chars)


def part_sentence_spans(
    text: str,
    parts: tuple[Span, ...],
    method: str = "pysbd",
    max_chars: int = DEFAULT_MAX_CHARS,
) -> tuple[Span, ...]:
    """Sentences of each range ``text[start:end]`` of ``parts`` (a document's files, in
    order; :attr:`~scar_viz.documents.reading.Document.part_bounds`), each split on its own
    and shifted into ``text``: no sentence crosses a part's edge. Memoised on the text and the
    parts (a document is split once; :func:`sentence_spans` is the one-part case), and each
    part under its own text too: a corpus split whole and then file by file (the Chunking lab's
    units, then its sentence chunker) runs pysbd once.

    Raises:
        ValueError: as :func:`sentence_spans`.
    """

    def split() -> tuple[Span, ...]:
        t0 = time.perf_counter()
        spans: list[Span] = []
        for start, end in parts:
            piece = text[start:end]
            if len(parts) == 1:
                own = _split(piece, method, max_chars)
            else:  # each file under its own key too: a chunker that cuts file by file reuses it
                key = (piece, ((0, len(piece)),), method, max_chars)
                own = _memoised(key, partial(_split, piece, method, max_chars))
            spans.extend((start + s, start + e) for s, e in own)
        speed.record(split_speed_key(method), len(text), time.perf_counter() - t0)
        return tuple(spans)

    return _memo.get_or_build((text, tuple(parts), method, max_chars), split)


def split_speed_key(method: str) -> str:
    """The name under which :mod:`scar_viz.runtime.speed` keeps the splitter's speed."""
    return f"sentence split: {method}"


def remember(
    text: str,
    spans: tuple[Span, ...],
    parts: tuple[Span, ...],
    method: str = "pysbd",
    max_chars: int = DEFAULT_MAX_CHARS,
) -> None:
    """Seed the memo of :func:`part_sentence_spans` with spans computed earlier for the same
    text, parts and settings (e.g. read from a disk cache)."""
    _memo.put((text, tuple(parts), method, max_chars), tuple(spans))


def _memoised(key: tuple, split: Callable[[], tuple[Span, ...]]) -> tuple[Span, ...]:
    return _memo.get_or_build(key, split)


def part_paragraph_spans(text: str, parts: tuple[Span, ...]) -> list[Span]:
    """:func:`paragraph_spans` of each range of ``parts``, shifted into ``text``."""
    return [
        (start + s, start + e) for start, end in parts for s, e in paragraph_spans(text[start:end])
    ]


def _split(text: str, method: str, max_chars: int) -> tuple[Span, ...]:
    if method not in ("pysbd", "regex"):
        raise SettingsError(f"Unknown sentence splitter '{method}'; use 'pysbd' or 'regex'.")
    if max_chars < 20:
        raise SettingsError("The longest sentence must be at least 20 characters.")
    spans: list[Span] = []
    for p_start, p_end in paragraph_spans(text):
        for h_start, h_end in _hard_pieces(text, p_start, p_end):
            piece = text[h_start:h_end].replace("\n", " ")
            for s, e in split_piece(piece, method):
                for span in _cap(text, h_start + s, h_start + e, max_chars):
                    spans.append(span)
    return tuple(spans)
