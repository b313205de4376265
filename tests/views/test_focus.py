"""Overview data, focus rows and the gate panel's payload (scar_viz.views.focus)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scar_viz.chunking.base import Chunk
from scar_viz.common.edges import one_file
from scar_viz.scoring.lexical import question_lex
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import normalize, select_from_sims
from scar_viz.views.focus import (
    STATUS_ADMITTED,
    STATUS_REJECTED,
    STATUS_RETRIEVED,
    decode_f64,
    encode_f64,
    gate_payload,
    head_text,
    overview_data,
    payload_decide,
    tail_text,
)


def _doc(n: int, dim: int = 8, seed: int = 0, dup: bool = False):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n, dim))
    # a slowly drifting topic, so neighbours look alike and the gate has work to do
    unit = normalize(np.cumsum(base, axis=0) + 0.5 * base)
    if dup:  # identical chunks: identical sims (ties in the ranking)
        unit[3] = unit[1]
        unit[n - 1] = unit[n - 2]
    q = normalize(rng.normal(size=dim))
    sims = unit @ q
    chunks, pos = [], 0
    for i in range(n):
        text = f"Chunk {i} <b>text</b> " + "word " * (10 + 30 * (i % 3))
        chunks.append(Chunk(i, pos, pos + len(text), text, ("S",)))
        pos += len(text) - 5  # 5 characters of overlap
    return chunks, unit, sims


def _payload(chunks, sims, unit, params, **options):
    """The gate panel's payload for a document of one file."""
    return gate_payload(chunks, sims, unit, params, doc_of=one_file(len(chunks)), **options)


def _python(sims, unit, lam, tau, k, r):
    sel = select_from_sims(
        sims, unit, GateParams(k=k, lam=lam, tau=tau, radius=r), doc_of=one_file(len(unit))
    )
    return [
        (d.chunk, d.neighbour, d.side, d.distance, d.score, d.bar, d.outcome) for d in sel.decisions
    ]


def _browserlike(payload, lam, tau, k, r):
    return [
        (d.chunk, d.neighbour, d.side, d.distance, d.score, d.bar, d.outcome)
        for d in payload_decide(payload, lam, tau, k, r)
    ]


def test_f64_round_trip_is_exact():
    x = np.array([0.1, -0.0, 1 / 3, np.nextafter(0.5, 1), 1e-300, np.nan])
    y = decode_f64(encode_f64(x))
    assert np.array_equal(x.view(np.uint64), y.view(np.uint64))


@pytest.mark.parametrize("seed", range(6))
def test_payload_gate_agrees_with_select_from_sims_everywhere(seed):
    n = 12 + 7 * seed
    chunks, unit, sims = _doc(n, seed=seed, dup=seed % 2 == 0)
    payload = _payload(chunks, sims, unit, GateParams(k=3, lam=0.5, tau=0.1, radius=1), kmax=n)
    json.dumps(payload, allow_nan=False)  # the browser parses it as strict JSON
    rng = np.random.default_rng(seed)
    for _ in range(300):
        lam = float(rng.choice([0.0, rng.uniform(0, 2)]))
        tau = float(rng.choice([0.0, rng.uniform(0, 1.5), rng.uniform(-1, 3)]))
        k = int(rng.integers(1, n + 1))
        r = int(rng.integers(0, 4))
        assert _browserlike(payload, lam, tau, k, r) == _python(sims, unit, lam, tau, k, r)


WORDS = [
    "window",
    "segment",
    "retransmit",
    "timer",
    "sequence",
    "acknowledgment",
    "congestion",
    "urgent",
]


