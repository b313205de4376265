"""The learned gate and its JSON file format.

A fitted gate admits candidate n of retrieved chunk c iff σ(w·z(f) + b) > p, with f the
candidate's features (:mod:`~scar_viz.scoring.learned.features`) and z(f) = (f − mean) / std
standardised by the training set's mean and standard deviation. The decision is taken in logit
space, ``w·z + b > log(p / (1 − p))``, which is the same rule without the rounding of σ near p
(at p = 0.5 the bar is exactly 0, so the rule is the sign of the score, strict).

SCAR is the special case w = (1, −τ, λ, 0, 0), b = −λ on raw features (mean 0, std 1), p = 0.5:
w·f + b = cos(q,n) − λ·(1 − cos(c,n)) − τ·cos(q,c) = S − bar (:meth:`LearnedGate.scar`,
docs/method.md §2).

A gate file is JSON (``format`` ``scar-viz/learned-gate``, ``version`` 1) holding the feature
names, weights, intercept, means, standard deviations and ``fitted_on``; floats are written with
``repr`` so a gate reads back bit for bit. The package ships one,
``scar_viz/data/default_gate.json``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from scar_viz.common.bounded_json import JsonInputError, read_json
from scar_viz.common.errors import SettingsError, UserError
from scar_viz.scoring.learned.features import (
    ALL_FEATURES,
    BASE_FEATURES,
    FEATURE_MEANING,
    LEXICAL_FEATURES,
)

DEFAULT_P = 0.04
"""Default probability bar p: a small bar, since σ reads as the probability of being gold and
gold neighbours are rare."""
FORMAT = "scar-viz/learned-gate"
FORMAT_VERSION = 1
DEFAULT_GATE_FILE = "default_gate.json"
MAX_GATE_BYTES = 1024 * 1024
"""A gate file holds a few dozen numbers and its settings; a larger one is refused unread."""


class GateFileError(UserError, ValueError):
    """A gate file (or gate dict) that cannot be read: one sentence for the user."""


def threshold_logit(p: float) -> float:
    """log(p / (1 − p)), the score bar equivalent to σ(score) > p.

    Raises:
        ValueError: unless 0 < p < 1.
    """
    p = float(p)
    if not 0.0 < p < 1.0 or math.isnan(p):
        raise ValueError(f"p must lie strictly between 0 and 1; got {p:g}.")
    return 0.0 if p == 0.5 else math.log(p) - math.log1p(-p)


def sigmoid(x: np.ndarray | float) -> np.ndarray:
    """σ(x) = 1 / (1 + e^−x), computed without overflow."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


