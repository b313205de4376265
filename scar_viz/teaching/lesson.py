"""The guided lesson, steps 1 and 4: a real fragmented pair, and why the bar is relative.

Its material (which sample, which question, the sample's labelled questions) is here too; step
3's predict-then-reveal rounds live in :mod:`scar_viz.teaching.rounds`. Pure functions over
chunks and decisions; the Learn page renders them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.common.edges import one_file
from scar_viz.common.fmt import decides, decisive_digits, percent
from scar_viz.common.vectors import normalize
from scar_viz.documents import samples
from scar_viz.documents.reading import Document
from scar_viz.queries.gold import GoldQuery, label_queries
from scar_viz.queries.reading import parse_queries
from scar_viz.scoring.params import DEFAULT_K, DEFAULT_LAM, DEFAULT_TAU, GateParams
from scar_viz.scoring.scar import Decision, select_from_sims

LESSON_QUERY = "harbor-f-01"
"""The sample question the lesson (Learn, step 1) and the landing show cut in two."""
LESSONS = {samples.DEFAULT_SAMPLE: LESSON_QUERY, "reitou": "ja-f-06"}
"""The samples the lesson runs on, each with its step-1 question (a fragmented one whose second
half top-k drops)."""


def lesson_gold(sample: str, document: Document, chunks: Sequence[Chunk]) -> tuple[GoldQuery, ...]:
    """The built-in ``sample``'s labelled questions (its ``document``) under ``chunks``: the
    lesson's questions, its step-1 question among them."""
    found = parse_queries(samples.sample_queries_text(sample), document)
    return tuple(label_queries(found, document, chunks))


@dataclass(frozen=True)
class FragmentPair:
    """Evidence cut by a boundary: ``left`` holds its first part, ``right`` the rest."""

    left: int
    right: int
    start: int
    end: int
    cut: int  # first character of the evidence that is not in ``left``


def fragment_pair(chunks: Sequence[Chunk], start: int, end: int) -> FragmentPair | None:
    """The first boundary inside the evidence ``[start, end)``, or None if one chunk holds it."""
    for a, b in zip(chunks, chunks[1:], strict=False):
        if a.start <= start < a.end < end and b.start < end:
            return FragmentPair(a.index, b.index, start, end, a.end)
    return None


@dataclass(frozen=True)
class FragmentPart:
    """One half of the fragmented pair: chunk ``index`` with cos(q,c) ``cos``, its rank by
    cos(q,c) (1 = best) and its text split around the evidence: ``before``, ``marked``,
    ``after`` (plain text; the view escapes it)."""

    index: int
    cos: float
    rank: int
    before: str
    marked: str
    after: str


@dataclass(frozen=True)
class FragmentStep:
    """Step 1: the evidence ``pair`` cut by a boundary and how a top-``k`` retriever ranks its
    halves; ``kept`` says whether top-k keeps the second half too."""

    pair: FragmentPair
    parts: tuple[FragmentPart, FragmentPart]
    k: int
    n_chunks: int

    @property
    def kept(self) -> bool:
        return self.parts[1].rank <= self.k

    def sentence(self) -> str:
        """Where the splitter cut the evidence and whether top-k keeps the second half."""
        left, right = self.parts
        return (
            f"The answer is one passage, but the splitter (600/60) cut it between chunk "
            f"{left.index} and chunk {right.index}. The retriever ranks chunk {left.index} "
            f"#{left.rank} and chunk {right.index} #{right.rank} of {self.n_chunks}: with "
            f"k = {self.k}, a top-k retriever {'keeps' if self.kept else 'drops'} the second half."
        )


