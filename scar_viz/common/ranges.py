"""The range of every number a link, a session file or a settings file may set: one table for
the address check, the session reader, the settings reader
(:func:`scar_viz.evaluation.settings.load_settings`) and the widgets' own limits, so they
cannot disagree.

A value out of its range is never handed to a widget (Streamlit raises on a number input
given a value below its minimum); it is left out, and the reader says which, and the range.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Range:
    """A setting's name as shown, its type (``int`` or ``float``) and its inclusive bounds."""

    name: str
    kind: type
    lo: float
    hi: float

    def holds(self, raw: object) -> bool:
        """Whether ``raw`` (a number, or the text of one from an address) lies in the range,
        and is whole when the setting is."""
        if isinstance(raw, bool):
            return False
        try:
            value = float(raw)  # type: ignore[arg-type]
        except (TypeError, ValueError, OverflowError):
            return False
        if value != value or value in (float("inf"), float("-inf")):
            return False
        if self.kind is int and value != int(value):
            return False
        return self.lo <= value <= self.hi

    def describe(self, raw: object) -> str:
        """``"k = 1000000000000 (allowed 1 … 20)"``: the value cut short, and the range."""
        return f"{self.name} = {str(raw)[:20]} (allowed {self.lo:g} … {self.hi:g})"

    @property
    def bounds(self) -> tuple[float, float]:
        """(lowest, highest), typed as the setting is (for a widget's limits)."""
        return self.kind(self.lo), self.kind(self.hi)


RANGES: dict[str, Range] = {
    "k": Range("k", int, 1, 20),
    "r": Range("r", int, 1, 3),
    "lam": Range("λ", float, 0.0, 2.0),
    "tau": Range("τ", float, 0.0, 1.5),
    "mu": Range("μ", float, 0.0, 2.0),
    "p": Range("p", float, 0.001, 0.95),
    "size": Range("chunk size", int, 50, 8000),
    "overlap": Range("overlap", int, 0, 4000),
    "rrf_k": Range("k_rrf", float, 0.0, 1000.0),
}
"""Setting (its widget key, URL parameter and session-file name) -> its range."""


def out_of_range(values: Mapping[str, object]) -> list[str]:
    """The settings of ``values`` that :data:`RANGES` bounds and whose value it does not hold."""
    return [key for key, value in values.items() if key in RANGES and not RANGES[key].holds(value)]
