"""The gate's parameters and every default of the project, in one place (docs/method.md §2).

``GateParams`` travels through the pages, the CLI and the policies as one frozen object:
k (chunks the retriever returns), λ (weight of the boundary penalty), τ (the bar relative to
cos(q, c)), r (the radius) and μ (the weight of the lexical term, this project's extension,
docs/method.md §8; 0 is the paper's gate). Defaults and presets live here and nowhere else,
and so does the check of k, r and μ: a ``GateParams`` that exists is in range, so nothing that
takes one checks them again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from scar_viz.common.errors import SettingsError

DEFAULT_K = 3
"""Chunks the retriever returns by default (the sources give no k; 3 is a common RAG setting)."""

PRESETS: dict[str, dict[str, float]] = {
    "A": {"lam": 0.5, "tau": 0.1},  # docs/method.md §2, the longer description
    "B": {"lam": 0.1, "tau": 0.8},  # the English summary (τ is called γ there)
}
DEFAULT_PRESET = "A"
DEFAULT_LAM = PRESETS[DEFAULT_PRESET]["lam"]
DEFAULT_TAU = PRESETS[DEFAULT_PRESET]["tau"]
DEFAULT_RADIUS = 1
DEFAULT_MU = 0.0
"""μ = 0: no lexical term, the paper's gate."""


@dataclass(frozen=True)
class GateParams:
    """k, λ, τ, r and μ: the retrieval and gate settings that travel together."""

    k: int = DEFAULT_K
    lam: float = DEFAULT_LAM
    tau: float = DEFAULT_TAU
    radius: int = DEFAULT_RADIUS
    mu: float = DEFAULT_MU

    def __post_init__(self) -> None:
        """Raises SettingsError (one sentence) for k < 1, r < 0 or μ < 0 (or μ not a number)."""
        if not self.k >= 1:
            raise SettingsError(f"k must be at least 1; got {self.k}.")
        if not self.radius >= 0:
            raise SettingsError(f"r, the radius, must be 0 or more; got {self.radius}.")
        if not self.mu >= 0:
            raise SettingsError(f"μ (mu) must be 0 or more; got {self.mu:g}.")

    def with_(self, **changes: Any) -> GateParams:
        """A copy with ``changes`` applied (``params.with_(lam=0.2)``)."""
        return replace(self, **changes)

    @classmethod
    def preset(cls, name: str, k: int = DEFAULT_K, radius: int = DEFAULT_RADIUS) -> GateParams:
        """Preset ``A`` or ``B`` (docs/method.md §2) at the given k and r."""
        p = PRESETS[name]
        return cls(k=k, lam=p["lam"], tau=p["tau"], radius=radius)


DEFAULT_PARAMS = GateParams()
"""k, λ, τ, r and μ at their defaults: the one default every signature takes."""
