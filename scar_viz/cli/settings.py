"""``--settings FILE`` on ``select``, ``eval`` and ``answer``: run exactly a saved setting.

The file is what ``recommend --save`` (or the app's verdict download) writes
(:func:`~scar_viz.evaluation.settings.load_settings`): retriever and k_rrf, the expansion
(``topk``, ``window1``, ``scar``, ``learned``), k, r, λ, τ, μ, p and the learned gate itself.
Every command runs it through :func:`~scar_viz.evaluation.apply.run_setting`. An option given
beside it (``--k 5``, ``--retriever dense``, ``--p 0.1``, ``--gate g.json``, ``select
--policy scar``…) overrides that field, and the output names it; an unreadable or malformed
file is one sentence and a non-zero exit.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from scar_viz.cli.common import given_dests
from scar_viz.common.errors import SettingsError
from scar_viz.evaluation.apply import ChunkSet, setting_runner
from scar_viz.evaluation.run import Runner
from scar_viz.evaluation.settings import ChosenSettings, SettingsFileError, load_settings
from scar_viz.pipeline import PreparedDoc
from scar_viz.scoring.learned import resolve_gate

OVERRIDES: dict[str, tuple[str, str]] = {
    "retriever": ("--retriever", "retriever"),
    "rrf_k": ("--rrf-k", "k_rrf"),
    "policy": ("--policy", "policy"),
    "k": ("--k", "k"),
    "radius": ("--radius", "radius"),
    "lam": ("--lam", "lam"),
    "tau": ("--tau", "tau"),
    "mu": ("--mu", "mu"),
    "gate": ("--gate", "gate"),
    "p": ("--p", "p"),
}
"""Option destination → (its flag, the :class:`ChosenSettings` field it overrides)."""


def add_settings_option(p: argparse.ArgumentParser) -> None:
    """``--settings FILE``."""
    p.add_argument(
        "--settings",
        default=None,
        help="run exactly the setting of this settings file (recommend --save, the app's "
        "verdict download): retriever, expansion, k, r, λ, τ, μ, p and the learned gate; "
        "options given beside it override it and are named in the output",
    )


@dataclass(frozen=True)
class FromFile:
    """A setting read from ``path``, with the flags given beside it that changed it."""

    path: str
    setting: ChosenSettings
    overridden: tuple[str, ...]

    def as_json(self) -> dict[str, object]:
        """``{"file", "policy", "retriever", "overridden"}`` for the commands' JSON."""
        return {
            "file": self.path,
            "policy": self.setting.policy,
            "retriever": self.setting.retriever_setting.as_json(),
            "overridden": list(self.overridden),
        }

    def line(self) -> str:
        """E.g. ``settings: s.json (learned on hybrid (k_rrf = 60), k = 4, r = 1, p = 0.06;
        overridden by --k)``."""
        s = self.setting
        parts = [f"{s.policy} on {s.retriever_setting.label}", f"k = {s.k}"]
        if s.policy in ("scar", "learned"):
            parts.append(f"r = {s.radius}")
        if s.policy == "scar":
            p = s.params
            parts.append(f"λ = {p.lam:g}, τ = {p.tau:g}" + (f", μ = {p.mu:g}" if p.mu else ""))
        if s.policy == "learned":
            parts.append(f"p = {s.p:g}")
        told = f"; overridden by {', '.join(self.overridden)}" if self.overridden else ""
        return f"settings: {self.path} ({', '.join(parts)}{told})"


def settings_of(args: argparse.Namespace) -> FromFile | None:
    """The setting of ``--settings`` with the options given beside it applied; None without
    ``--settings``.

    Raises:
        SettingsFileError: an unreadable or malformed file, or an override it cannot take
            (one sentence).
    """
    path = getattr(args, "settings", None)
    if not path:
        return None
    chosen = load_settings(path)
    given = given_dests(args)
    changes: dict[str, Any] = {}
    flags = []
    for dest, (flag, name) in OVERRIDES.items():
        if dest in given and hasattr(args, dest):
            value = getattr(args, dest)
            changes[name] = resolve_gate(value) if dest == "gate" else value
            flags.append(flag)
    policy = changes.get("policy", chosen.policy)
    fill: dict[str, Any] = {}
    if policy == "scar":  # a setting switched to SCAR takes the defaults it lacks
        fill = {"lam": args.lam, "tau": args.tau, "mu": args.mu}
    elif policy == "learned":
        fill = {"gate": resolve_gate(getattr(args, "gate", None)), "p": getattr(args, "p", None)}
    for name, value in fill.items():
        if changes.get(name, getattr(chosen, name)) is None:
            changes[name] = value
    try:
        setting = replace(chosen, **changes)
    except (SettingsFileError, SettingsError, ValueError) as exc:
        raise SettingsFileError(f"'{path}' with {', '.join(flags)}: {exc}") from None
    return FromFile(str(path), setting, tuple(flags))


def apply_to_args(chosen: FromFile, args: argparse.Namespace) -> None:
    """Write the setting into ``args`` (k, r, λ, τ, μ, the retriever, the policy, p), so a
    command's header and JSON show what runs."""
    s = chosen.setting
    p = s.params
    args.k, args.radius, args.lam, args.tau, args.mu = p.k, p.radius, p.lam, p.tau, p.mu
    args.retriever, args.rrf_k = s.retriever, s.k_rrf
    if hasattr(args, "policy"):
        args.policy = s.policy
    if hasattr(args, "p") and s.p is not None:
        args.p = s.p
    if hasattr(args, "gate") and s.policy == "learned" and "gate" not in given_dests(args):
        args.gate = f"{chosen.path} (its gate)"


def print_chosen_on_notes(chosen: FromFile, prep: PreparedDoc) -> None:
    """A ``note:`` line on stderr for each way this run differs from what the setting was
    chosen on (model, chunking, prepending)."""
    on = chosen.setting.chosen_on
    have = {
        "model": prep.embedder_id,
        "chunking": prep.config.label,
        "prepend": bool(prep.prepend),
    }
    for key, value in have.items():
        if key in on and on[key] != value:
            print(
                f"note: the setting was chosen with {key} {on[key]}; this run has {value}.",
                file=sys.stderr,
            )


def setting_runners(chosen: FromFile | None, prep: PreparedDoc) -> dict[str, Runner] | None:
    """The setting's runner under its policy's label, after :func:`print_chosen_on_notes`
    (None without ``--settings``): what ``eval`` and ``answer`` run it with."""
    if chosen is None:
        return None
    print_chosen_on_notes(chosen, prep)
    return {chosen.setting.policy: setting_runner(chosen.setting, ChunkSet.of(prep))}


def settings_policies(chosen: FromFile, extra: Sequence[str] | None) -> tuple[str, ...]:
    """The labels ``eval``/``answer --settings`` run: the setting's (by its policy's name),
    then the ``--policies`` given beside it to compare with (at the setting's k, r and
    retriever)."""
    from scar_viz.evaluation import parse_policy_list

    others = parse_policy_list(extra) if extra else ()
    own = chosen.setting.policy
    return (own, *(label for label in others if label != own))
