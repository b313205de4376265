"""What the Compare page computes: each policy's knobs, labels, the cost table's rows, the
difference with SCAR, the known evidence of a question, and the learned gate's decisions.

Pure functions over :mod:`scar_viz.policies` results, so the page only draws.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scar_viz.common.fmt import EMPTY_CELL
from scar_viz.common.knobs import knob_values
from scar_viz.common.spans import Span, span_total, subtract_spans
from scar_viz.policies import ALL_ORDER, PolicyResult
from scar_viz.queries.reading import QuerySet
from scar_viz.scoring.learned import LearnedDecision
from scar_viz.scoring.params import GateParams
from scar_viz.views.compare_settings import CompareSettings
from scar_viz.views.coverage import coverage_cells, display_rows, span_count
from scar_viz.views.policy_table import comparison_rows

COVERS = "holds the evidence"
"""The cost table's evidence column."""


def policy_settings(
    knobs: CompareSettings, rerank_ok: bool, reranker_path: str = ""
) -> dict[str, dict[str, object]]:
    """Policy name -> its knobs, in :data:`ALL_ORDER`; rerank only when ``rerank_ok`` (a
    cross-encoder loads), and RSE uses that cross-encoder only then; ``reranker_path`` is the
    folder it loads from when the caller resolved the typed name to one."""
    path = reranker_path if rerank_ok else ""
    qasc = knob_values(knobs.qasc)
    hybrid = {k: v for k, v in qasc.items() if k != "max_seeds"}
    all_settings: dict[str, dict[str, object]] = {
        "topk": {},
        "window": {"w": int(knobs.w)},
        "parent": {"level": int(knobs.level), "huge_chars": int(knobs.huge_chars)},
        "rerank": {
            "n_candidates": int(knobs.n_candidates) or None,
            "reranker": knobs.reranker,
            "reranker_path": path,
        },
        "scar": {},
        "qasc": {**qasc, "all_windows": bool(knobs.all_windows)},
        "qasc-hybrid": {"margin": int(knobs.margin), **hybrid},
        "rse": {
            "preset": knobs.rse_preset,
            "reranker": knobs.reranker if rerank_ok else "",
            "reranker_path": path,
        },
        "automerge": {"ratio": float(knobs.ratio), "fill_gaps": bool(knobs.fill_gaps)},
        "sentence-window": {"w": int(knobs.sentence_w)},
        "learned": {"gate": knobs.gate, "p": float(knobs.p)},
    }
    return {n: all_settings[n] for n in ALL_ORDER if n != "rerank" or rerank_ok}


def policy_labels(knobs: CompareSettings, params: GateParams) -> dict[str, str]:
    """Policy name -> the label its strip and row show (with the knobs that matter)."""
    q = knobs.qasc
    return {
        "topk": f"topk (k={params.k})",
        "window": f"window ±{int(knobs.w)}",
        "parent": "parent" + (f" (depth {int(knobs.level)})" if knobs.level else ""),
        "rerank": "rerank",
        "scar": f"scar (r={params.radius}" + (f", μ={params.mu:g})" if params.mu else ")"),
        "qasc": "qasc"
        + (" adaptive" if q.adaptive else f" m={q.window_m}")
        + (" all windows" if knobs.all_windows else ""),
        "qasc-hybrid": "qasc-hybrid",
        "rse": f"rse ({knobs.rse_preset})",
        "automerge": f"automerge ({knobs.ratio:g})",
        "sentence-window": f"sentence-window ±{int(knobs.sentence_w)}",
        "learned": f"learned (p={knobs.p:g})",
    }


def cost_rows(
    results: Mapping[str, PolicyResult | str],
    text: str,
    labels: Mapping[str, str],
    evidence: Sequence[Span] | None = None,
) -> list[dict[str, object]]:
    """The cost table: label, spans as a reader counts them (:func:`span_count`), chunks,
    characters, tokens, time, Jaccard vs SCAR, and — when ``evidence`` is known — whether each
    context holds it (:func:`coverage_cells`). No cell is ``None``."""
    rows = comparison_rows(results, reference="scar")
    covers = coverage_cells(results, evidence, text) if evidence else {}
    out = []
    for name, row in zip(results, rows, strict=True):
        res = results[name]
        row = {"label": labels.get(name, name), **row}
        if isinstance(res, PolicyResult):
            row["spans"] = span_count(res.spans, text)
        if evidence:
            row = {**dict(list(row.items())[:3]), COVERS: covers[name], **row}
        out.append(row)
    return uniform_columns(display_rows(out))


def split_notes(
    rows: Sequence[Mapping[str, object]], key: str = "label"
) -> tuple[list[dict[str, object]], list[tuple[str, str]]]:
    """The cost table without its ``notes`` column, and the notes as (row ``key``, note) pairs
    for the non-empty ones: a note runs to a few hundred characters, more than a table column
    shows, so the page lists them in full under the table."""
    table, notes = [], []
    for row in rows:
        row = dict(row)
        note = str(row.pop("notes", "") or "")
        if note and note != EMPTY_CELL:
            notes.append((str(row.get(key, "")), note))
        table.append(row)
    return table, notes


