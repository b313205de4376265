"""The report: every table the Evaluation lab shows and the ``eval --json`` shape, built from
an :class:`~scar_viz.evaluation.run.Evaluation` and shared by the pages and the CLI.

Tables are lists of flat dicts (one per row, columns in display order); numbers stay numbers
(the page formats them). Nothing here computes a metric: that is the run's, the
significance's, the transfer's and the tuning's job.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from scar_viz.common.fmt import EMPTY_CELL, compared
from scar_viz.evaluation.metrics import SUBSETS
from scar_viz.evaluation.run import Evaluation, PolicyEval
from scar_viz.evaluation.run_json import rounded, run_json
from scar_viz.evaluation.significance import Comparison
from scar_viz.evaluation.transfer import BarTransfer
from scar_viz.evaluation.tune import GridPoint, TuneCheck
from scar_viz.queries.gold import GoldQuery
from scar_viz.queries.reading import QueryIssue

Rows = list[dict[str, object]]

MISS_REASONS_NOTE = (
    "never reached: not retrieved and farther than r from every retrieved chunk; blocked by "
    "relevance: cos(q,n) alone is not above τ·cos(q,c); blocked by penalty: λ·b(c,n) pulls S "
    "under the bar; not examined: a nearer neighbour was rejected first (r > 1); not "
    "expanded: the policy adds no neighbours; outside the window: farther than the window."
)


def reduction(ev: Evaluation, target: str, baseline: str, subset: str = "all") -> float:
    """Relative chunk reduction of ``target`` against ``baseline`` in percent (positive = fewer)."""
    a = ev.policies[target].summaries[subset].mean_chunks
    b = ev.policies[baseline].summaries[subset].mean_chunks
    return 100.0 * (b - a) / b if b else 0.0


def points(ours: float, theirs: float) -> str:
    """The signed difference of two recalls in points: ``points(0.649, 0.711) == "−6.2
    points"`` (never "−0.0")."""
    value = round(100.0 * (ours - theirs), 1)
    if value == 0:
        return "0.0 points"
    return f"{'−' if value < 0 else '+'}{abs(value):.1f} points"


def chunk_sentence(ev: Evaluation, target: str = "scar", baseline: str = "window1") -> str:
    """ "SCAR: **30.0% fewer chunks than window ±1**, recall **−2.9 points** over all queries
    (on the fragmented ones: 41.0% fewer chunks than window ±1, recall +0.0 points)." — the chunk
    change (:func:`scar_viz.common.fmt.compared`) always beside the recall change; "" when either
    policy did not run; a subset without queries shows "—"."""
    names = ran(ev)
    if target not in names or baseline not in names:
        return ""
    other = "window ±1" if baseline == "window1" else baseline

    def rel(subset: str) -> tuple[str, str]:
        ours = ev.policies[target].summaries[subset]
        theirs = ev.policies[baseline].summaries[subset]
        if not ours.n:
            return EMPTY_CELL, EMPTY_CELL
        return (
            compared(ours.mean_chunks, theirs.mean_chunks, "chunks", other, 1),
            points(ours.recall, theirs.recall),
        )

    label = "SCAR" if target == "scar" else target
    chunks, recall = rel("all")
    f_chunks, f_recall = rel("fragmented")
    return (
        f"{label}: **{chunks}**, recall **{recall}** over all queries (on the fragmented ones: "
        f"{f_chunks}, recall {f_recall})."
    )


def ran(ev: Evaluation) -> list[str]:
    """Names of the policies that ran, in evaluation order."""
    return [n for n, pe in ev.policies.items() if not pe.error]


def summary_rows(ev: Evaluation, model: str | None = None) -> Rows:
    """One row per policy and subset (scattered only when such queries exist); a policy that
    did not run gets one row with its error; the means of a subset without queries are None
    (a view shows "—")."""
    rows: Rows = []
    for name, pe in ev.policies.items():
        if pe.error:
            rows.append({"policy": name, "subset": "—", "note": f"did not run: {pe.error}"})
            continue
        for subset, s in pe.summaries.items():
            if subset == "scattered" and not s.n:
                continue
            empty = not s.n  # no query of this type: no mean, shown as "—"
            row: dict[str, object] = {
                "policy": name,
                "subset": subset,
                "n": s.n,
                "recall": None if empty else s.recall,
                "mean chunks": None if empty else s.mean_chunks,
                "efficiency": None if empty else s.efficiency,
                "mean tokens": None if empty else s.mean_tokens,
            }
            rows.append({"model": model, **row} if model else row)
    return rows


