"""Starting questions from a document's section headings."""

from __future__ import annotations

import re

import pytest

from scar_viz.documents import samples
from scar_viz.documents.reading import document_from_text
from scar_viz.documents.starters import MAX_STARTERS, heading_topic, starter_questions
from tests.documents.test_sections import CONTRACT, MARKDOWN, REGULATION, RFC, STATUTE


@pytest.mark.parametrize(
    ("title", "topic"),
    [
        ("3.2 Weather limits", "weather limits"),
        ("1. Scope and Definitions", "scope and definitions"),
        ("ARTICLE IV - GOVERNING LAW", "governing law"),
        ("Item 1A. Risk Factors", "risk factors"),
        ("Section 2.3: Payment", "payment"),
        ("A.1.  Title here", "title here"),
        ("Use of GDPR Data", "use of GDPR data"),
        ("A new era", "a new era"),
        ("Part 1", ""),
        ("## 1.", ""),
        ("article 43(3);", ""),
        ("Article 6(1)(a) Consent", "consent"),
        ("(3) Data transfers;", "data transfers"),
        ("CHAPTER III \u2013 RIGHTS OF THE DATA SUBJECT", "rights of the data subject"),
        ("Art. 16 Right to rectification", "right to rectification"),
        ("\u00a7 4 Powers of harbour authorities", "powers of harbour authorities"),
        ("Sec. 5. Penalties", "penalties"),
        ("Section 1. Short title.", "short title"),
        ("12.3.4 Set-off and withholding", "set-off and withholding"),
        ("3.10.7.  SEGMENT ARRIVES", "segment arrives"),
        ("ARTICLES OF ASSOCIATION", "articles of association"),
        (
            "3.9.1.9.  Set Differentiated Services Field (IPv4 TOS or IPv6 Traffic Class)",
            "set differentiated services field (IPv4 TOS or IPv6 traffic class)",
        ),
    ],
)
def test_heading_topic(title, topic):
    assert heading_topic(title) == topic


def test_sample_starters_come_from_its_chapters():
    doc = samples.load_sample()
    questions = starter_questions(doc)
    assert 1 <= len(questions) <= MAX_STARTERS
    assert questions == starter_questions(doc)  # deterministic
    assert questions[0] == "What does the document say about scope and definitions?"
    assert all(q.startswith("What does the document say about ") for q in questions)
    assert not any("merrow sound" in q.lower() for q in questions)  # the title is not a topic
    assert len(set(questions)) == len(questions)


def test_few_chapters_add_the_next_level():
    text = "# Guide\n\n## Setup\n\nText.\n\n### Install\n\nMore.\n\n### Configure\n\nMore.\n"
    questions = starter_questions(document_from_text("g.md", text))
    assert questions == tuple(
        f"What does the document say about {t}?" for t in ("setup", "install", "configure")
    )


def test_no_headings_no_starters_and_limit():
    assert starter_questions(document_from_text("p.txt", "Just a paragraph. And another.")) == ()
    many = "\n\n".join(f"## Topic number {i}\n\nBody {i}." for i in range(12))
    doc = document_from_text("m.md", many)
    assert len(starter_questions(doc)) == MAX_STARTERS
    assert len(starter_questions(doc, limit=2)) == 2
    assert starter_questions(doc, limit=0) == ()


def test_untrusted_heading_text_is_kept_verbatim_for_the_view_to_escape():
    doc = document_from_text("x.md", "## <script>alert(1)</script> rules\n\nBody.\n")
    (question,) = starter_questions(doc)
    assert "<script>" in question  # escaping is the view's job, the core does not mangle text


def _about(*topics: str) -> tuple[str, ...]:
    return tuple(f"What does the document say about {t}?" for t in topics)


def test_regulation_starters_are_clean_article_titles():
    questions = starter_questions(document_from_text("gdpr.txt", REGULATION))
    assert questions == _about(
        "general provisions",
        "rights of the data subject",
        "subject-matter and objectives",
        "material scope",
        "right to rectification",
    )


def test_statute_starters():
    questions = starter_questions(document_from_text("act.txt", STATUTE))
    assert questions == _about(
        "preliminary",
        "harbour authorities",
        "short title",
        "interpretation",
        "powers of harbour authorities",
    )


@pytest.mark.parametrize("text", [REGULATION, CONTRACT, RFC, STATUTE, MARKDOWN])
def test_starters_carry_no_numbering_references_or_shouting(text):
    questions = starter_questions(document_from_text("x.txt", text))
    assert questions
    for q in questions:
        topic = q.removeprefix("What does the document say about ").removesuffix("?")
        assert topic and topic == topic.strip(" ;:,.")
        assert not re.search(r"\(\d+\)|;|^\d|^(article|chapter|part|section|art\.)\b", topic)
        assert not re.search(r"\b[A-Z]{5,}\b", topic), q  # no shouting (acronyms are short)
        assert "recitals" not in topic


def test_a_japanese_document_is_asked_about_in_japanese():
    questions = starter_questions(samples.load_sample("reitou"))
    assert questions[:2] == (
        "「目的と用語」について、何が書かれていますか？",
        "「入荷」について、何が書かれていますか？",  # a two-character heading is a word
    )
    assert all(q.endswith("？") for q in questions) and len(questions) == 5


def test_a_chinese_document_is_asked_about_in_chinese():
    doc = document_from_text(
        "z.md", "# 标题\n\n## 数据备份\n\n每天备份。\n\n## 故障处理\n\n联系管理员。\n"
    )
    assert starter_questions(doc) == (
        "关于「数据备份」，文档中写了什么？",
        "关于「故障处理」，文档中写了什么？",
    )
