"""Starting questions for a new document, drawn from its section headings.

A freshly uploaded document has no labelled questions; :func:`starter_questions` offers a few
("What does the document say about fuelling?") so a first search is one click away. Pure and
deterministic; the text comes from the document, so the view must escape it.
"""

from __future__ import annotations

import re

from scar_viz.documents.reading import Document
from scar_viz.documents.sections import RECITALS

MAX_STARTERS = 5
TEMPLATE = "What does the document say about {topic}?"
TEMPLATE_JA = "「{topic}」について、何が書かれていますか？"
TEMPLATE_ZH = "关于「{topic}」，文档中写了什么？"
"""A heading in Han characters is asked about in Japanese when the document has kana, else in
Chinese: a question in the document's language (an English one would not share its words)."""
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile("[\u3040-\u30ff]")

_NUMBERING = re.compile(
    r"^(?:(?:title|part|chapter|article|art\.|item|appendix|annex|schedule|section|sec\.|§)"
    r"(?:(?<=[.§])\s*|\s+)"
    r"(?:\d+[a-z]?|[ivxlcdm]+|[a-z])(?:\.\d+)*\.?"  # "Article 12", "ARTICLE IV", "Item 1A."
    r"|\d+[a-z]?(?:\.\d+)*\.?"  # "3.2", "1."
    r"|(?:[ivxlcdm]+|[a-z])(?:\.\d+)*\.)"  # "IV.", "A.1." (a lone "A" is prose)
    r"(?:\(\w{1,4}\))*"  # "43(3)", "6(1)(a)": a reference to a paragraph
    r"(?:\s*[-:;,.\u2013\u2014]?\s+|[;:,.]*$)",
    re.IGNORECASE,
)
_LEADING_REFS = re.compile(r"^(?:\(\w{1,4}\)\s*)+")  # "(3) ", "(a)(ii) "
_TRAILING = " .,;:-\u2013\u2014?!"


def heading_topic(title: str) -> str:
    """A heading as a topic for a question: numbering, keywords, paragraph references and
    trailing punctuation stripped, shouting lowered ("3.2 Weather limits" -> "weather limits",
    "ARTICLE IV - GOVERNING LAW" -> "governing law", "Article 43(3);" -> ""); "" when nothing
    worded is left."""
    text = re.sub(r"\s+", " ", title).strip().strip("#").strip()
    bare = _NUMBERING.sub("", text, count=1)
    bare = _LEADING_REFS.sub("", bare.strip(_TRAILING)).strip(_TRAILING)
    if sum(ch.isalpha() for ch in bare) < (2 if _HAN.search(bare) else 3):  # 入荷: a word
        return ""
    if bare.isupper():
        bare = bare.lower()
    words = bare.split(" ")
    long_words = [w for w in words if len(w) > 3]
    title_case = len(words) > 1 and all(w[:1].isupper() or not w[:1].isalpha() for w in long_words)
    out = [_lower_word(w) if (i == 0 or title_case) else w for i, w in enumerate(words)]
    return " ".join(out)


def _lower_word(word: str) -> str:
    """ "Weather" -> "weather"; an acronym ("NATO", "GDPR") or "iPhone" stays as it is."""
    if word != "I" and word[:1].isupper() and word[1:] == word[1:].lower():
        return word.lower()
    return word


def starter_questions(document: Document, limit: int = MAX_STARTERS) -> tuple[str, ...]:
    """Up to ``limit`` questions from ``document``'s section headings, in document order.

    The shallowest headings below the document's single title (if it has one) are used;
    when there are more than ``limit``, an evenly spaced selection. A document without
    headings gets none (the page then just asks for a question).
    """
    levels: dict[int, list[str]] = {}
    for section in document.shown_sections:
        if not section.path or section.path[-1] == RECITALS:
            continue
        topic = heading_topic(section.path[-1])
        if topic and topic not in levels.setdefault(section.level, []):
            levels[section.level].append(topic)
    if not levels or limit < 1:
        return ()
    ordered = [levels[level] for level in sorted(levels)]
    if len(ordered[0]) == 1 and len(ordered) > 1:  # a lone top heading is the title
        ordered = ordered[1:]
    topics = ordered[0]
    if len(topics) < limit:  # too few chapters: add the next level's headings
        topics = topics + [t for level in ordered[1:2] for t in level if t not in topics]
    if len(topics) > limit:
        step = len(topics) / limit
        topics = [topics[int(i * step)] for i in range(limit)]
    japanese = bool(_KANA.search(document.text[:20_000]))
    return tuple(_template(t, japanese).format(topic=t) for t in topics)


def _template(topic: str, japanese: bool) -> str:
    if _KANA.search(topic) or (_HAN.search(topic) and japanese):
        return TEMPLATE_JA
    return TEMPLATE_ZH if _HAN.search(topic) else TEMPLATE
