"""The document's sentences, split and embedded once per document and model, with a progress bar;
and the switch that adds the sentence policies (QASC, its hybrid, the sentence window), with
their cost stated before it is flipped.

The switch is on at first only when the work is cheap: every sentence is embedded already, or
embedding the rest is estimated at most :data:`FREE_SECONDS` from the speed this model showed
in this process (:mod:`scar_viz.embeddings.speed`). Otherwise a page opens without them and says
what they would cost ("about 4,907 sentences to embed, at least 65 s here").

The split is read from the on-disk span cache (:mod:`scar_viz.documents.sentence_cache`) and
seeds the in-process memo the policies use; the vectors go through the on-disk embedding cache.
Both run under :func:`ui.cache.cached`, keyed by the document's content, the splitter and the
model, so later pages and reruns skip the step entirely.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import streamlit as st

from scar_viz.documents.reading import Document
from scar_viz.documents.sentence_cache import cached_sentence_spans, spans_key
from scar_viz.documents.sentences import (
    DEFAULT_MAX_CHARS,
    part_sentence_spans,
    split_speed_key,
)
from scar_viz.embeddings import Embedder, embed_cached, speed, text_key
from scar_viz.embeddings.cache import vectors_id
from ui.alerts import attempt, duration, with_progress
from ui.cache import cached, disk_cache, span_cache
from ui.cancel import stop_check

SENTENCE_POLICIES = ("qasc", "qasc-hybrid", "sentence-window")
"""The policies that need every sentence of the document embedded."""
SPLITTER = "pysbd"


FREE_SECONDS = 2.0
"""Sentence work estimated at most this long runs without being asked for."""


UNMEASURED_CHARS_PER_SECOND = 2_200
"""What a model not yet measured in this process is taken to embed, in characters of sentences
a second: the embedded default model on the project's 2-core CPU (2,235 measured by
benchmarks/sentence_estimate.py), so a few sentences (the samples: about 30) start on while a
corpus' thousands wait for the click."""


SPLIT_CHARS_PER_SECOND = 150_000
"""pysbd's speed when it has not split anything in this process yet: RFC 9293 (263,690
characters) split in 1.47 s on this project's machine, rounded down."""


def sentence_cost(doc: Document, embedder: Embedder) -> tuple[speed.Estimate, bool]:
    """What ``doc``'s sentences would cost now: those not yet in the disk cache, the seconds to
    embed them (None before this model's speed is known) plus, while the split is not on disk,
    the seconds to split the document (pysbd: seconds on a long corpus); and whether the count
    is exact (the split is on disk) or approximate (the quick regex split)."""
    parts = tuple(doc.part_bounds)
    spans = span_cache().get(spans_key(doc.text, parts, SPLITTER, DEFAULT_MAX_CHARS))
    exact = spans is not None
    if spans is None:
        spans = part_sentence_spans(doc.text, parts, "regex", DEFAULT_MAX_CHARS)
    texts = list(dict.fromkeys(doc.text[s:e] for s, e in spans))
    found = disk_cache().get_many(vectors_id(embedder), [text_key(t) for t in texts])
    cost = speed.estimate(embedder.model_id, [t for t in texts if text_key(t) not in found])
    if exact or cost.seconds is None:
        return cost, exact
    rate = speed.chars_per_second(split_speed_key(SPLITTER)) or SPLIT_CHARS_PER_SECOND
    return replace(cost, seconds=cost.seconds + len(doc.text) / rate), exact


def cost_words(cost: speed.Estimate, exact: bool, what: str = "sentences") -> str:
    """'about 4,907 sentences to embed (…), at least 65 s here (an estimate …)' or 'every one
    of the sentences is embedded already'."""
    if cost.texts == 0:
        return f"every one of the {what} is embedded already: no wait."
    about = "" if exact else "about "
    head = f"{about}{cost.texts:,} {what} to embed ({cost.chars:,} characters)"
    if cost.seconds is None:
        return (
            f"{head}; the time is not known yet (the model has not embedded anything in this "
            "process to measure its speed)."
        )
    split = "" if exact else ", the split into sentences included"
    return (
        f"{head}, {_duration(cost.seconds)} here{split} (an estimate from the characters per "
        "second this model showed in this process; short sentences take longer per character "
        "than the chunks it was measured on)."
    )


def _duration(seconds: float) -> str:
    """'under 1 s', 'at least 52 s', 'at least 3 min': the estimate is a floor
    (benchmarks/sentence_estimate.py measured the real work at 2.7 and 3.1 times it)."""
    return "under 1 s" if seconds < 1 else f"at least {duration(seconds)}"


def cheap(cost: speed.Estimate) -> bool:
    """Whether sentence work runs without being asked for (the sentence switch starts on, the
    Chunking lab's table adds the semantic chunker): nothing left to embed, or the rest
    estimated at most :data:`FREE_SECONDS` (at :data:`UNMEASURED_CHARS_PER_SECOND` before
    this model's speed is known)."""
    if cost.texts == 0:
        return True
    seconds = cost.seconds if cost.seconds is not None else cost.chars / UNMEASURED_CHARS_PER_SECOND
    return seconds <= FREE_SECONDS


def sentence_toggle(key: str, doc: Document, embedder: Embedder) -> bool:
    """The switch that adds (True) or leaves out the sentence policies on this page, with what
    they cost stated beside it; on at first only when that cost is small (module docstring)."""
    cost, exact = sentence_cost(doc, embedder)
    on = st.toggle(
        "Sentence policies (QASC, qasc-hybrid, sentence window)",
        cheap(cost),
        key=key,
        help="They embed every sentence of the document once (cached afterwards, for every "
        "page); a page opens without them when that would take a while.",
    )
    st.caption(
        ("Sentence policies: " if on else "Sentence policies (off): ") + cost_words(cost, exact)
    )
    return on


def without_sentence_policies(names: Sequence[str]) -> list[str]:
    """``names`` without the sentence policies."""
    return [n for n in names if n not in SENTENCE_POLICIES]


def prepare_sentences(doc: Document, embedder: Embedder) -> bool:
    """Split ``doc`` into sentences (spinner; read from the disk cache after the first time)
    and embed them (progress bar) once per document, splitter and model in this process;
    False (after a warning) when embedding failed."""
    key = ("sentences", doc.digest, SPLITTER, DEFAULT_MAX_CHARS, embedder.model_id)

    place = st.empty()  # drawn on every run, so the page keeps its shape
    with place.container(), st.spinner("Splitting the document into sentences (once) …"):
        # a read of the disk cache after the first time; it also seeds the policies' memo
        spans = cached_sentence_spans(doc.text, span_cache(), doc.part_bounds, SPLITTER)

    def compute() -> bool:
        with place.container():
            result = with_progress(
                f"Sentence vectors for {len(spans):,} sentences (once per model)",
                lambda update: attempt(
                    lambda: embed_cached(
                        embedder,
                        [doc.text[s:e] for s, e in spans],
                        disk_cache(),
                        update,
                        stop_check(),
                    ),
                    "Embedding the sentences failed:",
                    kind="warning",
                ),
            )
        if result is None:
            raise _NotEmbedded
        return True

    try:
        done = cached(key, compute)
    except _NotEmbedded:
        return False
    place.empty()
    return done


class _NotEmbedded(Exception):
    """Embedding the sentences failed (the warning is shown); nothing is cached."""
