"""The policy interface: the inputs every policy shares, the result type, and the entry each
policy module declares for :mod:`scar_viz.policies.registry`."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.tokens import count_tokens
from scar_viz.common.spans import Span, merge_spans
from scar_viz.documents.reading import Document
from scar_viz.scoring.params import DEFAULT_PARAMS, GateParams

SEPARATOR = "\n\n"


_RANK_ORDER = ("inputs", "rank order")
"""The :attr:`QueryInputs.memo` key of the query's whole ranking (:meth:`QueryInputs.top`)."""


@dataclass(frozen=True)
class QueryInputs:
    """Everything a policy may use for one query on one prepared document.

    ``unit`` holds the unit-norm chunk embeddings (N, d) and ``sims`` = cos(q, c_i) (N,).
    ``params`` holds k, λ, τ and r. ``embed`` embeds extra texts with the same model (QASC's
    sentences); it may be None. ``doc_of`` (N,) names each chunk's file (its part of
    ``document``; all zeros for one file), and no policy reaches past the edge of its chunk's
    file. ``ranking`` is the score the retriever ranks chunks by
    (:func:`~scar_viz.retrieval.rank_scores`; None: the dense ``sims``): every policy takes its
    top-k by :attr:`rank`, while gates keep using ``sims``.
    """

    document: Document
    chunks: Sequence[Chunk]
    unit: np.ndarray
    query: str
    query_vec: np.ndarray
    sims: np.ndarray
    params: GateParams = DEFAULT_PARAMS
    embed: Callable[[list[str]], np.ndarray] | None = field(default=None, repr=False)
    doc_of: np.ndarray = field(kw_only=True, repr=False, compare=False)
    """(N,) the file of each chunk (``PreparedDoc.doc_of``,
    :func:`~scar_viz.chunking.config.chunk_doc_of`)."""
    ranking: np.ndarray | None = field(default=None, repr=False, compare=False)
    """(N,) the retriever's score per chunk (None: dense, rank by ``sims``)."""
    retriever: str = "dense"
    """The retriever's label, for notes."""
    memo: dict[object, Any] = field(default_factory=dict, repr=False, compare=False)
    """What policies keep for this query across settings that share it: an evaluation at
    several k runs each query's policies on copies of one QueryInputs (``replace(inputs,
    params=...)`` keeps this dict), and a policy stores here, keyed by its name and knobs, the
    parts that do not depend on k (QASC's sentence scores and windows)."""

    @property
    def rank(self) -> np.ndarray:
        """(N,) what the top-k is taken by: ``ranking``, or ``sims`` for the dense retriever."""
        return self.sims if self.ranking is None else self.ranking

    def top(self, k: int) -> list[int]:
        """``top_k(self.rank, k)``: the k best chunks by :attr:`rank`, ties to the lower index.

        The whole ranking is sorted once per query and kept in :attr:`memo`, so an evaluation
        at k = 1 … 10 with several policies takes prefixes of one sort (equal to
        :func:`~scar_viz.scoring.scar.top_k`, a stable sort's prefix), instead of 37,500 partial
        sorts for 250 questions (22 s of Equal budget's 132 s under cProfile).
        """
        rank = self.rank
        held = self.memo.get(_RANK_ORDER)
        if held is None or held[0] is not rank:  # a copy made with another ranking shares memo
            held = self.memo[_RANK_ORDER] = (rank, np.argsort(-np.asarray(rank), kind="stable"))
        return [int(i) for i in held[1][: max(0, int(k))]]


@dataclass(frozen=True)
class PolicyResult:
    """What one policy sends to the language model for one query, and what it costs.

    ``spans`` are merged, sorted (start, end) character ranges of the document; ``context`` is
    the text as assembled (chunk texts joined for chunk policies, span texts for span policies);
    ``tokens`` counts ``context`` with :mod:`scar_viz.chunking.tokens`; ``seconds`` is the policy's
    own query-time work (embedding the chunks is shared and not counted).
    """

    name: str
    spans: tuple[Span, ...]
    chunk_ids: tuple[int, ...] | None
    context: str
    chars: int
    tokens: int
    seconds: float
    notes: tuple[str, ...] = ()
    detail: object = field(default=None, repr=False, compare=False)


Policy = Callable[..., PolicyResult]


@dataclass(frozen=True)
class PolicyEntry:
    """One policy as the registry lists it: its name, its function ``run(inputs, **knobs)``,
    and the keyword knobs that function accepts."""

    name: str
    run: Policy = field(repr=False)
    knobs: tuple[str, ...] = ()
    uses_k: bool = True
    """False for a policy whose result does not depend on ``params.k`` (RSE): an evaluation
    at several k runs it once per query."""


def policy_entry(
    name: str, run: Policy, knobs: Sequence[str] = (), uses_k: bool = True
) -> PolicyEntry:
    """The entry of policy ``name``; its knobs are ``knobs`` (for a policy that takes
    ``**knobs``, e.g. QASC's :class:`~scar_viz.chunking.qasc.QascParams` fields) followed by
    the keyword parameters of ``run`` after its inputs."""
    params = list(inspect.signature(run).parameters.values())[1:]
    named = [p.name for p in params if p.kind is p.KEYWORD_ONLY or p.default is not p.empty]
    return PolicyEntry(name, run, (*knobs, *named), uses_k)


def spans_of_chunks(chunks: Sequence[Chunk], ids: Sequence[int]) -> tuple[Span, ...]:
    return merge_spans([(chunks[i].start, chunks[i].end) for i in ids])


def _result(
    name: str,
    spans: tuple[Span, ...],
    ids: tuple[int, ...] | None,
    context: str,
    started: float,
    notes: Sequence[str],
    detail: object,
) -> PolicyResult:
    seconds = time.perf_counter() - started
    tokens = count_tokens(context)
    return PolicyResult(
        name, spans, ids, context, len(context), tokens, seconds, tuple(notes), detail
    )


def chunk_result(
    name: str,
    inputs: QueryInputs,
    ids: Sequence[int],
    started: float,
    notes: Sequence[str] = (),
    detail: object = None,
) -> PolicyResult:
    """A result from chunk indices: context = chunk texts in document order."""
    ordered = tuple(sorted(set(int(i) for i in ids)))
    context = SEPARATOR.join(inputs.chunks[i].text for i in ordered)
    spans = spans_of_chunks(inputs.chunks, ordered)
    return _result(name, spans, ordered, context, started, notes, detail)


def span_result(
    name: str,
    inputs: QueryInputs,
    spans: Sequence[Span],
    started: float,
    chunk_ids: Sequence[int] | None = None,
    notes: Sequence[str] = (),
    detail: object = None,
) -> PolicyResult:
    """A result from character spans: context = span texts in document order."""
    merged = merge_spans(spans)
    text = inputs.document.text
    context = SEPARATOR.join(text[s:e] for s, e in merged)
    ids = None if chunk_ids is None else tuple(sorted(set(int(i) for i in chunk_ids)))
    return _result(name, merged, ids, context, started, notes, detail)
