"""The verdict in words, answer first (docs/method.md §9), the same in the app and on the
command line.

- ``lead`` (≤ 40 words): the choice and its recall gain over the reference (what the user has
  now), with its 95 % interval (the nested, held-out estimate where there is one) and its
  tokens as a multiple of the reference's;
- ``versus``: one short sentence, whether it can be told from the runner-up;
- ``details``: how it was measured, the figures, the held-out estimate's meaning, the power
  guide (about how many more labelled queries would separate the two:
  n ≈ (1.96 + 0.84)² · s² / d̄², d̄ and s the mean and sd of the per-query differences, for
  80 % power at α = 0.05 if the observed difference held) and the setting's spread over the
  training sets;
- :func:`verdict_rows`, the table, and :func:`verdict_notes`, what the run could not do.

``recommend --json`` gives ``sentence`` (lead and versus) and ``details``; a saved settings
file's ``chosen_on`` keeps the sentence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scar_viz.evaluation.crossval import Candidate
from scar_viz.evaluation.recommend import Verdict
from scar_viz.evaluation.settings import ChosenSettings

LEAD_WORDS = 40
"""The most words the lead may take."""
PENALTY_OFF = "λ = 0: no boundary penalty, a relative bar only."
BAR_OFF = "τ = 0: any neighbour scoring above 0 is admitted."
POWER_FACTOR = (1.96 + 0.84) ** 2
"""(z_0.975 + z_0.8)²: queries needed ≈ this · s² / d̄² (80 % power at α = 0.05)."""
LABELS = {
    "topk": "top-k",
    "window1": "window ±1",
    "scar": "SCAR tuned",
    "preset A": "SCAR preset A",
    "preset B": "SCAR preset B",
    "learned": "learned gate",
}
"""Each expansion's name in words."""


@dataclass(frozen=True)
class VerdictWords:
    """The verdict said answer first: lead, versus, details (module docstring)."""

    lead: str
    versus: str
    details: str

    @property
    def sentence(self) -> str:
        """The lead and the versus sentence: what the app's box and the command's line say."""
        return f"{self.lead} {self.versus}".strip()


def verdict_words(v: Verdict) -> VerdictWords:
    """The verdict's words (module docstring)."""
    return VerdictWords(_lead(v), _versus(v), _details(v))


def verdict_json(v: Verdict) -> dict[str, object]:
    """``recommend --json``: :meth:`Verdict.as_json` with the sentence and its details."""
    out = v.as_json()
    words = verdict_words(v)
    verdict = out["verdict"]
    assert isinstance(verdict, dict)
    verdict["sentence"] = words.sentence
    verdict["details"] = words.details
    return out


def verdict_settings(v: Verdict, **chosen_on: object) -> ChosenSettings:
    """:meth:`Verdict.settings` whose ``chosen_on`` keeps the sentence."""
    return v.settings(sentence=verdict_words(v).sentence, **chosen_on)


def candidate_name(c: Candidate) -> str:
    """The expansion with its setting, e.g. "SCAR tuned (λ 0.35, τ 0.12)"."""
    base = LABELS[c.expansion]
    if c.policy == "scar":
        mu = f", μ {c.mu:g}" if c.mu else ""
        return f"{base} (λ {c.lam:.2f}, τ {c.tau:.2f}{mu})"
    if c.policy == "learned":
        words = "lexical features" if c.features == "lexical" else "five features"
        reach = f", r {c.radius}" if c.radius > 1 else ""
        return f"{base} ({words}{reach}, p {c.p:g})"
    return base


def candidate_label(c: Candidate) -> str:
    """E.g. "SCAR tuned (λ 0.35, τ 0.12), hybrid, k = 4"."""
    return f"{candidate_name(c)}, {c.retriever}, k = {c.k}"


def verdict_notes(v: Verdict) -> tuple[str, ...]:
    """What the run could not do: learned gates left out, fewer folds than asked."""
    out = []
    if v.cv.left_out:
        where = ", ".join(f"{r} at k = {k}" for r, k in v.cv.left_out)
        out.append(
            f"The learned gate was left out for {where}: a training set had no gold neighbour "
            "among its candidates (or only gold ones)."
        )
    f = v.cv.folds
    if f.k < f.asked:
        out.append(
            f"{f.asked} folds need {5 * f.asked} queries; {f.k} folds were used on {v.n_queries}."
        )
    return tuple(out)


