"""The equal-budget table and its CSV."""

from __future__ import annotations

import csv
import io

from scar_viz.evaluation.budget import (
    BudgetPoint,
    BudgetResult,
    budget_csv,
    budget_rows,
    token_front,
)


def test_rows_sorted_by_recall_with_front_marked_and_csv_round_trips():
    points = (
        BudgetPoint("scar", 2, 0.8, 300.0, 3.0),
        BudgetPoint("topk", 1, 0.5, 100.0, 1.0),
        BudgetPoint("scar", 1, 0.6, 250.0, 2.0),
        BudgetPoint("topk", 2, 0.55, 400.0, 2.0),
        BudgetPoint("qasc", 1, 0.6, 200.0, 2.0),
    )
    result = BudgetResult(points, token_front(points), {})
    rows = budget_rows(result)
    # highest recall first; a tie goes to the point that sends fewer tokens
    assert [(r["policy"], r["k"]) for r in rows] == [
        ("scar", 2), ("qasc", 1), ("scar", 1), ("topk", 2), ("topk", 1)
    ]  # fmt: skip
    assert [r["recall"] for r in rows] == sorted((p.recall for p in points), reverse=True)
    assert [r["on the front"] for r in rows] == [True, True, False, False, True]
    back = list(csv.DictReader(io.StringIO(budget_csv(result))))
    assert len(back) == 5 and float(back[0]["recall"]) == 0.8 and back[2]["on the front"] == "False"


def test_csv_of_an_empty_result_has_a_header():
    assert budget_csv(BudgetResult((), (), {"rse": "x"})).strip() == "policy,k"


def test_spread_sample_keeps_a_small_set_and_spreads_a_large_one():
    from scar_viz.evaluation.budget import BUDGET_QUESTIONS, spread_sample

    assert spread_sample(5) == [0, 1, 2, 3, 4]
    assert spread_sample(BUDGET_QUESTIONS) == list(range(BUDGET_QUESTIONS))
    picked = spread_sample(250)
    assert len(picked) == BUDGET_QUESTIONS and picked == sorted(set(picked))
    assert picked[0] == 0 and picked[-1] == 249  # from the first to the last
    gaps = {b - a for a, b in zip(picked, picked[1:], strict=False)}
    assert gaps <= {4, 5}  # evenly: 249 / 59 ≈ 4.2
    assert spread_sample(250) == picked  # the same on every run
