"""Reading JSON that someone else wrote (a query file's lines, a session file, a gate file, a
language model's reply) with bounds: a size limit before parsing and a nesting limit after.

Python's ``json`` parser recurses once per nesting level: ``[`` repeated 200,000 times raises
``RecursionError``, which no ``except ValueError`` catches, and a value nested a few hundred
levels deep parses but breaks any recursive walk of it later. :func:`read_json` turns both,
and every malformed text, into one :class:`JsonInputError` whose message names what was read
(a file, a file's line, a reply). Every untrusted JSON input of the package goes through it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable

from scar_viz.common.errors import UserError

MAX_DEPTH = 64
"""Nesting levels of arrays and objects allowed; the package's own formats use fewer than 8."""

_FLOAT_MAX = int(sys.float_info.max)
_FLOAT_DIGITS = len(str(_FLOAT_MAX))


class _BeyondFloat(Exception):
    """An integer literal no float holds (``float()`` of it raises ``OverflowError``)."""


def _whole(digits: str) -> int:
    """A JSON integer, refused when a float cannot hold it: every number the package reads
    is used as a float somewhere, and ``float(10**400)`` raises ``OverflowError``, which no
    ``except ValueError`` catches."""
    if len(digits.lstrip("-")) > _FLOAT_DIGITS or abs(value := int(digits)) > _FLOAT_MAX:
        raise _BeyondFloat(digits)
    return value


class JsonInputError(UserError, ValueError):
    """Untrusted JSON that is too large, nested too deep or malformed. ``reason`` is the
    message without the name of what was read (for callers that phrase their own); ``kind``
    is ``size``, ``depth``, ``syntax`` or ``range`` (an integer beyond a float's range)."""

    def __init__(self, what: str, reason: str, kind: str) -> None:
        super().__init__(f"{what}: {reason}" if what else reason)
        self.what = what
        self.reason = reason
        self.kind = kind


def _size_words(n: int) -> str:
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n:,} bytes"


def _depth_over(value: object, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects more than ``limit`` levels (iteratively:
    no recursion, whatever the depth)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[object]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def read_json(
    text: str | bytes,
    what: str = "",
    *,
    max_bytes: int,
    max_depth: int = MAX_DEPTH,
    start: int | None = None,
) -> object:
    """The value of ``text``, a JSON document of at most ``max_bytes`` (UTF-8) nested at most
    ``max_depth`` levels. With ``start``, the one value that begins at index ``start`` of a
    longer text is read (``json.JSONDecoder.raw_decode``), and ``(value, end index)`` returned.

    Raises:
        JsonInputError: the text is over ``max_bytes``, not valid JSON (or not UTF-8),
            nested deeper than ``max_depth``, or holds an integer beyond a float's range;
            the message starts with ``what``.
    """
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise JsonInputError(what, f"over {_size_words(max_bytes)}, too large to read", "size")
    try:
        if start is None:
            value: object = json.loads(text, parse_int=_whole)
        else:
            value = json.JSONDecoder(parse_int=_whole).raw_decode(str(text), start)
    except RecursionError:
        raise JsonInputError(what, f"nested deeper than {max_depth} levels", "depth") from None
    except _BeyondFloat as exc:
        digits = len(str(exc).lstrip("-"))
        raise JsonInputError(
            what,
            f"out of range: it holds an integer of {digits:,} digits, more than a float holds",
            "range",
        ) from None
    except json.JSONDecodeError as exc:
        raise JsonInputError(
            what, f"not valid JSON ({exc.msg} at column {exc.colno})", "syntax"
        ) from None
    except (UnicodeDecodeError, ValueError) as exc:  # bytes that are not UTF-8 text
        raise JsonInputError(what, f"not valid JSON ({type(exc).__name__})", "syntax") from None
    found = value[0] if start is not None else value  # type: ignore[index]
    if _depth_over(found, max_depth):
        raise JsonInputError(what, f"nested deeper than {max_depth} levels", "depth")
    return value
