"""The policy knobs of the Compare page and of ``select``: one declaration, two front ends.

A field made with :func:`scar_viz.common.knobs.knob` is a widget of the page (label, range, key); a
field given :func:`scar_viz.common.knobs.cli` metadata (or made with
:func:`scar_viz.common.knobs.option`, options the page does not show) is an option of ``python -m
scar_viz select``, named after the policy that takes it. The page draws the widgets from the fields
(``ui/knobs.py``), ``select`` adds the options from them (:mod:`scar_viz.cli.main`), and both build
the settings by keyword. Fields without a widget keep their defaults on the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scar_viz.chunking.qasc import QascParams
from scar_viz.common.knobs import cli, knob, option
from scar_viz.policies.automerge import DEFAULT_RATIO
from scar_viz.policies.parent import HUGE_SECTION_CHARS
from scar_viz.policies.rerank import DEFAULT_RERANKER
from scar_viz.policies.rse import PRESETS as RSE_PRESETS
from scar_viz.policies.sentence_window import DEFAULT_SENTENCE_W
from scar_viz.scoring.learned import DEFAULT_P, LearnedGate

_RSE = RSE_PRESETS["balanced"]


def _rse(flag: str, help: str, preset_key: str) -> Any:
    """An RSE option, None by default (the preset's value); its help gives the default
    preset's value."""
    return option(None, flag, "rse", f"{help} (default {_RSE[preset_key]:g})")


@dataclass(frozen=True)
class CompareSettings:
    """Every policy's knobs on the Compare page and in ``select`` (defaults: each policy's own).

    ``qasc`` draws its own knobs and options (:class:`QascParams`); ``gate`` and ``p`` are the
    learned gate's (the session's gate and the shared p slider; ``--gate`` and ``--p``), not
    widgets of this declaration.
    """

    w: int = knob(
        1,
        "Window ±w (chunks)",
        "w",
        (1, 10, None),
        **cli(
            "--w",
            "window",
            "half-width in chunks (default 1); sentence-window: in sentences "
            f"(default {DEFAULT_SENTENCE_W})",
            only=("window", "sentence-window"),
        ),
    )
    n_candidates: int = knob(
        0,
        "Rerank: cosine candidates (0 = 4·k)",
        "nc",
        (0, 200, None),
        **cli("--n-candidates", "rerank", "cosine candidates to rerank (default 4k)"),
    )
    reranker: str = knob(
        DEFAULT_RERANKER,
        "Rerank: cross-encoder (local name or folder)",
        "rr",
        widget="text",
        **cli(
            "--reranker",
            "rerank",
            f"CrossEncoder name in the local HF cache, or a folder (default {DEFAULT_RERANKER})",
        ),
    )
    level: int = knob(
        0,
        "Parent: heading depth",
        "plevel",
        (0, 6, None),
        **cli(
            "--parent-level",
            "parent",
            "ancestor heading depth to return (default 0 = the section)",
        ),
    )
    huge_chars: int = option(
        HUGE_SECTION_CHARS,
        "--huge-chars",
        "parent",
        f"cap on a section, in characters (default {HUGE_SECTION_CHARS})",
    )
    margin: int = option(
        2, "--margin", "qasc-hybrid", "sentences around each top-k chunk QASC may use (default 2)"
    )
    rse_preset: str = knob(
        "balanced",
        "RSE preset",
        "rse_preset",
        widget="select",
        options=tuple(RSE_PRESETS),
        **cli("--rse-preset", "rse", "preset (default balanced)", name="preset"),
    )
    max_length: int | None = _rse("--max-length", "longest segment in chunks", "max_length")
    overall_max_length: int | None = _rse(
        "--overall-max-length", "chunks in all segments together", "overall_max_length"
    )
    minimum_value: float | None = _rse(
        "--minimum-value", "stop below this segment value", "minimum_value"
    )
    penalty: float | None = _rse(
        "--penalty", "constant subtracted from each chunk's value", "penalty"
    )
    decay_rate: float | None = _rse("--decay-rate", "rank decay in exp(-rank/decay)", "decay")
    ratio: float = knob(
        DEFAULT_RATIO,
        "Auto-merging: merge ratio",
        "am_ratio",
        (0.0, 1.0, 0.05),
        widget="slider",
        **cli(
            "--merge-ratio",
            "automerge",
            "merge a section when more than this share of its chunks is retrieved "
            f"(default {DEFAULT_RATIO:g})",
        ),
    )
    fill_gaps: bool = option(
        True,
        "--no-fill-gaps",
        "automerge",
        "do not fill a single gap between two retrieved chunks",
    )
    sentence_w: int = knob(DEFAULT_SENTENCE_W, "Sentence window ±w", "sw", (0, 10, None))
    all_windows: bool = knob(
        False,
        "QASC top-k: send all windows",
        "qaw",
        widget="toggle",
        **cli(
            "--all-windows",
            "qasc",
            "send every surviving window instead of the top k QASC chunks",
        ),
    )
    qasc: QascParams = field(default_factory=QascParams)
    gate: LearnedGate | None = None
    p: float = DEFAULT_P
