"""What every Evaluation-lab page starts with, and its cached steps.

:func:`lab_setup` draws the sidebar, the query set (:mod:`ui.queryset`) and the gate sliders
and returns a :class:`Lab`; :func:`policy_picker` lists every policy that can run here (rerank
only with a local cross-encoder); :func:`run_evaluation` and :func:`run_sweep` run the core
once per content key (document, chunking, model, queries' content, settings) with a progress
bar.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import streamlit as st

from scar_viz.common.fmt import mu_note
from scar_viz.documents.reading import Document
from scar_viz.embeddings import Embedder
from scar_viz.evaluation import Evaluation, available_policies, candidates_for, default_policies
from scar_viz.evaluation import evaluate as run_core
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.pipeline import PreparedDoc, embed_function
from scar_viz.policies.rerank import DEFAULT_RERANKER, reranker_status
from scar_viz.queries.gold import GoldQuery
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.sweep import LAMS, TAUS, Candidates, SweepResult, sweep
from scar_viz.views.gate_link import gate_digest
from ui import keys
from ui.alerts import with_progress
from ui.cache import cached, disk_cache
from ui.cancel import stop_check
from ui.gate_controls import gate_sliders
from ui.learned import active_gate, current_p
from ui.queryset import (
    ActiveQueries,
    content_key,
    query_set_picker,
    query_vectors,
    type_metrics,
)
from ui.sentences import SENTENCE_POLICIES, prepare_sentences, sentence_toggle
from ui.setup import Setup, sidebar_setup
from ui.state import URL, current_retriever

NUM3 = st.column_config.NumberColumn(format="%.3f")
NUM2 = st.column_config.NumberColumn(format="%.2f")
NUM0 = st.column_config.NumberColumn(format="%.0f")


@dataclass(frozen=True)
class Labelled:
    """A page's inputs: the sidebar's :class:`Setup`, the query set and its vectors."""

    setup: Setup
    active: ActiveQueries
    vecs: np.ndarray

    @property
    def prep(self) -> PreparedDoc:
        return self.setup.prepared

    @property
    def embedder(self) -> Embedder:
        return self.setup.embedder

    @property
    def labelled(self) -> tuple[GoldQuery, ...]:
        return self.active.labelled


@dataclass(frozen=True)
class Lab(Labelled):
    """:class:`Labelled` and the gate sliders."""

    params: GateParams


def _setup(sliders: bool) -> tuple[Setup, ActiveQueries, np.ndarray, GateParams | None] | None:
    setup = sidebar_setup()
    if setup is None:
        return None
    prep, embedder = setup.prepared, setup.embedder
    active = query_set_picker(prep, setup.name)
    if active is None:
        return None
    type_metrics(active.labelled, prep.config.label)
    params = gate_sliders(len(prep.chunks)) if sliders else None
    vecs = query_vectors(embedder, active.labelled)
    if vecs is None:
        return None
    return setup, active, vecs, params


def lab_setup() -> Lab | None:
    """Sidebar, query set, its counts by type and the gate sliders; None after a message."""
    inputs = _setup(sliders=True)
    return None if inputs is None else Lab(*inputs)


def labelled_setup() -> Labelled:
    """Sidebar, query set and its counts by type, for a page with its own settings (no gate
    sliders); stops the script after a message when there is nothing to run."""
    inputs = _setup(sliders=False)
    if inputs is None:
        st.stop()
    return Labelled(*inputs[:3])


def policy_picker(doc: Document, embedder: Embedder) -> list[str]:
    """Every policy that can run here (rerank only with a local cross-encoder, else a one-line
    hint), default topk, window ±1/±2, SCAR (and parent); a switch adds the sentence
    policies of ``doc`` (their cost stated beside it)."""
    choices = list(available_policies())
    status = reranker_status(DEFAULT_RERANKER)
    picked = st.multiselect(
        "Policies",
        choices,
        default=[p for p in default_policies() if p in choices],
        key=keys.POLICIES,
        bind=URL,
        help="windowN = static window ±N; qasc embeds every sentence (slow on a real model).",
    )
    if not status.available:
        st.caption(f"Rerank is not listed: {status.message} {status.hint}")
    if not sentence_toggle(keys.LAB_SENTENCES, doc, embedder):
        picked = [p for p in picked if p not in SENTENCE_POLICIES]
    return picked


def lab_page(title: str, caption: str) -> tuple[Lab, list[str]]:
    """A page of the section: its title and caption, :func:`lab_setup` and
    :func:`policy_picker`; stops the script (after the message) when there is nothing to run."""
    st.title(title)
    st.caption(caption)
    lab = lab_setup()
    if lab is None:
        st.stop()
    policies = policy_picker(lab.prep.document, lab.embedder)
    if not policies:
        st.info("Pick at least one policy.")
        st.stop()
    if any(p in SENTENCE_POLICIES for p in policies) and not prepare_sentences(
        lab.prep.document, lab.embedder
    ):
        policies = [p for p in policies if p not in SENTENCE_POLICIES]  # the warning says why
    return lab, policies


def run_evaluation(
    prep: PreparedDoc,
    embedder: Embedder,
    queries: ActiveQueries | Sequence[GoldQuery],
    vecs: np.ndarray,
    policies: Sequence[str],
    params: GateParams,
    tag: str,
) -> Evaluation:
    """:func:`scar_viz.evaluation.evaluate`, once per content and settings; the learned policy
    runs the session's gate at the session's p (after *Apply*, the verdict's: :mod:`ui.learned`),
    never a default in its place."""
    labelled = queries.labelled if isinstance(queries, ActiveQueries) else tuple(queries)
    knobs: dict[str, dict[str, object]] = {}
    named: tuple = ()
    if "learned" in policies:
        gate, p = active_gate(), current_p()
        knobs["learned"] = {"gate": gate, "p": p}
        named = (gate_digest(gate), p)
    key = ("eval", *content_key(prep, queries, tag), tuple(policies), params, *named)

    def compute() -> Evaluation:
        return with_progress(
            f"Evaluating {len(labelled)} queries …",
            lambda update: run_core(
                LabelledRun(prep, labelled, vecs, current_retriever()),
                policies,
                params,
                embed=embed_function(embedder, disk_cache()),
                progress=update,
                should_stop=stop_check(),
                knobs=knobs,
            ),
        )

    return cached(key, compute)


def run_sweep(
    prep: PreparedDoc,
    queries: ActiveQueries | Sequence[GoldQuery],
    vecs: np.ndarray,
    params: GateParams,
    tag: str,
) -> tuple[Candidates, SweepResult]:
    """The sweep's candidates and the λ×τ grid at the sliders' k, r and μ (with μ > 0 the
    candidates carry lex(q,n), docs/method.md §8)."""
    labelled = queries.labelled if isinstance(queries, ActiveQueries) else tuple(queries)
    mu = float(params.mu)
    key = ("sweep", *content_key(prep, queries, tag), params.k, params.radius, mu)

    def compute(update) -> tuple[Candidates, SweepResult]:
        cands = candidates_for(
            LabelledRun(prep, labelled, vecs, current_retriever()),
            params.k,
            params.radius,
            lexical=mu > 0,
        )
        return cands, sweep(cands, LAMS, TAUS, progress=update, mu=mu)

    at_mu = mu_note(mu, " at ")
    text = f"Sweeping {len(LAMS)}×{len(TAUS)} (λ, τ){at_mu} …"
    return cached(key, lambda: with_progress(text, compute))
