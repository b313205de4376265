"""Section headings of plain text: statutes, regulations, contracts, RFCs and markdown.

Every character of a document belongs to exactly one :class:`Section`, so every chunk and
every evidence span has a section path (used by parent retrieval and contextual prepending).

A heading is one line, not indented, of one of these forms (lower rank = higher in the tree):

* markdown ``#`` .. ``######`` (rank 1-6);
* a keyword and a number: ``TITLE``/``Part``/``Chapter``/``Article``/``Art.``/``Item``/
  ``Appendix``/``Annex``/``Schedule``/``Section``/``Sec.``/``§`` followed by a number, a roman
  numeral or a letter, then nothing, a title (``Article 16 – Right to rectification``), or a
  title on the next line (``Article 16`` / ``Right to rectification``: the two are joined);
* numbered clauses ``1.``, ``1.1``, ``12.3.4 Title``, RFC style ``3.10.7.4.  Other States``,
  ``A.1.  Title`` (rank 20 + depth). A single level (``1. Title``) must look like a heading
  (at most four words, Title Case or ALL CAPS); a line after one ending in ":" and runs of
  same-depth numbers with no text between them are list items, not headings;
* a short ALL-CAPS line standing after a blank line (``GOVERNING LAW``, rank 19);
* ``Whereas:`` opens a "Recitals" section that the next heading closes.

A line is never a heading when its title reads like prose: more than 12 words or 100
characters, a lower-case start, a comma, semicolon or colon at the end, a last word such as
"the" or "of" (a wrapped sentence), a verb such as "shall" or "is", or a reference right after
the number
(``Article 16(2) TFEU mandates ...``). Recital paragraphs (``(39) ...``) are body text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

FRONT_MATTER = "(front matter)"
RECITALS = "Recitals"


@dataclass(frozen=True)
class Section:
    """A run of the document under one heading: ``text[start:end]``, heading line included."""

    start: int
    end: int
    path: tuple[str, ...]
    level: int

    @property
    def title(self) -> str:
        return self.path[-1] if self.path else FRONT_MATTER

    @property
    def label(self) -> str:
        return " > ".join(self.path) if self.path else FRONT_MATTER


_ROMAN = r"[IVXLCDM]+"
_KEYWORD_RANK = {
    "title": 0,
    "part": 1,
    "chapter": 2,
    "appendix": 2,
    "annex": 2,
    "schedule": 2,
    "article": 3,
    "art.": 3,
    "item": 3,
    "section": 4,
    "sec.": 4,
    "§": 4,
}
_CAPS_RANK = 19  # below keyword headings (SCHEDULE 1 closes it), above numbered clauses
_RECITALS_RANK = 99  # a leaf: any later heading closes it
_MAX_WORDS = 12
_MAX_TITLE = 100
_LAST_WORDS = (
    "a an the of to in on at by for from with and or nor but as that which who whose "
    "than under into onto upon is are be was were shall may must this these its their"
)
_FUNCTION_WORDS = frozenset(_LAST_WORDS.split())
"""Words a heading does not end with; a line ending with one is a wrapped sentence."""
_VERB_TEXT = "shall must will should may can is are was were has have"
_VERBS = frozenset(_VERB_TEXT.split())
"""Lower-case verbs a clause's sentence has and its title does not ("2.1 The Customer shall
pay each invoice within 30 days")."""
_MARKDOWN = re.compile(r"^(#{1,6})[ \t]+(\S.*?)[ \t#]*$")
_KEYWORD = re.compile(
    r"^(TITLE|PART|Part|CHAPTER|Chapter|ARTICLE|Article|Art\.|ART\.|ITEM|Item|APPENDIX|Appendix"
    r"|ANNEX|Annex|SCHEDULE|Schedule|SECTION|Section|SEC\.|Sec\.|§)"
    rf"(?:(?<=§)|[ \t])[ \t]*(\d+[A-Za-z]?(?:\.\d+)*|{_ROMAN}|[A-Z])(?![\w(\[])\.?"
    r"(?:([ \t]*[-:.\u2013\u2014][ \t]*|[ \t]+)(.*))?$"
)
_NUMBERED = re.compile(r"^((?:\d{1,3}|[A-Z])(?:\.\d{1,3})*)(\.?)[ \t]+(\S.*)$")
_WHEREAS = re.compile(r"^(?:whereas|WHEREAS|Whereas)[ \t]*:?[ \t]*$")


