"""A saved setting on what an adapter read from a store: the whole store, or the retrieved
chunks and the neighbours within r of each. Both go through the one runner,
:func:`~scar_viz.evaluation.apply.run_setting`; this module only lays the chunks out.

- :func:`select_all`: every chunk of the store (a store that lists its chunks), ranked by the
  setting's retriever (dense, BM25 over the store's chunk texts, hybrid with its k_rrf) and
  expanded as the setting says — exactly ``select --settings`` on the same chunks;
- :func:`select_given`: chunks already retrieved (a vector store's own top k, the nodes a
  LlamaIndex retriever gave), expanded over the runs fetched around them.

A vector store hands back chunks, not a document: the adapter fetches each retrieved chunk's
neighbours (by id, or through a node's PREVIOUS/NEXT links) and lays what it fetched out as
*runs*, each a stretch of consecutive chunks of one file in reading order. Runs play the part
files play in a corpus (:mod:`scar_viz.common.edges`): no neighbour step crosses from one run into
the next. Since a run holds every chunk within r of each retrieved chunk in it (up to its
file's edges), the walk of :func:`~scar_viz.scoring.scar.select_from_sims` on the runs sees
exactly the candidates it sees on the whole file, with the same vectors, so it takes the same
decisions: the gate is never re-implemented here.

Ties: the top k are taken by cos(q, c) with :func:`~scar_viz.scoring.scar.top_k`, over the
store's candidates laid out in reading order (file, then position), so an exact tie goes to
the earlier chunk, as it does on the command line.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, model_validator

from scar_viz.common.vectors import normalize
from scar_viz.evaluation.apply import ChunkSet, needs_words, reach, run_setting
from scar_viz.evaluation.settings import ChosenSettings, load_settings
from scar_viz.retrieval import DEFAULT_K_RRF
from scar_viz.scoring.learned import DEFAULT_P, resolve_gate
from scar_viz.scoring.lexical import QuestionLex, question_lex
from scar_viz.scoring.params import DEFAULT_LAM, DEFAULT_MU, DEFAULT_RADIUS, DEFAULT_TAU, GateParams
from scar_viz.scoring.scar import Selection, top_k

ADAPTER_K = 4
"""The adapters' default k: LangChain's own (``VectorStore.as_retriever``)."""

Order = tuple[str, float]
"""A chunk's place in reading order: (its file, its position in the file)."""


def closest(
    query_vec: np.ndarray, vectors: np.ndarray, order: Sequence[Order], k: int
) -> list[int]:
    """The ``k`` rows of ``vectors`` (n, d) closest to ``query_vec`` by cosine, best first; an
    exact tie goes to the row earlier in ``order``.

    Returns:
        Row indices into ``vectors``.
    """
    if not len(order):
        return []
    layout = sorted(range(len(order)), key=lambda i: order[i])
    sims = normalize(np.asarray(vectors)[layout]) @ normalize(np.asarray(query_vec).reshape(-1))
    return [layout[i] for i in top_k(sims, k)]


@dataclass(frozen=True)
class Runs:
    """Fetched chunks laid out in runs: ``keys`` (M,) in layout order, their unit vectors
    (M, d), ``run_of`` (M,) the run of each (non-decreasing)."""

    keys: tuple[Any, ...]
    unit: np.ndarray
    run_of: np.ndarray

    def position(self) -> dict[Any, int]:
        return {key: i for i, key in enumerate(self.keys)}


def runs_of(chains: Sequence[Sequence[Any]], vectors: Mapping[Any, Sequence[float]]) -> Runs:
    """:class:`Runs` from ``chains``, each a list of keys of consecutive chunks of one file in
    reading order (given in reading order of their first chunks), with each key's vector."""
    keys = tuple(key for chain in chains for key in chain)
    run_of = np.repeat(np.arange(len(chains)), [len(c) for c in chains]).astype(np.int64)
    rows = np.asarray([vectors[key] for key in keys], dtype=np.float64)
    return Runs(keys, normalize(rows) if len(keys) else np.zeros((0, 1)), run_of)


def chains_of_positions(keys: Sequence[tuple[str, int]]) -> list[list[tuple[str, int]]]:
    """(file, chunk index) keys grouped into chains of consecutive indices, in reading order."""
    chains: list[list[tuple[str, int]]] = []
    for key in sorted(set(keys)):
        last = chains[-1][-1] if chains else None
        if last is not None and last[0] == key[0] and last[1] + 1 == key[1]:
            chains[-1].append(key)
        else:
            chains.append([key])
    return chains


