"""Reference answers in a query file: the optional answer a labelled query line may carry
(``answer``, ``reference``, ``reference_answer`` or ``ground_truth``), which the answer check
scores answer correctness against.

:func:`~scar_viz.queries.reading.parse_queries` reads them with the queries, in one pass
(:attr:`~scar_viz.queries.reading.QuerySet.references`).
"""

from __future__ import annotations

REFERENCE_KEYS = ("answer", "reference", "reference_answer", "ground_truth")
"""The fields a line may give its reference answer in; the first non-blank one wins."""


def reference_of(line: dict) -> str:
    """The reference answer of one parsed line (whitespace stripped), or ""."""
    for key in REFERENCE_KEYS:
        value = line.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""