def _words(title: str) -> list[str]:
    return title.split()


def _reads_like_title(title: str, allow_period: bool = False) -> bool:
    """True when ``title`` (the text after any numbering) could be a heading, not prose."""
    title = title.strip()
    words = _words(title)
    if not words or len(words) > _MAX_WORDS or len(title) > _MAX_TITLE:
        return False
    if not (title[0].isupper() or title[0] in "\"'\u201c"):
        return False
    if title.endswith((",", ";", ":")) or "  . ." in title or " . . " in title:
        return False
    if title.endswith(".") and not (allow_period and len(words) <= 6 and ". " not in title):
        return False
    last = words[-1].strip(".").lower()
    if len(words) > 1 and last in _FUNCTION_WORDS:
        return False
    return not any(w in _VERBS for w in words[1:])


def _looks_like_heading_words(title: str) -> bool:
    """At most four words, or every word of more than four letters capitalised (Title Case
    or ALL CAPS): "Purpose and Scope", "Changes from RFC 793", "DEFINITIONS"."""
    words = _words(title)
    if len(words) <= 4:
        return True
    return all(w[:1].isupper() or not w[:1].isalpha() for w in words if len(w) > 4)


def _is_caps_heading(line: str) -> bool:
    letters = [ch for ch in line if ch.isalpha()]
    chars = [ch for ch in line if not ch.isspace()]
    return (
        len(letters) >= 4
        and all(ch.isupper() for ch in letters)
        and len(letters) >= 0.8 * len(chars)
        and len(_words(line)) <= 8
        and _reads_like_title(line)
    )


@dataclass(frozen=True)
class _Candidate:
    """One heading line: its rank, title, and (for numbered clauses) its depth."""

    rank: int
    title: str
    depth: int = 0  # numbered clauses only; 0 for every other form
    bare: bool = False  # a keyword heading with no title on its line


def _heading(line: str) -> _Candidate | None:
    """The heading ``line`` is, or None. Looks at the line alone."""
    if not line or line[0].isspace() or len(line) > 140:
        return None
    m = _MARKDOWN.match(line)
    if m:
        return _Candidate(len(m.group(1)), m.group(2).strip())
    if _WHEREAS.match(line):
        return _Candidate(_RECITALS_RANK, RECITALS)
    m = _KEYWORD.match(line)
    if m:
        keyword, number, _sep, rest = m.groups()
        rest = (rest or "").strip()
        if rest and not _reads_like_title(rest, allow_period=True):
            return None
        rank = 10 + _KEYWORD_RANK[keyword.lower()]
        if keyword.lower() in ("section", "sec.", "§"):
            rank += number.count(".")
        return _Candidate(rank, line.strip(), bare=not rest)
    m = _NUMBERED.match(line)
    if m:
        number, dot, title = m.groups()
        if number.isalpha() and "." not in number:
            return None  # a lone capital ("A Title") is prose, not "A.  Title"
        if not _reads_like_title(title):
            return None
        depth = number.count(".") + 1
        if depth == 1 and not (_looks_like_heading_words(title) and (dot or title.isupper())):
            return None  # "1. The Supplier shall deliver", "2016 Member States have"
        if depth == 1 and number.isdigit() and int(number) > 200:
            return None  # a year or an amount, not a clause number
        return _Candidate(20 + depth - 1, line.strip(), depth=depth)
    if _is_caps_heading(line.strip()):
        return _Candidate(_CAPS_RANK, line.strip())
    return None


def _title_line(line: str) -> bool:
    """A line that can be the title under a bare ``Article 16`` / ``CHAPTER III``."""
    return bool(line) and not line[0].isspace() and _reads_like_title(line)


def _continuation(title: str, line: str) -> str | None:
    """The rest of a wrapped heading (an RFC title with an open parenthesis goes on,
    indented, on the next line), else None."""
    if title.count("(") <= title.count(")") or not line[:1].isspace():
        return None
    rest = line.strip()
    if not rest or len(rest) > 60 or ")" not in rest:
        return None
    return rest