class SettingFields(BaseModel):
    """The fields of a saved setting (:class:`~scar_viz.evaluation.settings.ChosenSettings`)
    that :class:`ScarRetriever` and :class:`ScarCompressor` share: ``policy`` (``scar``,
    ``topk``, ``window1``, ``learned``), ``retriever`` (``dense``, ``bm25``, ``hybrid``) and
    ``k_rrf``, k, r, λ, τ, μ, and the learned gate with its p (None: the gate shipped with
    scar-viz, at its default p)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    k: int = ADAPTER_K
    r: int = DEFAULT_RADIUS
    lam: float = DEFAULT_LAM
    tau: float = DEFAULT_TAU
    mu: float = DEFAULT_MU
    policy: str = "scar"
    retriever: str = "dense"
    k_rrf: float = DEFAULT_K_RRF
    p: float | None = None
    gate: Any = None

    @model_validator(mode="after")
    def _check_setting(self) -> Any:
        self.setting()  # k, r, μ out of range (GateParams), or anything else a setting cannot take
        return self

    def setting(self) -> ChosenSettings:
        """The setting these fields describe (what :func:`~scar_viz.evaluation.apply.
        run_setting` runs)."""
        k = ADAPTER_K if self.k is None else self.k  # None (a postprocessor's): every node given
        params = GateParams(k, self.lam, self.tau, self.r, self.mu)
        return setting_of(self.policy, self.retriever, self.k_rrf, params, self.p, self.gate)

    @classmethod
    def from_file(cls, path: str | Path, model_id: str | None, **fields: Any) -> Any:
        """An adapter made from the settings file at ``path`` (:func:`~scar_viz.evaluation.
        settings.load_settings`), ``fields`` overriding the file's; a warning when the
        setting was chosen with another model than ``model_id`` (the store's, when known).

        Raises:
            SettingsFileError: an unreadable or malformed file (one sentence).
        """
        chosen = load_settings(path)
        said = model_warning(chosen, path, model_id)
        if said:
            warnings.warn(said, stacklevel=3)
        return cls(**{**fields_of(chosen), **fields})


def setting_of(
    policy: str,
    retriever: str,
    k_rrf: float,
    params: GateParams,
    p: float | None,
    gate: Any,
) -> ChosenSettings:
    """The setting an adapter's fields describe: r = 0 is top-k (no neighbours); a learned
    policy without a gate uses the gate shipped with scar-viz, without p its default p.

    Raises:
        SettingsFileError: a field the setting cannot take (one sentence).
    """
    if params.radius == 0 and policy in ("scar", "learned"):
        policy = "topk"
    learned = policy == "learned"
    return ChosenSettings(
        retriever,
        policy,
        params.k,
        max(1, params.radius),
        params.lam,
        params.tau,
        params.mu,
        (DEFAULT_P if p is None else p) if learned else p,
        resolve_gate(gate) if learned else gate,
        k_rrf,
    )


def fields_of(chosen: ChosenSettings) -> dict[str, Any]:
    """The adapters' fields of a saved setting (``from_settings``)."""
    p = chosen.params
    return {
        "policy": chosen.policy,
        "retriever": chosen.retriever,
        "k_rrf": chosen.k_rrf,
        "k": p.k,
        "r": p.radius,
        "lam": p.lam,
        "tau": p.tau,
        "mu": p.mu,
        "p": chosen.p,
        "gate": chosen.gate,
    }


def model_warning(chosen: ChosenSettings, path: object, model_id: str | None) -> str | None:
    """A sentence when the setting was chosen with another model than ``model_id``."""
    model = chosen.chosen_on.get("model")
    if model and model_id and model_id != model:
        return f"'{path}' was chosen with {model}; this store embeds with {model_id}."
    return None


def query_unit(query_vec: Sequence[float]) -> np.ndarray:
    """The question's unit vector (float64, as the command line normalises it)."""
    return normalize(np.asarray(query_vec, dtype=np.float64).reshape(-1))


def select_all(
    setting: ChosenSettings,
    runs: Runs,
    texts: Sequence[str] | None,
    query: str,
    query_vec: Sequence[float],
) -> list[Picked]:
    """:func:`~scar_viz.evaluation.apply.run_setting` over every chunk of a store laid out as
    ``runs`` (its files), ``texts`` in the runs' order (BM25's and the lexical evidence's):
    the chunks it picks (:func:`picked`)."""
    chunks = ChunkSet(runs.unit, runs.run_of, None if texts is None else tuple(texts))
    return picked(runs, run_setting(setting, chunks, query, query_unit(query_vec)))


def select_given(
    setting: ChosenSettings,
    runs: Runs,
    retrieved: Sequence[Any],
    query: str,
    query_vec: Sequence[float],
    texts: Callable[[], Mapping[Any, str] | None],
) -> list[Picked]:
    """:func:`~scar_viz.evaluation.apply.run_setting` from ``retrieved`` (keys in rank order,
    all in ``runs``), over the runs fetched around them: the chunks it picks (:func:`picked`);
    ``texts()``: every chunk's text by key (the store's, for the idf of μ and a lexical gate;
    None where the store lists none), asked only when the setting weighs words."""
    at = runs.position()
    lexical = lexical_of(query, runs.keys, texts()) if needs_words(setting) else None
    chunks = ChunkSet(runs.unit, runs.run_of)
    selection = run_setting(
        setting,
        chunks,
        query,
        query_unit(query_vec),
        retrieved=[at[key] for key in retrieved],
        lexical=lexical,
    )
    return picked(runs, selection)


def window_keys(setting: ChosenSettings, retrieved: Sequence[tuple[str, int]]) -> set:
    """The (file, chunk) keys the expansion may reach from ``retrieved`` (never below chunk 0;
    past a file's last chunk the store has none)."""
    d = reach(setting)
    return {(f, i + s) for f, i in retrieved for s in range(-d, d + 1) if i + s >= 0}


def lexical_of(query: str, keys: Sequence[Any], texts: Mapping[Any, str] | None) -> QuestionLex:
    """The question's lexical evidence over every chunk of the store (``texts``: the idf is
    the whole chunk set's, as on the command line), restricted to ``keys``.

    Raises:
        ValueError: without ``texts`` (μ > 0 needs every chunk's text).
    """
    if texts is None:
        raise ValueError(
            "μ > 0 and a lexical gate weigh the question's words by their idf over every chunk "
            "of the store, and this store does not list its chunks; use μ = 0 or a base gate."
        )
    every = list(texts)
    whole = question_lex([texts[key] for key in every], query)
    at = {key: i for i, key in enumerate(every)}
    return QuestionLex(whole.terms, whole.weights, whole.member[:, [at[key] for key in keys]])


@dataclass(frozen=True)
class Picked:
    """A chunk the gate put in the context: ``role`` ``retrieved`` (its rank, cos(q, c)) or
    ``admitted`` (S and the bar of the first gate that admitted it — τ·cos(q, c) for SCAR,
    logit(p) for the learned gate — and that retrieved chunk ``by``; none of the three for a
    window, which admits without a gate)."""

    key: Any
    role: str
    cos_q: float
    rank: int | None = None
    score: float | None = None
    bar: float | None = None
    by: Any | None = None

    def metadata(self, by_id: str | None = None) -> dict[str, object]:
        """The decision as flat metadata: ``scar_role``, ``scar_cos_q``, and ``scar_rank``
        or ``scar_score``, ``scar_bar``, ``scar_by``."""
        out: dict[str, object] = {"scar_role": self.role, "scar_cos_q": self.cos_q}
        if self.role == "retrieved":
            out["scar_rank"] = self.rank
        else:
            out.update(scar_score=self.score, scar_bar=self.bar, scar_by=by_id)
        return out


def picked(runs: Runs, selection: Selection) -> list[Picked]:
    """The selection's chunks in reading order (the runs' order), each with its decision."""
    rank = {c: r for r, c in enumerate(selection.retrieved)}
    first: dict[int, Any] = {}  # the first admitting decision of each neighbour
    for d in selection.decisions:
        if d.outcome == "admitted":
            first.setdefault(d.neighbour, d)
    out = []
    for i in selection.selected:
        key, cos_q = runs.keys[i], float(selection.sims[i])
        if i in rank:
            out.append(Picked(key, "retrieved", cos_q, rank=rank[i]))
        elif i in first:
            d = first[i]
            by = runs.keys[d.chunk]
            out.append(Picked(key, "admitted", cos_q, score=d.score, bar=d.bar, by=by))
        else:  # a window's neighbour
            out.append(Picked(key, "admitted", cos_q))
    return out
