"""One setting, one runner: what a :class:`~scar_viz.evaluation.settings.ChosenSettings` selects
for a question (docs/cli.md, Settings files; docs/integrations.md).

Every consumer of a verdict's setting — ``select``/``eval``/``answer --settings``, LangChain's
and LlamaIndex's ``from_settings`` — calls :func:`run_setting` on the same value; none rebuilds
the setting from options or widgets. The runner takes the chunks as plain arrays
(:class:`ChunkSet`): a prepared document (:meth:`ChunkSet.of`) or what an adapter read from a
store. It

1. ranks the chunks as the setting's retriever does (:func:`~scar_viz.retrieval.rank_scores`:
   dense cos(q, c), BM25 over :attr:`ChunkSet.index_texts` with scar-viz's tokeniser and idf,
   or their reciprocal rank fusion with the setting's k_rrf), ties to the earlier chunk;
2. expands the top k as the setting's policy does: ``topk`` (nothing), ``window1`` (±1 inside
   the file), ``scar`` (:func:`~scar_viz.scoring.scar.select_from_sims` with k, r, λ, τ, μ) or
   ``learned`` (:func:`~scar_viz.scoring.learned.select.learned_select` with the setting's own
   gate and p; its features are computed by the learned gate's code from the similarities, the
   vectors, the ranking and the question's lexical evidence passed to it).

An adapter that fetched only part of a store (the retrieved chunks and their neighbours, laid
out as runs of consecutive chunks: :mod:`scar_viz.integrations.local`) gives ``retrieved`` (its
top k, in rank order) instead of letting the runner rank, and the question's lexical evidence
over the whole store (``lexical``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from scar_viz.chunking.config import embedding_texts
from scar_viz.common.errors import SettingsError
from scar_viz.evaluation.settings import ChosenSettings
from scar_viz.pipeline import PreparedDoc
from scar_viz.policies import PolicyResult, QueryInputs
from scar_viz.policies.base import chunk_result
from scar_viz.retrieval import Bm25Index, bm25_index, rank_scores
from scar_viz.scoring.learned.select import learned_select
from scar_viz.scoring.lexical import QuestionLex, question_lex
from scar_viz.scoring.scar import Selection, select_from_sims, top_k, window


@dataclass(frozen=True)
class ChunkSet:
    """The chunks a setting runs over, in reading order: ``unit`` (N, d) unit vectors,
    ``doc_of`` (N,) the file (or run) of each — no neighbour step crosses a change —,
    ``texts`` (N,) each chunk's text (the question's lexical evidence is weighed over them),
    and ``index_texts`` (N,), what BM25 indexes (the texts the model embedded: with contextual
    prepending, the section path first; None: ``texts``)."""

    unit: np.ndarray
    doc_of: np.ndarray
    texts: tuple[str, ...] | None = field(default=None, repr=False)
    index_texts: tuple[str, ...] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, prep: PreparedDoc) -> ChunkSet:
        """A prepared document's chunks (what ``select`` and ``eval`` run on)."""
        return cls(
            prep.unit,
            prep.doc_of,
            tuple(c.text for c in prep.chunks),
            tuple(embedding_texts(prep.chunks, prep.prepend)),
        )

    @cached_property
    def bm25(self) -> Bm25Index:
        """The BM25 index over :attr:`index_texts` (built once per content)."""
        texts = self.index_texts if self.index_texts is not None else self.texts
        if texts is None:
            raise SettingsError("BM25 and hybrid retrieval need every chunk's text.")
        return bm25_index(texts)

    def lexical(self, query: str) -> QuestionLex:
        """The question's lexical evidence over these chunks.

        Raises:
            SettingsError: without the chunks' texts.
        """
        if self.texts is None:
            raise SettingsError("μ > 0 and a lexical gate need every chunk's text.")
        return question_lex(self.texts, query)


def needs_words(setting: ChosenSettings) -> bool:
    """Whether the expansion weighs the question's words (SCAR with μ > 0, a lexical gate)."""
    if setting.policy == "scar":
        return setting.params.mu > 0
    return setting.policy == "learned" and setting.gate is not None and setting.gate.uses_lexical


