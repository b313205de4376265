"""A learned gate in a link: named by its content hash, resolved by the server, never guessed.

An address cannot hold a gate (weights, means, deviations, what it was fitted on), so it holds
the gate's :func:`gate_digest` — the first 16 hex digits of the SHA-256 of its JSON file, the
same for the same gate on any machine. The server keeps the gates its sessions used on a
:class:`GateShelf` (the last few, by digest); a link opened in a fresh browser finds the gate
there. A session file carries the gate itself. When neither has the gate a link names,
:func:`resolve_link` says so in one sentence and gives no gate: the page must not substitute
the default gate for the one the link meant.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from scar_viz.common.memo import Memo
from scar_viz.scoring.learned.model import LearnedGate

DIGEST_CHARS = 16
"""Hex digits of a gate's digest in an address (64 bits: no two gates a server sees collide)."""

SHELF_SIZE = 64
"""Gates a server keeps for links (each a few hundred bytes)."""


def gate_digest(gate: LearnedGate) -> str:
    """The gate's content hash: the first :data:`DIGEST_CHARS` hex digits of SHA-256 over its
    JSON file (:meth:`~scar_viz.scoring.learned.model.LearnedGate.to_json`)."""
    return hashlib.sha256(gate.to_json().encode("utf-8")).hexdigest()[:DIGEST_CHARS]


def is_digest(text: object) -> bool:
    """Whether ``text`` has a digest's shape (what an address may hold)."""
    return (
        isinstance(text, str)
        and len(text) == DIGEST_CHARS
        and all(c in "0123456789abcdef" for c in text)
    )


class GateShelf:
    """The gates a server's sessions used, by digest (the last :data:`SHELF_SIZE`)."""

    def __init__(self, size: int = SHELF_SIZE) -> None:
        self._gates: Memo[LearnedGate] = Memo(size)

    def put(self, gate: LearnedGate) -> str:
        """Keep ``gate``; returns its digest."""
        digest = gate_digest(gate)
        self._gates.put(digest, gate)
        return digest

    def get(self, digest: str) -> LearnedGate | None:
        """The gate kept under ``digest``, else None."""
        return self._gates.entries.get(digest)


@dataclass(frozen=True)
class GateLink:
    """What a link's gate digest resolves to: ``gate`` (None when unknown) and, when it is
    unknown, ``message``, one sentence for the page."""

    gate: LearnedGate | None
    message: str = ""


def resolve_link(digest: str, held: LearnedGate | None, shelf: GateShelf) -> GateLink:
    """The gate an address names: the session's own when it is that gate, else the server's
    copy, else none, with a sentence saying so (never the default gate in its place)."""
    if not is_digest(digest):
        return GateLink(None, f"The address names a learned gate '{digest[:40]}' in no known form.")
    if held is not None and gate_digest(held) == digest:
        return GateLink(held)
    found = shelf.get(digest)
    if found is not None:
        return GateLink(found)
    return GateLink(
        None,
        f"The link names learned gate {digest}, which this server does not hold (it keeps the "
        "gates its sessions used since it started): restore the session file that carries it "
        "(Share this view), or fit or upload one on Fit a gate. No other gate is used in its "
        "place.",
    )