def summary_lines(ev: Evaluation) -> list[str]:
    """The CLI's fixed-width summary table (header first)."""
    lines = [
        f"{'policy':<10} {'subset':<11} {'n':>3} {'recall':>7} {'chunks':>7} "
        f"{'effic.':>7} {'tokens':>8}"
    ]
    for row in summary_rows(ev):
        if "note" in row:
            continue
        if row["recall"] is None:
            lines.append(f"{row['policy']:<10} {row['subset']:<11} {row['n']:>3} {EMPTY_CELL:>7}")
            continue
        lines.append(
            f"{row['policy']:<10} {row['subset']:<11} {row['n']:>3} {row['recall']:>7.3f} "
            f"{row['mean chunks']:>7.2f} {row['efficiency']:>7.3f} {row['mean tokens']:>8.1f}"
        )
    return lines


def per_query_rows(ev: Evaluation, policy: str) -> Rows:
    """One row per query for ``policy``: gold, selection, recall, cost and why each gold
    chunk was missed."""
    pe = ev.policies[policy]
    return [
        {
            "id": gq.id,
            "type": gq.type,
            "query": gq.query.query,
            "gold": ", ".join(map(str, gq.gold)),
            "selected": "—" if o.selected is None else ", ".join(map(str, o.selected)),
            "recall": o.recall,
            "chunks": o.chunks,
            "tokens": o.tokens,
            "missed → why": "; ".join(f"{m.chunk}: {m.reason}" for m in o.misses),
        }
        for gq, o in zip(ev.queries, pe.outcomes, strict=True)
    ]


def miss_reason_rows(ev: Evaluation) -> Rows:
    """Missed gold chunks counted by reason, one row per policy that ran (a column per reason
    that occurs, zeros filled); empty when nothing was missed."""
    counts = {
        n: Counter(m.reason for o in ev.policies[n].outcomes for m in o.misses) for n in ran(ev)
    }
    reasons = sorted({r for c in counts.values() for r in c})
    if not reasons:
        return []
    return [{"policy": n, **{r: counts[n][r] for r in reasons}} for n in counts]


def significance_rows(tests: Sequence[Comparison]) -> Rows:
    """One row per comparison: means, difference, 95% CI, p and Cohen's d."""
    return [
        {
            "SCAR vs": t.baseline,
            "metric": t.metric,
            "SCAR": t.result.mean_a,
            "baseline": t.result.mean_b,
            "mean diff": t.result.mean_diff,
            "95% CI low": t.result.ci_low,
            "95% CI high": t.result.ci_high,
            "p (two-sided)": t.result.p_value,
            "Cohen's d": t.result.cohens_d,
        }
        for t in tests
    ]


def significance_lines(tests: Sequence[Comparison]) -> list[str]:
    """The CLI's one line per comparison."""
    return [
        f"{c.target} − {c.baseline} {c.metric}: {c.result.mean_diff:+.3f} "
        f"[{c.result.ci_low:+.3f}, {c.result.ci_high:+.3f}] p={c.result.p_value:.4f} "
        f"d={c.result.cohens_d:+.2f}"
        for c in tests
    ]


def issue_rows(issues: Sequence[QueryIssue]) -> Rows:
    """The query file's messages: line, id, level, message."""
    return [
        {"line": i.line, "id": i.query_id, "level": i.level, "message": i.message} for i in issues
    ]


def transfer_rows(ev: Evaluation, ev2: Evaluation) -> Rows:
    """The same policies under two models, side by side (policies that ran on both)."""
    rows: Rows = []
    for name, pe in ev.policies.items():
        pe2 = ev2.policies.get(name)
        if pe.error or pe2 is None or pe2.error:
            continue
        a, b = pe.summaries["all"], pe2.summaries["all"]
        rows.append(
            {
                "policy": name,
                "recall · 1": a.recall,
                "recall · 2": b.recall,
                "chunks · 1": a.mean_chunks,
                "chunks · 2": b.mean_chunks,
                "efficiency · 1": a.efficiency,
                "efficiency · 2": b.efficiency,
            }
        )
    return rows


def bar_rows(bars: BarTransfer) -> Rows:
    """The relative and the absolute bar on each model."""
    return [
        {
            "model": r.model,
            "bar": r.bar,
            "recall": r.recall,
            "mean chunks": r.mean_chunks,
            "efficiency": r.efficiency,
        }
        for r in bars.rows
    ]


def _grid_row(point: GridPoint) -> dict[str, object]:
    return {
        "λ": point.lam,
        "τ": point.tau,
        "recall": point.recall,
        "mean chunks": point.mean_chunks,
        "efficiency": point.efficiency,
    }