def verdict_rows(v: Verdict, limit: int = 8) -> list[dict[str, object]]:
    """The verdict's table: the candidates within the budget, most recall first (the first
    ``limit``), with the runner-up and the reference always in; each row's mark, retriever,
    expansion with its setting, k, recall, its difference from the reference with the 95 %
    interval, mean chunks and tokens."""
    order = sorted(
        range(len(v.candidates)),
        key=lambda i: (-round(v.candidates[i].mean_recall, 12), v.candidates[i].mean_tokens, i),
    )
    within = [i for i in order if v.candidates[i].mean_tokens <= v.budget_tokens + 1e-9]
    shown = list(dict.fromkeys([v.best, *within[:limit]]))
    for extra in (v.runner_up, v.cv.reference):
        if extra is not None and extra not in shown:
            shown.append(extra)
    marks = {
        v.cv.reference: "reference",
        **({v.runner_up: "runner-up"} if v.runner_up is not None else {}),
    }
    marks[v.best] = "verdict" if v.decided else "verdict (undecided)"
    rows = []
    for i in shown:
        s = v.scored[i]
        c = s.candidate
        rows.append(
            {
                "role": marks.get(i, ""),
                "retriever": c.retriever,
                "expansion": candidate_name(c),
                "k": c.k,
                "recall": c.mean_recall,
                "Δ recall vs reference": s.diff,
                "95 % CI": f"{s.ci_low:+.3f} to {s.ci_high:+.3f}",
                "chunks": c.mean_chunks,
                "tokens": c.mean_tokens,
            }
        )
    return rows


def queries_needed(v: Verdict) -> int | None:
    """About how many labelled queries in all would separate the verdict from the runner-up
    (module docstring); None without a runner-up or a mean difference."""
    rival = v.rival
    if v.versus is None or rival is None:
        return None
    d = v.chosen.recall - rival.recall
    mean = float(d.mean())
    if abs(mean) < 1e-12 or len(d) < 2:
        return None
    return int(math.ceil(POWER_FACTOR * float(np.var(d, ddof=1)) / mean**2))


def _words(c: Candidate) -> str:
    """E.g. "SCAR tuned (λ 0.35, τ 0.12) on hybrid at k = 4"."""
    return f"{candidate_name(c)} on {c.retriever} at k = {c.k}"


def _points(x: float) -> str:
    return f"{100 * x:+.1f}"


def _ci(low: float, high: float) -> str:
    return f"95 % CI {_points(low)} to {_points(high)}"


def _lead(v: Verdict) -> str:
    c, ref = v.chosen, v.reference
    if not v.fits:
        return (
            f"No candidate stays within {v.budget_tokens:,.0f} tokens a query; the cheapest, "
            f"{_words(c)}, finds {c.mean_recall:.3f} of the gold chunks at "
            f"{c.mean_tokens:,.0f} tokens."
        )
    if v.best == v.cv.reference:
        return (
            f"Keep what you have, {_words(ref)}: nothing within the budget beats its recall of "
            f"{ref.mean_recall:.3f} at {ref.mean_tokens:,.0f} tokens a query."
        )
    if v.nested is not None:
        gain, low, high, where = v.nested.gain, v.nested.ci_low, v.nested.ci_high, "held out"
    else:
        s = v.scored[v.best]
        gain, low, high, where = s.diff, s.ci_low, s.ci_high, "not held out"
    verb = "Use" if v.gain_held_out else "Try"
    ratio = c.mean_tokens / ref.mean_tokens if ref.mean_tokens else float("nan")
    return (
        f"{verb} {_words(c)}: {_points(gain)} recall points "
        f"({_ci(low, high)}, {where}) over "
        f"your {ref.retriever} {candidate_name(ref)} at k = {ref.k}, at {ratio:.2f}× its tokens."
    )


