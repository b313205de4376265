"""scar_viz.queries.references, and the reference answers a query file gives with its
queries (QuerySet.references), read in the same pass."""

from __future__ import annotations

import json

from scar_viz.documents.reading import document_from_text
from scar_viz.queries.reading import parse_queries
from scar_viz.queries.references import reference_of

DOC = document_from_text("rules.txt", "Alpha rule one. Beta exception two.")


def line(**row) -> str:
    return json.dumps(row)


def test_reference_of_takes_the_first_non_blank_key():
    assert reference_of({"answer": " It is 4. "}) == "It is 4."
    assert reference_of({"ground_truth": "Five.", "answer": "  "}) == "Five."
    assert reference_of({"reference": "Seven."}) == "Seven."
    assert reference_of({"answer": 4}) == "" and reference_of({}) == ""


def test_the_query_set_holds_the_answers_of_its_valid_queries():
    ev = [{"text": "Alpha rule one.", "start": 0, "end": 15}]
    data = "\n".join(
        [
            line(id="q1", query="What?", evidence=ev, answer="One."),
            line(id="q2", query="Who?", evidence=ev),
            line(id="q3", query="Bad", evidence=[{"text": "not in it"}], answer="Lost."),
        ]
    )
    qs = parse_queries(data, DOC)
    assert [q.id for q in qs.queries] == ["q1", "q2"] and len(qs.errors) == 1
    assert qs.references == {"q1": "One."}
