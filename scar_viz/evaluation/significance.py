"""Significance: a paired bootstrap and Cohen's d of one policy against every other that ran.

Per-query differences target − baseline on chunks, recall and tokens
(:func:`scar_viz.evaluation.bootstrap.paired_bootstrap`); the same seed draws the same resampled
query indices for every comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scar_viz.evaluation.bootstrap import (
    DEFAULT_BOOT,
    DEFAULT_SEED,
    PairedBootstrap,
    paired_bootstrap,
)
from scar_viz.evaluation.run import METRICS, Evaluation


@dataclass(frozen=True)
class Comparison:
    """``target`` against ``baseline`` on one per-query ``metric`` (differences target − base)."""

    target: str
    baseline: str
    metric: str
    result: PairedBootstrap

    def as_dict(self) -> dict[str, object]:
        return {
            "target": self.target,
            "baseline": self.baseline,
            "metric": self.metric,
            **self.result.as_dict(),
        }


def significance(
    ev: Evaluation,
    target: str = "scar",
    metrics: Sequence[str] = METRICS,
    n_boot: int = DEFAULT_BOOT,
    seed: int = DEFAULT_SEED,
) -> tuple[Comparison, ...]:
    """Paired bootstrap and Cohen's d of ``target`` against every other policy that ran.

    The same seed draws the same resampled query indices for every comparison.
    """
    mine = ev.policies.get(target)
    if mine is None or mine.error or not mine.outcomes:
        return ()
    out = []
    for name, other in ev.policies.items():
        if name == target or other.error or not other.outcomes:
            continue
        for metric in metrics:
            res = paired_bootstrap(ev.values(target, metric), ev.values(name, metric), n_boot, seed)
            out.append(Comparison(target, name, metric, res))
    return tuple(out)


def smallest_p(n_boot: int) -> float:
    """The smallest p the bootstrap can report with the +1 correction: 2 / (B + 1)."""
    return 2.0 / (n_boot + 1)