def fragment_step(
    chunks: Sequence[Chunk],
    text: str,
    unit: np.ndarray,
    query_vec: np.ndarray,
    start: int,
    end: int,
    k: int = DEFAULT_K,
) -> FragmentStep | None:
    """The first boundary inside the evidence ``[start, end)`` (see :func:`fragment_pair`),
    each half's cos(q,c) and rank among all chunks (``unit``: (N, d) unit chunk vectors in
    document order) and its highlighted text; None when one chunk holds the evidence."""
    pair = fragment_pair(chunks, start, end)
    if pair is None:
        return None
    sims = unit @ normalize(np.asarray(query_vec, dtype=np.float64).reshape(-1))
    order = np.argsort(-sims, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(1, len(order) + 1)
    parts = []
    for idx in (pair.left, pair.right):
        c = chunks[idx]
        lo, hi = max(c.start, start), min(c.end, end)
        parts.append(
            FragmentPart(
                idx,
                float(sims[idx]),
                int(rank[idx]),
                text[c.start : lo],
                text[lo:hi],
                text[hi : c.end],
            )
        )
    return FragmentStep(pair, (parts[0], parts[1]), k, len(chunks))


# --- step 4: why the bar is relative ----------------------------------------------------------

SCALE_ALPHA = 0.0
"""Step 4's default offset α of model 2 (the relative bar is invariant only at α = 0)."""
SCALE_BETA = 0.5
"""Step 4's default spread β of model 2: its similarities are half as spread out."""


@dataclass(frozen=True)
class ScaleDemoRow:
    """One decision on model 1 and on model 2 (S' and the relative bar τ·cos'(q,c))."""

    chunk: int
    neighbour: int
    score1: float
    bar1: float
    score2: float
    bar2: float
    model1: bool
    relative2: bool
    absolute2: bool


@dataclass(frozen=True)
class ScaleDemo:
    """Model 2's decisions under SCAR's relative bar and under an absolute bar ``theta``.

    ``keep_rel`` / ``keep_abs``: the share of model 1's decisions each bar keeps on model 2;
    ``changed_rel`` / ``changed_abs``: the rows whose decision changed.
    """

    rows: tuple[ScaleDemoRow, ...]
    theta: float
    alpha: float
    beta: float

    @property
    def changed_rel(self) -> tuple[ScaleDemoRow, ...]:
        return tuple(r for r in self.rows if r.relative2 != r.model1)

    @property
    def changed_abs(self) -> tuple[ScaleDemoRow, ...]:
        return tuple(r for r in self.rows if r.absolute2 != r.model1)

    @property
    def keep_rel(self) -> float:
        return 1.0 - len(self.changed_rel) / len(self.rows) if self.rows else 1.0

    @property
    def keep_abs(self) -> float:
        return 1.0 - len(self.changed_abs) / len(self.rows) if self.rows else 1.0


def tune_absolute_bar(decisions: Sequence[Decision]) -> float:
    """The absolute bar θ tuned on model 1: the one number that reproduces model 1's
    decisions best (admit iff S > θ); of equally good θ, the middle of the widest gap
    between consecutive scores. 0.0 when there is no candidate."""
    rows = [d for d in decisions if d.outcome != "retrieved"]
    if not rows:
        return 0.0
    s = np.array(sorted({d.score for d in rows}))
    cuts = np.concatenate(([s[0] - 0.05], (s[1:] + s[:-1]) / 2, [s[-1] + 0.05]))
    gaps = np.concatenate(([0.1], s[1:] - s[:-1], [0.1]))
    scores = np.array([d.score for d in rows])
    passes = np.array([d.passes for d in rows])
    agree = np.array([np.sum((scores > t) == passes) for t in cuts])
    best = np.flatnonzero(agree == agree.max())
    return float(cuts[best[np.argmax(gaps[best])]])


def scale_demo(
    decisions: Sequence[Decision],
    alpha: float = SCALE_ALPHA,
    beta: float = SCALE_BETA,
    theta: float | None = None,
) -> ScaleDemo:
    """Each candidate on model 1 and on model 2, whose similarities are cos' = α + β·cos.

    The penalty is rescaled consistently: read b(c,n) = cos(c,c) − cos(c,n), so
    b' = cos'(c,c) − cos'(c,n) = β·b. Then

        S' = cos'(q,n) − λ·b' = α + β·S,      bar' = τ·cos'(q,c) = τ·α + β·bar,
        S' − bar' = β·(S − bar) + α·(1 − τ).

    **The relative bar is invariant to the spread**: with α = 0 and any β > 0 every decision
    is model 1's. It is *not* invariant to an offset: α shifts every margin by α·(1 − τ)
    (unless τ = 1), so with α ≠ 0 both bars can change decisions. The absolute bar θ (tuned
    on model 1 by :func:`tune_absolute_bar` unless given) admits iff S' > θ: a change of
    spread alone moves scores across it.

    Raises:
        ValueError: when β ≤ 0 (a model whose similarities are not increasing in cos).
    """
    if beta <= 0:
        raise ValueError("The spread β must be positive.")
    cand = [d for d in decisions if d.outcome != "retrieved"]
    theta = tune_absolute_bar(cand) if theta is None else float(theta)
    rows = []
    for d in cand:
        score2 = alpha + beta * d.score
        bar2 = d.tau * alpha + beta * d.bar
        # the relative decision from the margin, so a pure rescale cannot flip it by rounding
        relative = bool(beta * d.margin + alpha * (1.0 - d.tau) > 0)
        rows.append(
            ScaleDemoRow(
                d.chunk,
                d.neighbour,
                d.score,
                d.bar,
                score2,
                bar2,
                d.passes,
                relative,
                bool(score2 > theta),
            )
        )
    return ScaleDemo(tuple(rows), theta, float(alpha), float(beta))


def pooled_decisions(
    unit: np.ndarray,
    query_vectors: np.ndarray,
    lam: float = DEFAULT_LAM,
    tau: float = DEFAULT_TAU,
    k: int = DEFAULT_K,
) -> tuple[Decision, ...]:
    """Step 4's numbers: every gate decision (r = 1) for each query vector (rows of
    ``query_vectors``, e.g. the sample's labelled questions) on ``unit`` chunk vectors, at
    (λ, τ) — by default preset A."""
    out: list[Decision] = []
    for v in np.atleast_2d(query_vectors):
        sims = unit @ normalize(np.asarray(v, dtype=np.float64))
        sel = select_from_sims(sims, unit, GateParams(k, lam, tau, 1), doc_of=one_file(len(unit)))
        out.extend(d for d in sel.decisions if d.outcome != "retrieved")
    return tuple(out)


SCALE_INTRO = (
    "Embedding models put the same pair of texts at different cosines. Model 2 below is this "
    "model with every cosine mapped to α + β·cos. The spread β is what a model's training "
    "temperature sets: contrastive training only sees cos / temperature, so models trained "
    "alike at different temperatures differ mostly in spread. The offset α is what anisotropy "
    "adds: when every vector shares one direction with weight a, even unrelated text scores "
    "high, cos′ ≈ a² + (1 − a²)·cos, an offset and a narrower spread at once. The sample's "
    "gate decisions (all its questions, preset A) are judged on model 2 twice: with SCAR's "
    "relative bar τ·cos(q,c), and with an absolute bar θ, the one number that best reproduces "
    "model 1's decisions."
)
"""Step 4's text above its sliders (what α and β stand for)."""


def scale_caption(demo: ScaleDemo) -> str:
    """Step 4's reading of its two metrics at the sliders' (α, β), in the terms of
    :func:`scale_demo`: a spread multiplies both sides of the relative test, an offset does not."""
    rel, ab = percent(demo.keep_rel), percent(demo.keep_abs)
    spread = (
        "A change of spread multiplies both sides of the relative test by β (S′ = β·S, "
        "bar′ = β·bar), so it never changes a decision; the absolute bar θ = "
        f"{demo.theta:.3f} does not scale, so scores cross it."
    )
    offset = (
        "An offset does not cancel: it adds α to S but only τ·α to the bar, moving every "
        "margin by α·(1 − τ), so the relative bar changes decisions too."
    )
    if demo.alpha == 0:
        now = f"At α = 0 (spread only) the relative bar keeps {rel}, the absolute {ab}."
    else:
        now = (
            f"At α = {demo.alpha:g} (an offset) neither bar is invariant: the relative bar "
            f"keeps {rel}, the absolute {ab}."
        )
    advice = (
        "So τ carries over between models that differ in spread; for a model whose cosines "
        "are offset, re-tune τ on it (the λ×τ sweep)."
    )
    return " ".join((now, spread, offset, advice))


def _listed(demo: ScaleDemo, changed_only: bool) -> tuple[ScaleDemoRow, ...]:
    if not changed_only:
        return demo.rows
    return tuple(r for r in demo.rows if r.relative2 != r.model1 or r.absolute2 != r.model1)


def scale_digits(demo: ScaleDemo, changed_only: bool = True) -> int:
    """Decimals at which step 4's table (:func:`scale_rows`) decides each of its verdicts from
    the digits it shows: S against bar (model 1), S′ against bar′ (relative) and S′ against θ
    (absolute); 3 unless a row is closer than that (:func:`scar_viz.common.fmt.decisive_digits`)."""
    rows, theta = _listed(demo, changed_only), demo.theta

    def check(digits: int) -> bool:
        return all(
            decides(r.model1, r.score1, r.bar1, digits)
            and decides(r.relative2, r.score2, r.bar2, digits)
            and decides(r.absolute2, r.score2, theta, digits)
            for r in rows
        )

    return decisive_digits(check)


def scale_rows(demo: ScaleDemo, changed_only: bool = True) -> list[dict[str, object]]:
    """Step 4's table: each decision (by default only those one of the bars changes) with its
    numbers on model 1 and model 2 and the three verdicts ("admit" / "reject")."""

    def verdict(admit: bool) -> str:
        return "admit" if admit else "reject"

    rows = _listed(demo, changed_only)
    g = scale_digits(demo, changed_only)
    return [
        {
            "c → n": f"{r.chunk} → {r.neighbour}",
            "S": round(r.score1, g),
            "bar": round(r.bar1, g),
            "model 1": verdict(r.model1),
            "S′": round(r.score2, g),
            "bar′": round(r.bar2, g),
            "model 2, relative bar": verdict(r.relative2),
            f"model 2, absolute θ = {demo.theta:.{g}f}": verdict(r.absolute2),
        }
        for r in rows
    ]
