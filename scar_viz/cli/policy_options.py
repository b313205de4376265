"""Command-line options of the policies users compare against (docs/method.md §5, §7).

Each option maps to one knob of one policy (``dest`` = the knob's name); ``select`` passes a
knob only when its option was given, so every policy keeps its own defaults.
"""

from __future__ import annotations

import argparse

from scar_viz.policies.automerge import DEFAULT_RATIO
from scar_viz.policies.rse import PRESETS

_B = PRESETS["balanced"]

OPTIONS: tuple[tuple[str, dict[str, object]], ...] = (
    (
        "--all-windows",
        {
            "dest": "all_windows",
            "action": "store_true",
            "default": None,
            "help": "qasc: send every surviving window instead of the top k QASC chunks",
        },
    ),
    (
        "--margin",
        {
            "type": int,
            "default": None,
            "help": "qasc-hybrid: sentences around each top-k chunk QASC may use (default 2)",
        },
    ),
    (
        "--rse-preset",
        {"dest": "preset", "default": None, "help": "rse: preset (default balanced)"},
    ),
    (
        "--max-length",
        {
            "type": int,
            "default": None,
            "help": f"rse: longest segment in chunks (default {_B['max_length']:g})",
        },
    ),
    (
        "--overall-max-length",
        {
            "type": int,
            "default": None,
            "help": f"rse: chunks in all segments together (default {_B['overall_max_length']:g})",
        },
    ),
    (
        "--minimum-value",
        {
            "type": float,
            "default": None,
            "help": f"rse: stop below this segment value (default {_B['minimum_value']:g})",
        },
    ),
    (
        "--penalty",
        {
            "type": float,
            "default": None,
            "help": f"rse: constant subtracted from each chunk's value (default {_B['penalty']:g})",
        },
    ),
    (
        "--decay-rate",
        {
            "type": float,
            "default": None,
            "help": f"rse: rank decay in exp(-rank/decay) (default {_B['decay']:g})",
        },
    ),
    (
        "--merge-ratio",
        {
            "dest": "ratio",
            "type": float,
            "default": None,
            "help": f"automerge: merge a section when more than this share of its chunks is "
            f"retrieved (default {DEFAULT_RATIO:g})",
        },
    ),
    (
        "--no-fill-gaps",
        {
            "dest": "fill_gaps",
            "action": "store_false",
            "default": None,
            "help": "automerge: do not fill a single gap between two retrieved chunks",
        },
    ),
)
"""(flag, argparse keywords) per option; ``dest`` defaults to the flag's name."""

W_POLICIES = ("window", "sentence-window")
"""Policies whose ``w`` comes from ``--w`` (chunks for window, sentences for sentence-window,
default 1 and 3)."""


def _dest(flag: str, kwargs: dict[str, object]) -> str:
    return str(kwargs.get("dest") or flag.lstrip("-").replace("-", "_"))


KNOBS: tuple[str, ...] = tuple(_dest(f, kw) for f, kw in OPTIONS)
"""The knob names these options set (the ``select`` command passes those given)."""


def add_policy_options(parser: argparse.ArgumentParser) -> None:
    """Register every option of :data:`OPTIONS` on ``parser``."""
    for flag, kwargs in OPTIONS:
        parser.add_argument(flag, **kwargs)
