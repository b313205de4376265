"""Reference answers in a query file: the optional answer a labelled query line may carry
(``answer``, ``reference``, ``reference_answer`` or ``ground_truth``), which the answer check
scores answer correctness against.

:func:`~scar_viz.evaluation.queries.parse_queries` reads them with the queries, in one pass
(:attr:`~scar_viz.evaluation.queries.QuerySet.references`).
"""

from __future__ import annotations

import json

REFERENCE_KEYS = ("answer", "reference", "reference_answer", "ground_truth")
"""The fields a line may give its reference answer in; the first non-blank one wins."""


def reference_of(line: dict) -> str:
    """The reference answer of one parsed line (whitespace stripped), or ""."""
    for key in REFERENCE_KEYS:
        value = line.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def reference_answers(data: str) -> dict[str, str]:
    """Reference answers by query id from JSON Lines ``data``, without checking the queries
    against a document: lines without one, without an id or not JSON are skipped."""
    out: dict[str, str] = {}
    for text in data.splitlines():
        try:
            line = json.loads(text)
        except json.JSONDecodeError:
            continue
        reference = reference_of(line) if isinstance(line, dict) else ""
        if reference and isinstance(line.get("id"), str | int):
            out[str(line["id"])] = reference
    return out
