"""The ranges of the numbers a link or a session file may set, as the views name them: the
table lives in :mod:`scar_viz.common.ranges`, before the stages, so a settings file
(:mod:`scar_viz.evaluation.settings`) is held to the same ranges."""

from __future__ import annotations

from scar_viz.common.ranges import RANGES, Range, out_of_range

__all__ = ["RANGES", "Range", "out_of_range"]