def _versus(v: Verdict) -> str:
    rival = v.rival
    if not v.fits:
        return ""
    if rival is None:
        return "No other option fits the budget."
    d = v.versus
    assert d is not None  # a runner-up comes with its comparison
    if not np.any(v.chosen.recall - rival.recall):
        return f"It scores the same as the runner-up, {_words(rival)}, on every query."
    if d.ci_low > 0:
        return (
            f"It beats the runner-up, {_words(rival)}, by {_points(d.mean_diff)} points "
            f"({_ci(d.ci_low, d.ci_high)})."
        )
    return (
        f"It cannot be told from the runner-up, {_words(rival)} ({_points(d.mean_diff)} points, "
        f"{_ci(d.ci_low, d.ci_high)})."
    )


def _details(v: Verdict) -> str:
    c, ref, rival = v.chosen, v.reference, v.rival
    parts = [
        f"Out of fold on {v.n_queries} queries ({v.folds} folds × {v.repeats} repeats)"
        + (f", within {_budget(v)}" if v.fits else "")
        + f": {c.mean_recall:.3f} recall at {c.mean_tokens:,.0f} tokens a query"
        + (
            ""
            if rival is None
            else f"; the runner-up {rival.mean_recall:.3f} at {rival.mean_tokens:,.0f}"
        )
        + (
            ""
            if v.best == v.cv.reference
            else f"; the reference {ref.mean_recall:.3f} at {ref.mean_tokens:,.0f}"
        )
        + "."
    ]
    parts.append(_held_out(v))
    if rival is not None and v.versus is not None and not v.versus.ci_low > 0:
        parts.append(_more(v))
    parts.extend(_setting(c))
    return " ".join(p for p in parts if p)


def _budget(v: Verdict) -> str:
    if v.budget_given:
        return f"your budget of {v.budget_tokens:,.0f} tokens"
    ref = v.reference
    return (
        f"the budget of {v.budget_tokens:,.0f} tokens (window ±1 at k = {ref.k}, {ref.retriever})"
    )


def _held_out(v: Verdict) -> str:
    if v.nested is None:
        return (
            f"The choice itself cannot be held out on {v.n_queries} queries ({v.folds} folds; it "
            f"needs 3, so 15 queries): its gain is the best of {len(v.candidates)} and may not "
            "hold on new queries."
        )
    if v.best == v.cv.reference:
        return ""
    e = v.nested
    words = (
        f"The gain is held out: for each fold the choice among the {len(v.candidates)} "
        f"candidates made on the other folds and read on it (the verdict's own figure says "
        f"{_points(v.claimed_gain)})"
    )
    if not e.ci_low > 0:
        words += "; that does not show it beats the reference"
    return words + "."


def _more(v: Verdict) -> str:
    rival = v.rival
    assert rival is not None  # said only of a runner-up
    if not np.any(v.chosen.recall - rival.recall):
        return "No number of queries would separate them."
    n = queries_needed(v)
    if n is None:
        return "Their mean difference is 0, so more queries would not separate them."
    more = max(0, n - v.n_queries)
    return (
        f"About {more:,} more labelled queries would separate them if the difference held "
        f"(n ≈ 7.84·s²/d̄² = {n:,} in all, a guide)."
    )


def _setting(c: Candidate) -> list[str]:
    words = []
    if c.policy == "scar":
        if c.lam == 0:
            words.append(PENALTY_OFF)
        if c.tau == 0:
            words.append(BAR_OFF)
    if c.tuned and c.fold_settings:
        words.append(_spread(c))
    return words


def _spread(c: Candidate) -> str:
    """What the training sets chose, e.g. "The training sets chose λ 0.00–0.45, τ 0.06–0.30."."""
    picks = c.fold_settings
    if c.policy == "scar":
        part = f"λ {_span([p[0] for p in picks])}, τ {_span([p[1] for p in picks])}"
        mus = [p[2] for p in picks]
        if any(mus):
            part += f", μ {_span(mus)}"
    else:
        lexical = sum(p[0] == "lexical" for p in picks)
        wide = sum(p[2] > 1 for p in picks)
        part = f"p {_span([p[1] for p in picks], 3)}, lexical features in {lexical} of {len(picks)}"
        if wide:
            part += f", r 2 in {wide}"
    return f"The {len(picks)} training sets chose {part}."


def _span(values: Sequence[float], digits: int = 2) -> str:
    lo, hi = min(values), max(values)
    return f"{lo:.{digits}f}" if lo == hi else f"{lo:.{digits}f}–{hi:.{digits}f}"
