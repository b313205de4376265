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


def test_rows_sorted_with_front_marked_and_csv_round_trips():
    points = (
        BudgetPoint("scar", 2, 0.8, 300.0, 3.0),
        BudgetPoint("topk", 1, 0.5, 100.0, 1.0),
        BudgetPoint("scar", 1, 0.6, 250.0, 2.0),
        BudgetPoint("topk", 2, 0.55, 400.0, 2.0),
    )
    result = BudgetResult(points, token_front(points), {})
    rows = budget_rows(result)
    assert [(r["policy"], r["k"]) for r in rows] == [
        ("scar", 1), ("scar", 2), ("topk", 1), ("topk", 2)
    ]  # fmt: skip
    assert [r["on the front"] for r in rows] == [True, True, True, False]
    back = list(csv.DictReader(io.StringIO(budget_csv(result))))
    assert len(back) == 4 and float(back[1]["recall"]) == 0.8 and back[3]["on the front"] == "False"


def test_csv_of_an_empty_result_has_a_header():
    assert budget_csv(BudgetResult((), (), {"rse": "x"})).strip() == "policy,k"
