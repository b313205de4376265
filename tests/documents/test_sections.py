"""Section headings on hand-made excerpts of a regulation, a contract, an RFC, a statute and
markdown: each test lists the exact titles found."""

from __future__ import annotations

import pytest

from scar_viz.documents.sections import FRONT_MATTER, RECITALS, detect_sections

BODY_SENTENCE = (
    "Article 16(2) TFEU mandates the European Parliament and the Council to lay down the rules "
    "relating to the"
)

REGULATION = f"""REGULATION (EU) 2016/679 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL

of 27 April 2016

THE EUROPEAN PARLIAMENT AND THE COUNCIL OF THE EUROPEAN UNION,

Having regard to the Treaty on the Functioning of the European Union, and in particular
Article 16 thereof,

Whereas:

(1) The protection of natural persons in relation to the processing of personal data is a
fundamental right.
(38) Children merit specific protection with regard to their personal data.
(39) Any processing of personal data should be lawful and fair.
{BODY_SENTENCE}
protection of natural persons with regard to the processing of personal data.
(85) A personal data breach may, if not addressed in an appropriate and timely manner, result
in physical damage, as referred to in Article 43(3);
Article 43(3);
HAVE ADOPTED THIS REGULATION:

CHAPTER I
General provisions

Article 1
Subject-matter and objectives

1. This Regulation lays down rules relating to the protection of natural persons.
2. This Regulation protects fundamental rights and freedoms of natural persons.

Article 2 – Material scope
1. This Regulation applies to the processing of personal data wholly or partly by automated
means.

CHAPTER III
RIGHTS OF THE DATA SUBJECT

Art. 16 Right to rectification
The data subject shall have the right to obtain from the controller without undue delay the
rectification of inaccurate personal data concerning him or her.
"""


def titles(text: str) -> list[str]:
    return [s.title for s in detect_sections(text)]


def test_regulation_recitals_and_articles():
    assert titles(REGULATION) == [
        FRONT_MATTER,
        RECITALS,
        "CHAPTER I \u2013 General provisions",
        "Article 1 \u2013 Subject-matter and objectives",
        "Article 2 \u2013 Material scope",
        "CHAPTER III \u2013 RIGHTS OF THE DATA SUBJECT",
        "Art. 16 Right to rectification",
    ]
    paths = [s.path for s in detect_sections(REGULATION)]
    assert paths[3] == (
        "CHAPTER I \u2013 General provisions",
        "Article 1 \u2013 Subject-matter and objectives",
    )
    assert paths[1] == (RECITALS,)  # the next chapter closes the recitals


CONTRACT = """MASTER SERVICES AGREEMENT

This Agreement is made between Acme Ltd and Beta plc.

1. DEFINITIONS

1.1 Definitions
In this Agreement the following words have these meanings:
1. Services means the services in Schedule 1;
2. Fees means the charges in Schedule 2.

1.2 Interpretation
Headings do not affect the interpretation of this Agreement. The Supplier shall:

1. Deliver the goods
2. Invoice monthly

2. Payment Terms

2.1 The Customer shall pay each invoice within 30 days of receipt.
2.2 Late payment
30 days after the due date, interest runs at 4% a year.
12 Member States have adopted similar rules on late payment.
The Supplier may charge INTEREST ON LATE PAYMENT at the statutory rate.

12.3.4 Set-off and withholding
Neither party may set off any amount.

GOVERNING LAW

This Agreement is governed by the law of England and Wales.

SCHEDULE 1
Services
"""


def test_contract_numbered_clauses_and_caps_headings():
    assert titles(CONTRACT) == [
        "MASTER SERVICES AGREEMENT",
        "1. DEFINITIONS",
        "1.1 Definitions",
        "1.2 Interpretation",
        "2. Payment Terms",
        "2.2 Late payment",
        "12.3.4 Set-off and withholding",
        "GOVERNING LAW",
        "SCHEDULE 1 \u2013 Services",
    ]