def reach(setting: ChosenSettings) -> int:
    """How far from a retrieved chunk the expansion may reach: 0 for top-k, 1 for window ±1,
    r for SCAR and the learned gate."""
    return {"topk": 0, "window1": 1}.get(setting.policy, setting.radius)


def setting_ranking(
    setting: ChosenSettings, chunks: ChunkSet, query: str, sims: np.ndarray
) -> np.ndarray | None:
    """(N,) the scores the setting's retriever ranks the chunks by (None for dense: ``sims``)."""
    if setting.retriever == "dense":
        return None
    return rank_scores(setting.retriever, sims, chunks.bm25, query, setting.k_rrf)


def run_setting(
    setting: ChosenSettings,
    chunks: ChunkSet,
    query: str,
    query_vec: np.ndarray,
    *,
    retrieved: Sequence[int] | None = None,
    lexical: QuestionLex | None = None,
    sims: np.ndarray | None = None,
) -> Selection:
    """What ``setting`` selects for ``query`` over ``chunks`` (module docstring).

    Args:
        query_vec: (d,) the question's unit vector.
        retrieved: positions in ``chunks`` already retrieved, in rank order (an adapter's top
            k); None lets the setting's retriever rank every chunk and take its top k.
        lexical: the question's lexical evidence over ``chunks`` (None: computed from
            ``chunks.texts`` when μ > 0 or the gate is lexical).
        sims: (N,) ``chunks.unit @ query_vec`` when the caller has it already.

    Returns:
        A :class:`~scar_viz.scoring.scar.Selection` (a learned gate's carries its decisions'
        features and contributions): ``retrieved`` in rank order, ``selected`` sorted.

    Raises:
        SettingsError: a setting these chunks cannot run (BM25 without texts, a dimension
            mismatch).
    """
    unit = chunks.unit
    query_vec = np.asarray(query_vec).reshape(-1)
    if len(unit) and unit.shape[1] != query_vec.shape[0]:
        raise SettingsError(
            f"The query vector has {query_vec.shape[0]} dimensions but the chunks have "
            f"{unit.shape[1]}; embed both with the same model."
        )
    if sims is None:
        sims = unit @ query_vec if len(unit) else np.zeros(0)
    params = setting.params
    if retrieved is None:
        rank = setting_ranking(setting, chunks, query, sims)
    else:  # the adapter's own top k, kept in its order
        rank = np.full(len(sims), -np.inf)
        rank[list(retrieved)] = np.arange(len(retrieved), 0, -1)
        params = params.with_(k=len(retrieved))
    if needs_words(setting) and lexical is None:
        lexical = chunks.lexical(query)
    if setting.policy == "scar":
        return select_from_sims(sims, unit, params, chunks.doc_of, lexical, rank=rank)
    if setting.policy == "learned":
        assert setting.gate is not None and setting.p is not None  # ChosenSettings checks
        return learned_select(
            sims,
            unit,
            params.k,
            setting.gate,
            setting.p,
            params.radius,
            doc_of=chunks.doc_of,
            lexical=lexical,
            rank=rank,
        )
    top = top_k(sims if rank is None else rank, params.k)
    selected = window(top, len(sims), 1, chunks.doc_of) if setting.policy == "window1" else top
    return Selection(
        retrieved=top,
        selected=sorted(selected),
        admitted=sorted(set(selected) - set(top)),
        decisions=(),
        sims=sims,
        params=params,
    )


def setting_runner(
    setting: ChosenSettings, chunks: ChunkSet
) -> Callable[[QueryInputs], PolicyResult]:
    """``runner(inputs)``: :func:`run_setting` on one query's inputs as a policy result (named
    by the setting's policy; a SCAR or learned selection as its ``detail``), for
    :func:`~scar_viz.evaluation.evaluate`'s and the answer check's ``runners``.

    ``chunks`` are the inputs' document's (:meth:`ChunkSet.of`); the inputs' similarities are
    used as they are, their params and ranking are not: the setting decides."""

    def runner(inputs: QueryInputs) -> PolicyResult:
        t0 = time.perf_counter()
        sel = run_setting(setting, chunks, inputs.query, inputs.query_vec, sims=inputs.sims)
        detail = sel if setting.policy in ("scar", "learned") else None
        return chunk_result(setting.policy, inputs, sel.selected, t0, detail=detail)

    return runner
