"""Starting questions from a document's section headings."""

from __future__ import annotations

import pytest

from scar_viz.documents import samples
from scar_viz.documents.reading import document_from_text
from scar_viz.documents.starters import MAX_STARTERS, heading_topic, starter_questions


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