@pytest.mark.parametrize("seed", range(4))
def test_payload_gate_agrees_with_select_from_sims_with_a_lexical_term(seed):
    n = 14 + 5 * seed
    _, unit, sims = _doc(n, seed=seed, dup=seed % 2 == 0)
    rng = np.random.default_rng(seed)
    texts = [" ".join(rng.choice(WORDS, size=4)) for _ in range(n)]
    chunks = [Chunk(i, 40 * i, 40 * i + len(t), t, ("S",)) for i, t in enumerate(texts)]
    words = question_lex(texts, "the retransmit timer and the window")
    assert words.share.max() > 0
    payload = _payload(chunks, sims, unit, GateParams(), kmax=n, lex=words.share)
    json.dumps(payload, allow_nan=False)
    changed = 0
    for _ in range(300):
        lam, tau = float(rng.uniform(0, 2)), float(rng.uniform(0, 1.5))
        mu = float(rng.choice([0.0, 0.25, rng.uniform(0, 2)]))
        k, r = int(rng.integers(1, n + 1)), int(rng.integers(0, 4))
        params = GateParams(k=k, lam=lam, tau=tau, radius=r, mu=mu)
        sel = select_from_sims(sims, unit, params, lexical=words, doc_of=one_file(len(unit)))
        mine = [
            (d.chunk, d.neighbour, d.side, d.distance, d.score, d.bar, d.outcome)
            for d in sel.decisions
        ]
        got = [
            (d.chunk, d.neighbour, d.side, d.distance, d.score, d.bar, d.outcome)
            for d in payload_decide(payload, lam, tau, k, r, mu)
        ]
        assert got == mine
        changed += got != _browserlike(payload, lam, tau, k, r)
    assert changed, "μ changed no decision: the test would not see a missing term"


def test_payload_decide_needs_lex_for_mu():
    chunks, unit, sims = _doc(12)
    payload = _payload(chunks, sims, unit, GateParams())
    assert "lex" not in payload
    with pytest.raises(ValueError, match="lex"):
        payload_decide(payload, 0.5, 0.1, 3, 1, mu=0.5)
    with pytest.raises(ValueError, match="shape"):
        _payload(chunks, sims, unit, GateParams(), lex=np.zeros(3))


def test_exact_ties_are_rejected_on_both_sides():
    chunks, unit, sims = _doc(15, seed=3)
    payload = _payload(chunks, sims, unit, GateParams(k=3, lam=0.5, tau=0.1, radius=1))
    c = payload["order"][0]
    j = c + 1 if c + 1 < 15 else c - 1
    # λ = 0: S = cos(q,n); choose τ so that τ·cos(q,c) == cos(q,n) exactly (search ulps)
    tau = float(sims[j] / sims[c])
    for _ in range(20):
        if tau * float(sims[c]) == float(sims[j]):
            break
        tau = float(np.nextafter(tau, np.inf if tau * sims[c] < sims[j] else -np.inf))
    assert tau * float(sims[c]) == float(sims[j]), "an exact tie exists for this pair"
    got = _browserlike(payload, 0.0, tau, 1, 1)
    assert got == _python(sims, unit, 0.0, tau, 1, 1)
    tie = next(d for d in got if d[1] == j)
    assert tie[4] == tie[5] and tie[6] == "rejected"  # S == bar: strict rule rejects


def test_payload_is_small_and_carries_only_focus_text():
    chunks, unit, sims = _doc(830, dim=16, seed=1)
    payload = _payload(chunks, sims, unit, GateParams(k=3, lam=0.5, tau=0.1, radius=1))
    assert len(payload["order"]) == 20
    assert len(payload["cells"]) <= 20 * 7
    size = len(json.dumps(payload))
    assert size < 60_000, size
    assert payload["cells"][str(payload["order"][0])][0].startswith(("Chunk", "…"))
    with pytest.raises(ValueError, match="k ≤ 20"):
        payload_decide(payload, 0.5, 0.1, 21, 1)


def test_snippets():
    assert tail_text("abcdef", 3) == "…def"
    assert head_text("abcdef", 3) == "abc…"
    assert tail_text("abc", 3) == "abc" == head_text("abc", 3)


