"""The shared neighbour walk and the judge signature: the order candidates are offered in,
where the walk stops, and how a verdict names its outcome."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.common.edges import one_file
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import scar_judge, select_from_sims, top_k
from scar_viz.scoring.walk import GateDecision, Neighbour, walk_neighbours


def judge_by(admit):
    """A judge admitting the neighbours in ``admit`` (score 1 against bar 0), rejecting others."""

    def judge(cand: Neighbour) -> GateDecision:
        ok = cand.neighbour in admit
        return GateDecision(**cand.verdict(float(ok), 0.0, ok, "test"))

    return judge


def test_the_walk_offers_each_side_outward_and_stops_after_a_rejection():
    seen = []

    def judge(cand):
        seen.append((cand.chunk, cand.rank, cand.side, cand.distance, cand.neighbour))
        return judge_by({4, 3, 6})(cand)

    selected, admitted, decisions = walk_neighbours([5], 10, 3, judge, doc_of=one_file(10))
    # left: 4 admitted, 3 admitted, 2 rejected; right: 6 admitted, 7 rejected (8 never offered)
    assert seen == [
        (5, 0, "left", 1, 4),
        (5, 0, "left", 2, 3),
        (5, 0, "left", 3, 2),
        (5, 0, "right", 1, 6),
        (5, 0, "right", 2, 7),
    ]
    assert selected == [3, 4, 5, 6] and admitted == [3, 4, 6]
    assert [d.outcome for d in decisions] == [
        "admitted",
        "admitted",
        "rejected",
        "admitted",
        "rejected",
    ]
    assert decisions[2].blocked_by == "test" and decisions[0].blocked_by == ""


def test_a_retrieved_neighbour_is_judged_retrieved_and_the_walk_goes_past_it():
    _, admitted, decisions = walk_neighbours([2, 3], 6, 2, judge_by({1, 4, 5}), doc_of=one_file(6))
    first = [(d.chunk, d.neighbour, d.outcome) for d in decisions if d.chunk == 2]
    # chunk 2's right neighbour 3 is retrieved: judged "retrieved" though the judge rejects it,
    # and the walk reaches 4 beyond it
    assert first == [
        (2, 1, "admitted"),
        (2, 0, "rejected"),
        (2, 3, "retrieved"),
        (2, 4, "admitted"),
    ]
    assert admitted == [1, 4, 5]


def test_the_walk_stops_at_the_document_edges_and_at_radius_zero():
    _, _, decisions = walk_neighbours([0], 2, 3, judge_by({1}), doc_of=one_file(2))
    assert [(d.side, d.neighbour) for d in decisions] == [("right", 1)]
    assert walk_neighbours([0, 1], 2, 0, judge_by(set()), doc_of=one_file(2)) == ([0, 1], [], ())


@pytest.mark.parametrize(
    ("passes", "retrieved", "outcome"),
    [
        (True, False, "admitted"),
        (False, False, "rejected"),
        (False, True, "retrieved"),
        (True, True, "retrieved"),
    ],
)
def test_a_verdict_names_the_outcome_and_the_margin(passes, retrieved, outcome):
    fields = Neighbour(3, 4, 0, "right", 1, retrieved).verdict(0.75, 0.5, passes, "why")
    assert fields["outcome"] == outcome
    assert fields["margin"] == 0.25
    assert fields["blocked_by"] == ("why" if outcome == "rejected" else "")


def test_scar_is_the_walk_with_scars_judge():
    rng = np.random.default_rng(0)
    unit = rng.normal(size=(30, 6))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    sims = unit @ unit[7]
    params = GateParams(3, 0.5, 0.1, 2)
    sel = select_from_sims(sims, unit, params, doc_of=one_file(len(unit)))
    judge = scar_judge(sims, unit, params.lam, params.tau)
    selected, admitted, decisions = walk_neighbours(
        top_k(sims, 3), 30, 2, judge, doc_of=one_file(30)
    )
    assert (sel.selected, sel.admitted, sel.decisions) == (selected, admitted, decisions)