RFC = """RFC 9293            Transmission Control Protocol (TCP)          August 2022

3.  Functional Specification

3.9.1.9.  Set Differentiated Services Field (IPv4 TOS or IPv6 Traffic
          Class)

   The application layer MAY set the field.

3.10.7.  SEGMENT ARRIVES

3.10.7.4.  Other States

   1.  First, check the sequence number.

   2.  Second, check the RST bit:

4.  Glossary

   3.10.7.  Segment Arrives . . . . . . . . . . . . . . . . . . . 82

Appendix A.  Other Implementation Notes
"""


def test_rfc_headings():
    assert titles(RFC) == [
        FRONT_MATTER,
        "3.  Functional Specification",
        "3.9.1.9.  Set Differentiated Services Field (IPv4 TOS or IPv6 Traffic Class)",
        "3.10.7.  SEGMENT ARRIVES",
        "3.10.7.4.  Other States",
        "4.  Glossary",
        "Appendix A.  Other Implementation Notes",
    ]


STATUTE = """Harbours Act 2031

PART 1
PRELIMINARY

Section 1. Short title.
This Act may be cited as the Harbours Act 2031.

Section 2 - Interpretation
In this Act "harbour" includes a quay.
Section 3 of this Act applies to every harbour authority.

PART 2
HARBOUR AUTHORITIES

§ 4 Powers of harbour authorities
A harbour authority may make byelaws.

Sec. 5. Penalties
A person who breaks a byelaw commits an offence.
"""


def test_statute_parts_and_sections():
    assert titles(STATUTE) == [
        FRONT_MATTER,
        "PART 1 \u2013 PRELIMINARY",
        "Section 1. Short title.",
        "Section 2 - Interpretation",
        "PART 2 \u2013 HARBOUR AUTHORITIES",
        "\u00a7 4 Powers of harbour authorities",
        "Sec. 5. Penalties",
    ]
    paths = [s.path for s in detect_sections(STATUTE)]
    assert paths[-1] == ("PART 2 \u2013 HARBOUR AUTHORITIES", "Sec. 5. Penalties")


MARKDOWN = """# Guide

Intro paragraph.

## 1. Setup

1. Install the package.
2. Run the tests.

### 1.1 Install

ALL CAPS inside a paragraph
stays body text.

## Usage
"""


def test_markdown_headings():
    assert titles(MARKDOWN) == ["Guide", "1. Setup", "1.1 Install", "Usage"]
    assert [s.level for s in detect_sections(MARKDOWN)] == [1, 2, 3, 2]


@pytest.mark.parametrize("text", [REGULATION, CONTRACT, RFC, STATUTE, MARKDOWN])
def test_a_body_sentence_is_never_a_title(text):
    found = titles(f"{text}\n{BODY_SENTENCE}\nmore text.\n")
    assert BODY_SENTENCE not in found
    assert not [t for t in found if t.startswith(("Article 16(2)", "(39)", "Article 43(3)"))]


@pytest.mark.parametrize(
    "line",
    [
        BODY_SENTENCE,
        "Article 43(3);",
        "(39) Any processing of personal data should be lawful and fair.",
        "Article 6 of Regulation (EC) No 45/2001 and",
        "1. The Supplier shall deliver the goods to the Customer at the",
        "2016 Member States adopted the rules",
        "12 Member States have adopted similar rules",
        "2.5 million people live here",
        "2.1 The Customer shall pay each invoice within 30 days",
        "Section 4 The harbour master may close the port",
        "SECTIONS 1 TO 4 APPLY TO EVERY VESSEL,",
        "HAVE ADOPTED THIS REGULATION:",
        "ISSN: 2070-1721",
    ],
)
def test_prose_lines_are_not_headings(line):
    assert titles(f"Intro.\n\n{line}\nMore text follows here.\n") == [FRONT_MATTER]
