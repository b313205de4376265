"""scar_viz.evaluation.references, and the reference answers a query file gives with its
queries (QuerySet.references), read in the same pass."""

from __future__ import annotations

import json

from scar_viz.evaluation.queries import parse_queries
from scar_viz.evaluation.references import reference_answers

DOC = "Alpha rule one. Beta exception two."


def line(**row) -> str:
    return json.dumps(row)


def test_reference_answers_from_any_of_the_keys():
    data = "\n".join(
        [
            line(id="a", query="q", answer=" It is 4. "),
            line(id="b", query="q", ground_truth="Five.", answer="  "),
            line(id="c", query="q"),
            line(id=7, query="q", reference="Seven."),
            "not json",
        ]
    )
    assert reference_answers(data) == {"a": "It is 4.", "b": "Five.", "7": "Seven."}


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