def uniform_columns(rows: Sequence[Mapping[str, object]]) -> list[dict[str, object]]:
    """Rows whose columns hold one type each: a column with an empty cell ("—") among numbers
    becomes text throughout, so a table shows it as is."""
    out = [dict(r) for r in rows]
    for col in {c for r in out for c in r}:
        cells = [r.get(col) for r in out]
        if EMPTY_CELL in cells and any(not isinstance(c, str) for c in cells):
            for r in out:
                r[col] = "" if r.get(col) is None else str(r[col])
    return out


@dataclass(frozen=True)
class Diff:
    """What one policy sends that SCAR does not, and the reverse (spans and characters)."""

    only_theirs: tuple[Span, ...]
    only_scar: tuple[Span, ...]

    @property
    def theirs_chars(self) -> int:
        return span_total(self.only_theirs)

    @property
    def scar_chars(self) -> int:
        return span_total(self.only_scar)


def diff_with_scar(theirs: PolicyResult, scar: PolicyResult) -> Diff:
    """Character ranges in ``theirs`` and not in ``scar``, and in ``scar`` and not in it."""
    return Diff(subtract_spans(theirs.spans, scar.spans), subtract_spans(scar.spans, theirs.spans))


def _norm(question: str) -> str:
    return re.sub(r"\s+", " ", question).strip().casefold()


def find_evidence(question: str, sets: Iterable[QuerySet]) -> tuple[Span, ...]:
    """The evidence spans of ``question`` in the first set that holds it (matched ignoring
    case and runs of whitespace), or () when no set knows it."""
    want = _norm(question)
    for qset in sets:
        for q in qset.queries:
            if _norm(q.query) == want:
                return tuple((e.start, e.end) for e in q.evidence)
    return ()


def decision_label(d: LearnedDecision) -> str:
    """A "why?" option: ``chunk 14 (right of 13): admitted, probability 0.081``."""
    return (
        f"chunk {d.neighbour} ({d.side} of {d.chunk}, distance {d.distance}): {d.outcome}, "
        f"probability {d.probability:.3f}"
    )


def why_options(detail: object) -> dict[str, LearnedDecision]:
    """Label -> decision for every gate evaluation of a learned selection (retrieved
    neighbours left out: the gate never decides them); {} for any other detail."""
    decisions = getattr(detail, "decisions", ()) or ()
    return {
        decision_label(d): d
        for d in decisions
        if isinstance(d, LearnedDecision) and d.outcome != "retrieved"
    }


def why_table(decision: LearnedDecision) -> list[dict[str, object]]:
    """The "why?" rows (term, value, contribution, meaning) ready to show (no ``None``)."""
    return uniform_columns(display_rows(decision.why_rows()))


def qasc_steps(detail: Any, percentile: float) -> tuple[str, list[dict[str, object]]]:
    """QASC step by step: one sentence (θ, seeds, keep bar, windows kept, merged, sent) and one
    row per scored window (seed, first and last sentence, W, kept); ("", []) for no detail."""
    if detail is None or not hasattr(detail, "windows"):
        return "", []
    kept = sum(1 for x in detail.windows if x.kept)
    chosen = getattr(detail, "chosen", ()) or ()
    summary = (
        f"θ = {detail.threshold:.3f} (p{percentile:g}); {len(detail.seeds)} seeds; keep bar "
        f"ρ·θ = {detail.keep_bar:.3f}; {kept} of {len(detail.windows)} windows kept; "
        f"{len(detail.merged)} after merging" + (f"; {len(chosen)} sent." if chosen else ".")
    )
    rows = [
        {"seed": x.seed, "first": x.lo, "last": x.hi, "W": round(float(x.score), 3), "kept": x.kept}
        for x in detail.windows
    ]
    return summary, rows


def hit_files(
    parts: Sequence[tuple[str, int, int]],
    hits: Sequence[Span],
    rows: Sequence[Sequence[Span] | None],
    limit: int = 4,
) -> tuple[list[tuple[str, int, int]], int]:
    """The files of a corpus (``parts``: (path, start, end)) to draw Compare's strips on: those
    holding the retrieved ``hits``, in the hits' order (at most ``limit``; the files of the
    other policies' spans, ``rows``, only when there are no hits); and how many other files
    hold a policy's spans, not drawn."""

    def files(spans: Sequence[Span]) -> list[int]:
        found: list[int] = []
        for s, e in spans:
            for i, (_, a, b) in enumerate(parts):
                if s < b and e > a and i not in found:
                    found.append(i)
        return found

    anywhere = files([span for spans in rows for span in spans or ()])
    drawn = (files(hits) or anywhere)[:limit]
    return [parts[i] for i in drawn], len(set(anywhere) - set(drawn))
