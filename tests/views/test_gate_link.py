"""A learned gate in a link: its content hash is stable and tells gates apart, the server's
shelf resolves it, and a gate nobody holds is said in one sentence with no gate in its place."""

from __future__ import annotations

from dataclasses import replace

from scar_viz.scoring.learned import default_gate
from scar_viz.views.gate_link import (
    DIGEST_CHARS,
    GateShelf,
    gate_digest,
    is_digest,
    resolve_link,
)


def test_the_digest_is_the_gates_content():
    gate = default_gate()
    digest = gate_digest(gate)
    assert is_digest(digest) and len(digest) == DIGEST_CHARS
    assert gate_digest(default_gate()) == digest  # the same gate read again
    other = replace(gate, weights=tuple(w + 0.001 for w in gate.weights))
    assert gate_digest(other) != digest
    assert not is_digest("ABCDEF0123456789") and not is_digest("abc") and not is_digest(None)


def test_a_link_resolves_to_the_sessions_gate_then_the_servers_copy():
    gate = default_gate()
    other = replace(gate, intercept=gate.intercept + 1.0)
    shelf = GateShelf(size=2)
    digest = shelf.put(gate)
    assert resolve_link(digest, gate, GateShelf()).gate is gate  # the session's own
    found = resolve_link(digest, other, shelf)  # another gate held: the link's wins
    assert found.gate is not None and gate_digest(found.gate) == digest and not found.message
    shelf.put(other)
    shelf.put(replace(gate, intercept=-5.0))  # the shelf keeps the last two
    assert shelf.get(digest) is None


def test_a_gate_nobody_holds_is_said_and_nothing_takes_its_place():
    missing = resolve_link("0123456789abcdef", default_gate(), GateShelf())
    assert missing.gate is None
    assert "learned gate 0123456789abcdef, which this server does not hold" in missing.message
    assert "No other gate is used in its place." in missing.message
    odd = resolve_link("<script>", None, GateShelf())
    assert odd.gate is None and "in no known form" in odd.message