def test_overview_marks_every_decision():
    chunks, unit, sims = _doc(40, seed=2)
    sel = select_from_sims(
        sims, unit, GateParams(k=4, lam=0.3, tau=0.5, radius=2), doc_of=one_file(len(unit))
    )
    ov = overview_data(sims, sel)
    assert list(ov.members(STATUS_RETRIEVED)) == sorted(sel.retrieved)
    assert list(ov.members(STATUS_ADMITTED)) == sel.admitted
    assert list(ov.members(STATUS_REJECTED)) == sel.rejected
    assert [int(ov.rank[c]) for c in sel.retrieved] == [1, 2, 3, 4]
    assert int((ov.rank > 0).sum()) == 4


def test_payload_carries_the_focused_chunks_text():
    chunks, unit, sims = _doc(60, seed=6)
    far = int(np.argmin(sims))
    payload = _payload(chunks, sims, unit, GateParams(k=1, radius=1), kmax=1, focus=far)
    assert payload["focus"] == far
    assert str(far) in payload["cells"] and str(max(0, far - 3)) in payload["cells"]
    assert _payload(chunks, sims, unit, GateParams(), focus=99)["focus"] is None


@pytest.mark.parametrize("seed", range(3))
def test_payload_gate_stops_at_file_edges_as_select_from_sims_does(seed):
    n = 30
    chunks, unit, sims = _doc(n, seed=seed)
    doc_of = np.repeat(np.arange(4), [7, 1, 12, 10])
    params = GateParams(k=3, lam=0.5, tau=0.1, radius=1)
    payload = gate_payload(chunks, sims, unit, params, kmax=n, doc_of=doc_of)
    assert set(payload["files"]) == {str(c) for c in payload["order"]}
    for key, i in payload["adj"].items():
        assert doc_of[int(key)] == doc_of[int(key) + 1], i
    rng = np.random.default_rng(seed)
    for _ in range(200):
        lam, tau = float(rng.uniform(0, 2)), float(rng.uniform(-0.5, 1.5))
        k, r = int(rng.integers(1, n + 1)), int(rng.integers(0, 4))
        sel = select_from_sims(sims, unit, GateParams(k=k, lam=lam, tau=tau, radius=r), doc_of)
        mine = [
            (d.chunk, d.neighbour, d.side, d.distance, d.score, d.bar, d.outcome)
            for d in sel.decisions
        ]
        assert _browserlike(payload, lam, tau, k, r) == mine
        assert all(doc_of[c] == doc_of[j] for c, j, *_ in mine)


def test_a_document_of_one_file_sends_the_whole_document_as_each_range():
    # doc_of is all zeros for one file: every range is [0, n - 1], which the panel calls the
    # document's edges; not giving doc_of means the same
    n = 12
    chunks, unit, sims = _doc(n, seed=5)
    params = GateParams(k=3, lam=0.5, tau=0.1, radius=2)
    one = gate_payload(chunks, sims, unit, params, kmax=n, doc_of=np.zeros(n, dtype=np.int64))
    assert set(one["files"]) == {str(c) for c in one["order"]}
    assert all(r == [0, n - 1] for r in one["files"].values())
    assert one == _payload(chunks, sims, unit, params, kmax=n)


@pytest.mark.parametrize("seed", range(3))
def test_payload_order_follows_the_retriever_and_the_gate_keeps_the_cosines(seed):
    n = 15
    chunks, unit, sims = _doc(n, seed=seed)
    rank = np.random.default_rng(seed).normal(size=n)
    rank[[4, 9]] = rank.max() + 1  # a tie at the top: the lower index first
    params = GateParams(k=3, lam=0.5, tau=0.1, radius=1)
    payload = _payload(chunks, sims, unit, params, kmax=n, rank=rank)
    assert payload["order"][:2] == [4, 9]
    for k in (1, 3, 6):
        for r in (0, 1, 2):
            sel = select_from_sims(
                sims, unit, GateParams(k, 0.5, 0.1, r), rank=rank, doc_of=one_file(len(unit))
            )
            python = [
                (d.chunk, d.neighbour, d.side, d.distance, d.score, d.bar, d.outcome)
                for d in sel.decisions
            ]
            assert _browserlike(payload, 0.5, 0.1, k, r) == python
