"""Numbers and lists written for sentences: signed percentages without "-0%", and "15 and 18"
instead of Python's ``[15, 18]``. Pure string formatting; escaping is left to the view."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

EMPTY_CELL = "—"
"""What a table cell shows when a value is missing (never Python's ``None``)."""


def percent(fraction: float, digits: int = 0, signed: bool = False) -> str:
    """``fraction`` as a percentage: ``percent(0.123) == "12%"``.

    A value that rounds to zero prints as ``0%`` (never ``-0%``); with ``signed`` a positive
    value gets ``+`` and a negative one a true minus sign ``−``. NaN prints as :data:`EMPTY_CELL`.
    """
    if fraction is None or math.isnan(fraction):
        return EMPTY_CELL
    value = round(100.0 * fraction, digits)
    if value == 0:
        return f"{0:.{digits}f}%"
    body = f"{abs(value):.{digits}f}%"
    if value < 0:
        return f"−{body}"
    return f"+{body}" if signed else body


def change(ours: float, theirs: float, digits: int = 0) -> str:
    """The signed relative change of ``ours`` against ``theirs``: ``change(7, 10) == "−30%"``.

    ``theirs == 0`` gives :data:`EMPTY_CELL` (no meaningful ratio).
    """
    if not theirs:
        return EMPTY_CELL
    return percent((ours - theirs) / theirs, digits, signed=True)


def compared(ours: float, theirs: float, noun: str, other: str, digits: int = 0) -> str:
    """A change written as a change: how ``ours`` compares with ``other``'s ``theirs``.

    ``compared(7, 10, "tokens", "window ±1") == "30% fewer tokens than window ±1"``;
    ``compared(12, 10, …) == "20% more tokens than window ±1"``; equal values give
    ``"the same tokens as window ±1"``; a change that rounds to 0 at ``digits`` says
    ``"under 1% fewer …"`` (never "0% fewer" nor "−0%"); against nothing (``theirs == 0``),
    ``"7 tokens where window ±1 has none"``. Never "sends −30% of".
    """
    if ours == theirs:
        return f"the same {noun} as {other}"
    if not theirs:
        return f"{ours:g} {noun} where {other} has none"
    rel = (ours - theirs) / theirs
    word = "fewer" if rel < 0 else "more"
    size = percent(abs(rel), digits)
    if round(100.0 * abs(rel), digits) == 0:
        size = f"under {10.0**-digits:g}%"
    return f"{size} {word} {noun} than {other}"


def decides(greater: bool, left: float, right: float, digits: int) -> bool:
    """Whether ``left`` and ``right`` written with ``digits`` decimals say the comparison that
    holds: ``left > right`` when ``greater``, else ``left ≤ right`` (a reader comparing the
    printed numbers reaches the true verdict)."""
    a, b = round(left, digits), round(right, digits)
    return a > b if greater else a <= b


def decisive_digits(check: Callable[[int], bool], least: int = 3, most: int = 6) -> int:
    """The fewest decimals from ``least`` to ``most`` at which ``check(digits)`` holds (every
    comparison a view prints is decided by its printed digits, :func:`decides`); ``most``
    when none does (a tie closer than 10⁻⁶)."""
    for digits in range(least, most + 1):
        if check(digits):
            return digits
    return most


def elide_middle(text: str, chars: int) -> str:
    """``text`` cut to ``chars`` characters by an ellipsis in the middle, keeping its start and
    its end (a path's file name whole where it fits): ``"docs/…/api/limits.md"``. Plain text
    (escape it where it goes into HTML); unchanged when it fits."""
    if len(text) <= chars:
        return text
    room = max(chars - 1, 2)
    name = len(text) - text.rfind("/")  # the file name with its slash, or all of it
    tail = min(max(room // 2, name), room - min(6, room // 2))
    head = room - tail
    return f"{text[:head]}…{text[len(text) - tail :]}"


def join_words(items: Iterable[object], conjunction: str = "and") -> str:
    """Items as an English list: ``"15"``, ``"15 and 18"``, ``"15, 17 and 18"`` ("" when empty)."""
    words = [str(i) for i in items]
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {conjunction} {words[-1]}"


def mu_note(mu: float, lead: str = ", ") -> str:
    """The lexical weight for a caption: ``", μ = 0.3"``; nothing at μ = 0, the paper's gate."""
    return f"{lead}μ = {mu:g}" if mu else ""


def chunk_list(ids: Iterable[int]) -> str:
    """``"chunk 15"`` or ``"chunks 15, 17 and 18"`` (sorted); "no chunk" when empty."""
    ordered = sorted(int(i) for i in ids)
    if not ordered:
        return "no chunk"
    return f"chunk{'s' if len(ordered) > 1 else ''} {join_words(ordered)}"


def cell(value: object, digits: int | None = None) -> str | object:
    """A table cell: ``None`` and NaN become :data:`EMPTY_CELL`; floats are rounded to ``digits``
    when given; anything else is returned unchanged."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return EMPTY_CELL
    if digits is not None and isinstance(value, float):
        return round(value, digits)
    return value
