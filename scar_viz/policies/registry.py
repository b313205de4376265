"""Every retrieval policy, listed once in display order, and the calls that run them by name.

Each policy module declares its :class:`~scar_viz.policies.base.PolicyEntry` (name, function,
knobs); :data:`ENTRIES` collects them here, so the list of policies is read in one place and
importing a module never changes it.
"""

from __future__ import annotations

from collections.abc import Mapping

from scar_viz.common.errors import SettingsError, UserError, user_message
from scar_viz.policies import automerge, basic, learned, parent, qasc, rerank, rse, sentence_window
from scar_viz.policies.base import Policy, PolicyEntry, PolicyResult, QueryInputs

_CORE: tuple[PolicyEntry, ...] = (
    basic.TOPK,
    basic.WINDOW,
    parent.POLICY,
    rerank.POLICY,
    basic.SCAR,
    qasc.QASC,
)
_ALTERNATIVES: tuple[PolicyEntry, ...] = (
    qasc.QASC_HYBRID,
    rse.POLICY,
    automerge.POLICY,
    sentence_window.POLICY,
    learned.POLICY,
)

ENTRIES: tuple[PolicyEntry, ...] = _CORE + _ALTERNATIVES
"""Every policy, in the order the compare page and the CLI list them."""

ORDER = tuple(e.name for e in _CORE)
"""The six policies in the order the compare page and the CLI list them."""

ALTERNATIVES = tuple(e.name for e in _ALTERNATIVES)
"""What users pick instead of SCAR (docs/method.md §5, §7), in display order."""

ALL_ORDER = ORDER + ALTERNATIVES
"""Every policy in display order."""

POLICIES: dict[str, Policy] = {e.name: e.run for e in ENTRIES}
"""Policy name -> its function ``fn(inputs, **knobs) -> PolicyResult``."""

_KNOBS: dict[str, tuple[str, ...]] = {e.name: e.knobs for e in ENTRIES}
_USES_K: dict[str, bool] = {e.name: e.uses_k for e in ENTRIES}


def policy_knobs(name: str) -> tuple[str, ...]:
    """The keyword knobs policy ``name`` accepts besides its inputs (e.g. ``w`` for window)."""
    return _KNOBS[name]


def uses_k(name: str) -> bool:
    """Whether policy ``name``'s result depends on k (every policy but RSE)."""
    return _USES_K[name]


def run_policy(name: str, inputs: QueryInputs, **params: object) -> PolicyResult:
    """Run policy ``name``; raises ValueError for an unknown policy or a knob it does not take."""
    if name not in POLICIES:
        raise SettingsError(f"Unknown policy '{name}'; choose one of {sorted(POLICIES)}.")
    knobs = policy_knobs(name)
    unknown = sorted(set(params) - set(knobs))
    if unknown:
        takes = ", ".join(knobs) if knobs else "no options"
        raise SettingsError(
            f"Policy '{name}' does not take {', '.join(unknown)}; it takes {takes}."
        )
    return POLICIES[name](inputs, **params)


def run_all(
    inputs: QueryInputs, settings: Mapping[str, Mapping[str, object]]
) -> dict[str, PolicyResult | str]:
    """Run every policy in ``settings`` (name -> knobs) on the same inputs, in order.

    A policy that fails with a :class:`~scar_viz.common.errors.UserError` (e.g. a reranker that
    cannot be loaded offline) gets its message instead of a result; the others still run.
    """
    out: dict[str, PolicyResult | str] = {}
    for name, knobs in settings.items():
        try:
            out[name] = run_policy(name, inputs, **dict(knobs))
        except UserError as exc:
            out[name] = user_message(exc)
    return out