def _previous_line(lines: list[str], i: int) -> int:
    """Index of the nearest non-blank line above line ``i`` (-1 at the top)."""
    for j in range(i - 1, -1, -1):
        if lines[j].strip():
            return j
    return -1


def _continues_a_list(lines: list[str], i: int, items: set[int]) -> bool:
    """True when numbered line ``i`` follows a line ending in ":" ("The Supplier shall:") or
    the list item before it in sequence ("1. Deliver the goods" then "2. Invoice monthly")."""
    j = _previous_line(lines, i)
    if j < 0 or lines[j][:1].isspace():
        return False
    if lines[j].rstrip().endswith(":"):
        return True
    if j not in items:
        return False
    this, before = _NUMBERED.match(lines[i]), _NUMBERED.match(lines[j])
    if this is None or before is None:
        return False
    a, b = this.group(1).split("."), before.group(1).split(".")
    return (
        len(a) == len(b)
        and a[:-1] == b[:-1]
        and a[-1].isdigit()
        and b[-1].isdigit()
        and int(a[-1]) == int(b[-1]) + 1
    )


def _find_headings(lines: list[str]) -> dict[int, _Candidate]:
    """Line index -> heading, with the context rules applied (titles on the next line,
    list items, ALL-CAPS lines that do not stand apart)."""
    found: dict[int, _Candidate] = {}
    consumed: set[int] = set()
    items: set[int] = set()  # numbered lines that are items of a list
    for i, line in enumerate(lines):
        if i in consumed:
            continue
        if _NUMBERED.match(line) and _continues_a_list(lines, i, items):
            items.add(i)
            continue
        cand = _heading(line)
        if cand is None:
            continue
        if cand.rank == _CAPS_RANK and i > 0 and lines[i - 1].strip():
            continue  # ALL-CAPS inside a paragraph is emphasis, not a heading
        if cand.bare:
            j = i + 1
            while j < len(lines) and j <= i + 2 and not lines[j].strip():
                j += 1
            below = _heading(lines[j]) if j < len(lines) else None
            if _title_line(lines[j] if j < len(lines) else "") and (
                below is None or below.rank == _CAPS_RANK
            ):
                title = lines[j].strip()
                cand = _Candidate(cand.rank, f"{cand.title} \u2013 {title}")
                consumed.add(j)
        elif cand.depth and i + 1 < len(lines):
            more = _continuation(cand.title, lines[i + 1])
            if more is not None:
                cand = _Candidate(cand.rank, f"{cand.title} {more}", depth=cand.depth)
        found[i] = cand
    return _drop_lists(lines, found)


def _drop_lists(lines: list[str], found: dict[int, _Candidate]) -> dict[int, _Candidate]:
    """Numbered lines of the same depth with only blank lines between them are a list."""
    listed: set[int] = set()
    numbered = [i for i, c in sorted(found.items()) if c.depth]
    for a, b in zip(numbered, numbered[1:], strict=False):
        if found[a].depth == found[b].depth and not any(s.strip() for s in lines[a + 1 : b]):
            listed.update((a, b))
    return {i: c for i, c in found.items() if i not in listed}


def detect_sections(text: str) -> tuple[Section, ...]:
    """Split ``text`` into sections at heading lines (the forms in the module docstring).

    A section's path is the titles of its enclosing headings; sections tile the text.
    """
    lines = text.splitlines(keepends=True)
    headings = _find_headings([line.rstrip("\r\n") for line in lines])
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    start, level = 0, 0
    path: tuple[str, ...] = ()
    pos = 0
    for i, line in enumerate(lines):
        found = headings.get(i)
        if found is not None:
            if pos > start:
                sections.append(Section(start, pos, path, level))
            while stack and stack[-1][0] >= found.rank:
                stack.pop()
            stack.append((found.rank, found.title))
            start, path, level = pos, tuple(t for _, t in stack), len(stack)
        pos += len(line)
    if len(text) > start or not sections:
        sections.append(Section(start, len(text), path, level))
    return tuple(sections)
