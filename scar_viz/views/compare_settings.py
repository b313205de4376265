"""The policy knobs of the Compare page and of ``select``: one declaration, two front ends.

Each field is a :func:`scar_viz.knobs.knob` (the page's widget: label, range, key) and, when
the CLI has it, carries its option (``cli``: flag and help). The page draws the widgets from
the fields (``ui/knobs.py``); ``python -m scar_viz select`` adds the options from them
(:func:`cli_options`), and both build the settings by keyword.
"""

from __future__ import annotations

from dataclasses import Field, dataclass, field, fields
from typing import Any

from scar_viz.chunking.qasc import QascParams
from scar_viz.knobs import knob
from scar_viz.policies.automerge import DEFAULT_RATIO
from scar_viz.policies.parent import HUGE_SECTION_CHARS
from scar_viz.policies.rerank import DEFAULT_RERANKER
from scar_viz.policies.rse import PRESETS as RSE_PRESETS
from scar_viz.policies.sentence_window import DEFAULT_SENTENCE_W
from scar_viz.scoring.learned import DEFAULT_P, LearnedGate


@dataclass(frozen=True)
class CliOption:
    """A field's command-line option: ``flag`` (its ``dest`` is the field's name) and help."""

    flag: str
    help: str


def _cli(flag: str, help: str) -> dict[str, CliOption]:
    return {"cli": CliOption(flag, help)}


@dataclass(frozen=True)
class CompareSettings:
    """Every policy's knobs on the Compare page (defaults: each policy's own).

    ``qasc`` draws its own knobs (:class:`QascParams`); ``gate`` and ``p`` are the learned
    gate's (the session's gate and the shared p slider), not widgets of this declaration.
    """

    w: int = knob(
        1,
        "Window ±w (chunks)",
        "w",
        (1, 10, None),
        **_cli(
            "--w",
            "window: half-width in chunks (default 1); sentence-window: in sentences (default 3)",
        ),
    )
    n_candidates: int = knob(
        0,
        "Rerank: cosine candidates (0 = 4·k)",
        "nc",
        (0, 200, None),
        **_cli("--n-candidates", "rerank: cosine candidates to rerank (default 4k)"),
    )
    reranker: str = knob(
        DEFAULT_RERANKER,
        "Rerank: cross-encoder (local name or folder)",
        "rr",
        widget="text",
        **_cli(
            "--reranker",
            "rerank: CrossEncoder name in the local HF cache, or a folder "
            "(default BAAI/bge-reranker-large)",
        ),
    )
    level: int = knob(
        0,
        "Parent: heading depth",
        "plevel",
        (0, 6, None),
        **_cli(
            "--parent-level", "parent: ancestor heading depth to return (default 0 = the section)"
        ),
    )
    huge_chars: int = field(
        default=HUGE_SECTION_CHARS,
        metadata=_cli("--huge-chars", "parent: cap on a section, in characters (default 4000)"),
    )
    rse_preset: str = knob(
        "balanced", "RSE preset", "rse_preset", widget="select", options=tuple(RSE_PRESETS)
    )
    ratio: float = knob(
        DEFAULT_RATIO, "Auto-merging: merge ratio", "am_ratio", (0.0, 1.0, 0.05), widget="slider"
    )
    sentence_w: int = knob(DEFAULT_SENTENCE_W, "Sentence window ±w", "sw", (0, 10, None))
    all_windows: bool = knob(False, "QASC top-k: send all windows", "qaw", widget="toggle")
    qasc: QascParams = field(default_factory=QascParams)
    gate: LearnedGate | None = None
    p: float = DEFAULT_P


def cli_options(settings: type = CompareSettings) -> list[tuple[Field, CliOption]]:
    """The fields of ``settings`` that have a command-line option, in declaration order."""
    return [(f, f.metadata["cli"]) for f in fields(settings) if "cli" in f.metadata]


def option_type(f: Field) -> Any:
    """The ``type=`` of a field's option (None for text, which argparse keeps as it is)."""
    name = f.type if isinstance(f.type, str) else f.type.__name__
    return {"int": int, "float": float}.get(name)