def tune_rows(tc: TuneCheck, tune_name: str, check_name: str) -> Rows:
    """The tune/check table: tuned, transferred, the check set's best, the sliders on each."""
    return [
        {"setting": "best on the tune set", "set": tune_name, **_grid_row(tc.tuned)},
        {"setting": "… applied to the check set", "set": check_name, **_grid_row(tc.transferred)},
        {"setting": "best on the check set", "set": check_name, **_grid_row(tc.check_best)},
        {"setting": "sliders (nearest grid point)", "set": tune_name, **_grid_row(tc.sliders_tune)},
        {
            "setting": "sliders (nearest grid point)",
            "set": check_name,
            **_grid_row(tc.sliders_check),
        },
    ]


def chunker_rows(evals: dict[str, Evaluation]) -> list[dict[str, object]]:
    """One row per chunking of the same queries: how much fragmentation it leaves, and how
    much of it SCAR repairs over top-k (recall gained) at what cost (chunks added).

    ``evals`` maps a chunking label to its evaluation (same queries, same policies).
    """
    rows = []
    for label, ev in evals.items():
        row: dict[str, object] = {
            "chunking": label,
            "chunks in document": ev.settings.n_chunks,
            "fragmented queries": ev.type_counts["fragmented"],
            "scattered queries": ev.type_counts["scattered"],
        }
        ran = {n: pe for n, pe in ev.policies.items() if not pe.error}
        for name, pe in ran.items():
            row[f"recall {name}"] = pe.summaries["all"].recall
            row[f"chunks {name}"] = pe.summaries["all"].mean_chunks
        if "scar" in ran and "topk" in ran:
            scar, top = ran["scar"].summaries["all"], ran["topk"].summaries["all"]
            row["SCAR recall gain over top-k"] = scar.recall - top.recall
            row["SCAR chunks added"] = scar.mean_chunks - top.mean_chunks
        rows.append(row)
    return rows


EVAL_SETTING = ("document", "model", "chunking", "n_chunks", "params")
"""The setting ``eval --json`` writes, in order (``params`` with ``prepend``)."""


def evaluation_json(
    ev: Evaluation, comparisons: Sequence[Comparison] = (), per_query: bool = True
) -> dict[str, object]:
    """The ``eval --json`` shape (:func:`~scar_viz.evaluation.run_json.run_json`):
    ``{"n_queries", "policies": {name: {"all", "fragmented", "atomic", "scattered"}}}`` with
    recall, mean_chunks, efficiency, mean_tokens (and n) per subset (``scattered`` only when
    such queries exist), plus the type counts, the setting, the significance tests, the
    per-query rows and the query-file issues. On a corpus the setting also lists
    ``documents`` (the files' paths) and each query row names its gold chunks by file
    (``gold_chunks``: ``{"doc", "index"}``, the index within that file)."""
    counts = ev.type_counts
    subsets = [s for s in SUBSETS if s != "scattered" or counts["scattered"]]

    def summary(pe: PolicyEval) -> dict[str, object]:
        entry: dict[str, object] = {
            subset: {
                k: (rounded(v) if isinstance(v, float) else v)
                for k, v in pe.summaries[subset].as_dict().items()
            }
            for subset in subsets
        }
        entry["recall_by"] = "character coverage" if pe.by_coverage else "chunk ids"
        return entry

    def outcome(pe: PolicyEval, qi: int) -> dict[str, object]:
        o = pe.outcomes[qi]
        return {
            "recall": rounded(o.recall),
            "chunks": rounded(o.chunks),
            "tokens": o.tokens,
            "selected": list(o.selected) if o.selected is not None else None,
            "misses": [{"chunk": m.chunk, "reason": m.reason} for m in o.misses],
        }

    def query_fields(gq: GoldQuery) -> dict[str, object]:
        fields: dict[str, object] = {
            "id": gq.id,
            "type": gq.type,
            "declared_type": gq.query.declared_type,
            "gold": list(gq.gold),
        }
        if gq.gold_refs:
            fields["gold_chunks"] = [{"doc": d, "index": i} for d, i in gq.gold_refs]
        return fields

    head = {f"n_{kind}": n for kind, n in counts.items()}
    setting = EVAL_SETTING + (("documents",) if ev.settings.documents else ())
    return run_json(
        ev.queries,
        {**head, **ev.settings.as_json(setting, prepend=True)},
        ev.policies,
        summary,
        comparisons,
        {"issues": issue_rows(ev.issues)},
        per_query=outcome if per_query else None,
        query_fields=query_fields,
    )