@dataclass(frozen=True)
class LearnedGate:
    """A fitted gate: score = Σ_i w_i·(f_i − mean_i)/std_i + b over ``feature_names``.

    ``fitted_on`` says what it was fitted on (document, model, chunking, k, counts, ...); it is
    metadata, left out of equality and hashing.
    """

    feature_names: tuple[str, ...]
    weights: tuple[float, ...]
    intercept: float
    mean: tuple[float, ...]
    std: tuple[float, ...]
    fitted_on: Mapping[str, object] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        n = len(self.feature_names)
        if not n or any(len(v) != n for v in (self.weights, self.mean, self.std)):
            raise GateFileError(
                "A gate needs as many weights, means and standard deviations as feature names."
            )
        unknown = [f for f in self.feature_names if f not in ALL_FEATURES]
        if unknown:
            raise GateFileError(
                f"Unknown gate feature(s) {', '.join(unknown)}; known: {', '.join(ALL_FEATURES)}."
            )
        if len(set(self.feature_names)) != n:
            raise GateFileError("A gate lists a feature twice.")
        values = [*self.weights, self.intercept, *self.mean, *self.std]
        if not all(isinstance(v, int | float) and math.isfinite(v) for v in values):
            raise GateFileError("A gate's weights, intercept, means and deviations must be finite.")
        if any(s <= 0 for s in self.std):
            raise GateFileError("A gate's standard deviations must be positive.")

    @property
    def columns(self) -> list[int]:
        """Indices of this gate's features in :data:`ALL_FEATURES` order."""
        return [ALL_FEATURES.index(f) for f in self.feature_names]

    @property
    def uses_lexical(self) -> bool:
        """Whether the gate reads lexical features (it then needs the question's words)."""
        return any(f in LEXICAL_FEATURES for f in self.feature_names)

    def standardise(self, features: np.ndarray) -> np.ndarray:
        """z = (f − mean) / std for feature rows in :data:`ALL_FEATURES` order (a five-feature
        gate also takes six-column rows), shape (M, n_features).

        Raises:
            SettingsError: when a lexical gate meets rows without lexical features.
        """
        f = np.atleast_2d(np.asarray(features, dtype=np.float64))[:, self.columns]
        if self.uses_lexical and np.isnan(f).any():
            raise SettingsError(
                "This gate uses lexical features; they need the question and the chunk texts."
            )
        return (f - np.asarray(self.mean)) / np.asarray(self.std)

    def contributions(self, features: np.ndarray) -> np.ndarray:
        """w_i·z_i per row and feature, shape (M, n_features)."""
        return self.standardise(features) * np.asarray(self.weights)

    def scores(self, features: np.ndarray) -> np.ndarray:
        """w·z + b per feature row, shape (M,)."""
        return self.standardise(features) @ np.asarray(self.weights) + self.intercept

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """σ(w·z + b) per row."""
        return sigmoid(self.scores(features))

    def admits(self, features: np.ndarray, p: float = DEFAULT_P) -> np.ndarray:
        """σ(w·z + b) > p per row (decided in logit space)."""
        return self.scores(features) > threshold_logit(p)

    def describe(self) -> list[dict[str, object]]:
        """One row per feature: name, weight (on the standardised feature), mean, std, meaning."""
        return [
            {
                "feature": name,
                "weight": w,
                "mean": m,
                "std": s,
                "meaning": FEATURE_MEANING[name],
            }
            for name, w, m, s in zip(
                self.feature_names, self.weights, self.mean, self.std, strict=True
            )
        ]

    @classmethod
    def scar(cls, lam: float, tau: float) -> LearnedGate:
        """SCAR's gate as a learned gate: w = (1, −τ, λ, 0, 0), b = −λ on raw features.

        With p = 0.5 it admits exactly what SCAR admits (score = S − bar, strict).
        """
        return cls(
            BASE_FEATURES,
            (1.0, -float(tau), float(lam), 0.0, 0.0),
            -float(lam),
            (0.0,) * 5,
            (1.0,) * 5,
            {"source": f"SCAR λ={lam:g} τ={tau:g}"},
        )

    # --- JSON ---

    def to_dict(self) -> dict[str, object]:
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "feature_names": list(self.feature_names),
            "weights": [float(w) for w in self.weights],
            "intercept": float(self.intercept),
            "mean": [float(m) for m in self.mean],
            "std": [float(s) for s in self.std],
            "fitted_on": dict(self.fitted_on),
        }

    def to_json(self) -> str:
        """JSON text; floats are written with ``repr`` so they read back bit for bit."""
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: object) -> LearnedGate:
        """A gate from :meth:`to_dict`'s shape.

        Raises:
            GateFileError: for anything else.
        """
        if not isinstance(data, dict):
            raise GateFileError("A gate file must hold a JSON object.")
        if data.get("format", FORMAT) != FORMAT:
            raise GateFileError(f"Not a learned gate (format '{data.get('format')}').")
        missing = [
            k for k in ("feature_names", "weights", "intercept", "mean", "std") if k not in data
        ]
        if missing:
            raise GateFileError(f"The gate file lacks {', '.join(missing)}.")
        try:
            names = tuple(str(x) for x in data["feature_names"])
            weights, mean, std = (
                tuple(_number(x) for x in data[key]) for key in ("weights", "mean", "std")
            )
            intercept = _number(data["intercept"])
        except (TypeError, ValueError) as exc:
            raise GateFileError(f"The gate file has a malformed entry: {exc}") from None
        fitted_on = data.get("fitted_on") or {}
        if not isinstance(fitted_on, dict):
            raise GateFileError("The gate file's 'fitted_on' must be an object.")
        return cls(names, weights, intercept, mean, std, fitted_on)

    @classmethod
    def from_json(cls, text: str | bytes) -> LearnedGate:
        """The gate in ``text`` (read with :func:`~scar_viz.common.bounded_json.read_json`).

        Raises:
            GateFileError: not JSON, too large or nested too deep, or not a gate.
        """
        try:
            data = read_json(text, max_bytes=MAX_GATE_BYTES)
        except JsonInputError as exc:
            raise GateFileError(f"The gate file is {exc.reason}.") from None
        return cls.from_dict(data)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(self.to_json(), encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> LearnedGate:
        """Read a gate file.

        Raises:
            GateFileError: when the file is missing, unreadable or not a gate.
        """
        text = _read_gate_text(path)
        try:
            return cls.from_json(text)
        except GateFileError as exc:
            raise GateFileError(f"'{path}': {exc}") from None


def _number(x: object) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise ValueError(f"{x!r} is not a number")
    return float(x)


@lru_cache(maxsize=1)
def default_gate() -> LearnedGate:
    """The gate shipped with the package (``scar_viz/data/default_gate.json``)."""
    text = resources.files("scar_viz.data").joinpath(DEFAULT_GATE_FILE).read_text("utf-8")
    return LearnedGate.from_json(text)


def resolve_gate(gate: LearnedGate | str | Path | None) -> LearnedGate:
    """A gate object from a gate, a path to a gate file, or None (the default gate)."""
    if gate is None:
        return default_gate()
    if isinstance(gate, LearnedGate):
        return gate
    if isinstance(gate, str | Path):
        return _parse_cached(_read_gate_text(gate), str(gate))
    raise GateFileError(f"Expected a gate or a gate file path, got {type(gate).__name__}.")


def _read_gate_text(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "unreadable"
        raise GateFileError(f"Cannot read gate file '{path}': {reason}.") from None


@lru_cache(maxsize=16)
def _parse_cached(text: str, name: str) -> LearnedGate:
    """A parsed gate, cached by the file's content (the name only labels errors)."""
    try:
        return LearnedGate.from_json(text)
    except GateFileError as exc:
        raise GateFileError(f"'{name}': {exc}") from None


def setting_notes(gate: LearnedGate, model: str, chunking: str) -> tuple[str, ...]:
    """Sentences saying where the current model or chunking differs from the one ``gate`` was
    fitted in.

    The gate still runs; its features are similarities of another model or chunking, so its
    probabilities are less trustworthy (the pages and the CLI show these as notes). A
    different k is a note only where it changes a decision (:func:`k_note`).
    """
    meta = gate.fitted_on
    notes = []
    for key, now in (("model", model), ("chunking", chunking)):
        then = meta.get(key)
        if then is not None and str(then) != str(now):
            notes.append(f"The gate was fitted with {key} {then}; it is used with {now}.")
    return tuple(notes)


def fitted_k(gate: LearnedGate) -> int | None:
    """The k the gate was fitted at (its ``fitted_on``), or None when it does not say."""
    k = gate.fitted_on.get("k")
    if not isinstance(k, (int, float, str)):
        return None
    try:
        return int(k)
    except (TypeError, ValueError):
        return None


def rank_changes(gate: LearnedGate, features: np.ndarray, p: float) -> int:
    """How many of the decisions at ``p`` on candidate rows ``features`` ((M, 9), in
    :data:`ALL_FEATURES` order) a k beyond the gate's fitted k changes.

    A gate fitted at k has seen the rank of c from 0 to k − 1 only. A candidate of a chunk
    ranked lower is judged on a rank the fit never saw; its decision is changed by that when
    holding the rank at k − 1, the last one the gate knows, decides it the other way. Used
    at a k at or below the fitted one, every rank is one the gate knows: nothing changes.
    """
    k_fit = fitted_k(gate)
    rows = np.atleast_2d(np.asarray(features, dtype=np.float64))
    if k_fit is None or "rank" not in gate.feature_names or not rows.size:
        return 0
    rank = ALL_FEATURES.index("rank")
    beyond = rows[:, rank] > k_fit - 1
    if not beyond.any():
        return 0
    held = rows[beyond].copy()
    held[:, rank] = k_fit - 1
    bar = threshold_logit(p)
    return int(np.sum((gate.scores(rows[beyond]) > bar) != (gate.scores(held) > bar)))


def k_note(gate: LearnedGate, k: int, changed: int) -> str:
    """The note for a k the gate was not fitted at, "" when it changes no decision
    (``changed``, from :func:`rank_changes`)."""
    k_fit = fitted_k(gate)
    if not changed or k_fit is None or k == k_fit:
        return ""
    return (
        f"The gate was fitted with k = {k_fit}; at k = {k} it also judges neighbours of the "
        f"chunks ranked {k_fit + 1} to {k}, ranks it never saw, and that changes {changed} of "
        "its decisions here."
    )
