"""Chunking lab: how the chunker, chunk size and overlap create or cure fragmentation."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from scar_viz.charts import boundary_map, fragmentation_curves, fragmentation_heatmap, passage_html
from scar_viz.chunking.config import ChunkingConfig, chunk_spans
from scar_viz.chunking.fragmentation import (
    UNIT_LABELS,
    chars_per_token,
    in_characters,
    in_own_units,
)
from scar_viz.chunking.registry import CHUNKERS, chunker_name
from scar_viz.documents.reading import Document
from scar_viz.embeddings import Embedder
from scar_viz.pipeline import embed_function
from scar_viz.queries.reading import parse_queries
from scar_viz.views import chunking_lab as lab
from ui import keys, state
from ui.alerts import alert, or_stop
from ui.cache import disk_cache
from ui.chunker_stats import chunker_table, lab_units, sweeps, table_chunkers
from ui.lab_source import lab_source
from ui.loading import load_model
from ui.presenter import presenting
from ui.queryset import active_set_text, evidence_spans, stash_lab_upload
from ui.share import chart_config
from ui.state import URL, default, set_widget
from ui.tables import show_table


@st.cache_data(show_spinner=False, max_entries=64)
def _spans(
    doc_key: str, _doc: Document, config: ChunkingConfig, model_id: str, _embedder: Embedder
) -> list[tuple[int, int]]:
    return chunk_spans(_doc, config, embed_function(_embedder, disk_cache()))


def _to_top() -> None:
    set_widget(keys.PASSAGE_START, 0)


def _jump() -> None:
    picked = state.get(keys.JUMP)
    if picked is not None:
        set_widget(keys.PASSAGE_START, lab.jump_position(picked))


st.title("Chunking lab")
st.caption(
    "Boundary fragmentation is made at indexing time: a chunk boundary that falls inside a "
    "unit of evidence splits it. Pick a chunker, size and overlap in the sidebar and a second "
    "chunker here; see where each cuts, and how often units are cut."
)

slot = st.empty()  # model-loading spinner and its errors
source = lab_source(slot)
if source is None:
    st.stop()
doc_key, doc, config, embedder, doc_choice, stored = source

names = list(CHUNKERS)
c1, c2, c3 = st.columns([1.2, 1.2, 1.6])
chunker_b = c1.selectbox(
    "Second chunker (B)",
    names,
    index=names.index("sentence"),
    format_func=chunker_name,
    key=keys.CHUNKER_B,
    bind=URL,
)
qs_name, queries_text = active_set_text(doc_choice, doc)
if queries_text:
    alert(  # the set's name is the user's file name: shown escaped
        f"Evidence spans: the session's query set, {qs_name}; pick another on any Evaluation page.",
        "caption",
        c3,
    )
else:
    c3.file_uploader(
        "Query set (JSON Lines) for evidence spans",
        type=["jsonl", "json"],
        key=keys.CHUNK_QUERIES,
        on_change=stash_lab_upload,
        args=(doc, keys.CHUNK_QUERIES),
        help="Evidence spans of a labelled query set become the units; it becomes the "
        "session's query set, for every page.",
    )
evidence, issues = evidence_spans(queries_text, doc)
kinds = lab.unit_kinds(bool(evidence))
kind = c2.radio("Units", kinds, format_func=UNIT_LABELS.get, key=keys.UNITS, horizontal=False)
if issues:
    alert(f"{len(issues)} query-set lines were skipped; first: {issues[0]}", "warning")

scale = chars_per_token(doc.text)
size_chars, overlap_chars = in_characters(config, scale)
config_b = in_own_units(chunker_b, size_chars, overlap_chars, scale, config.percentile)
units = evidence if kind == "evidence" else lab_units(doc_key, doc, kind)

needs_model = (config.needs_embed and stored is None) or config_b.needs_embed
if needs_model and not load_model(embedder, slot):
    st.stop()
with st.spinner("Chunking (the semantic chunker embeds every sentence once) …"):
    spans_a, spans_b = or_stop(
        lambda: (
            stored
            if stored is not None
            else _spans(doc_key, doc, config, embedder.model_id, embedder),
            _spans(doc_key, doc, config_b, embedder.model_id, embedder),
        ),
        "Chunking failed:",
    )
summaries = (
    lab.summarise("A", doc.text, config, spans_a, units),
    lab.summarise("B", doc.text, config_b, spans_b, units),
)
for row in lab.metric_rows(summaries, kind, per_row=3 if presenting() else 6):
    for col, (label, value, why) in zip(st.columns(len(row)), row, strict=True):
        col.metric(label, value, help=why)

if kind == "evidence":
    type_rows, problems = lab.type_rows(parse_queries(queries_text, doc), doc, summaries)
    for problem in problems:
        alert(problem, "warning")
    show_table(pd.DataFrame(type_rows), hide_index=True, key=keys.TYPE_TABLE)
    st.caption(
        "Query types under each chunking: fragmented, two gold chunks are consecutive (the "
        "evidence crosses a boundary); atomic, one gold chunk; scattered, two or more gold "
        "chunks, none consecutive."
    )

st.subheader("Document view")
j0, j1, j2 = st.columns([1.2, 0.8, 1.6]) if doc.several_files else (None, *st.columns([1, 2]))
extent = (0, len(doc.text))
if j0 is not None:  # a corpus: one file at a time, on its own axis
    paths = {p.path: (p.start, p.end) for p in doc.parts}
    extent = paths[j0.selectbox("File", list(paths), key=keys.LAB_FILE, on_change=_to_top)]
fv = lab.file_view(
    doc.text, extent, {s.title: list(s.spans) for s in summaries}, units,
    {s.title: s.cut for s in summaries},
)  # fmt: skip
jumps = lab.cut_unit_options(fv.text, fv.units, fv.cuts[summaries[0].title])
j2.selectbox(
    "Jump to a unit that A cuts" + (" in this file" if j0 is not None else ""),
    list(jumps),
    index=None,
    format_func=jumps.get,
    key=keys.JUMP,
    on_change=_jump,
    placeholder=f"{int(fv.cuts[summaries[0].title].sum())} units cut by A",
)
last = lab.last_position(fv.text)
if state.get(keys.PASSAGE_START, 0) > last:
    set_widget(keys.PASSAGE_START, 0)
pos = j1.number_input(
    "Passage start (character)",
    0,
    last,
    default(keys.PASSAGE_START, 0),
    step=500,
    key=keys.PASSAGE_START,
    bind=URL,
)
lo, hi = lab.passage_window(pos, len(fv.text))
st.caption(
    "Chunks alternate blue / green / pink; yellow text is held by two chunks (overlap); a red "
    "bar with a number starts a chunk, a grey bar ends one; a red wavy underline marks a unit "
    "cut by that chunking."
)
for col, s in zip(st.columns(2), summaries, strict=True):
    col.markdown(f"**{s.title}**", help=s.about)
    with col:
        cut = lab.cut_units(fv.units, fv.cuts[s.title])
        st.html(passage_html(fv.text, fv.spans[s.title], lo, hi, cut))
st.plotly_chart(
    boundary_map(
        fv.text,
        fv.spans,
        fv.units,
        fv.cuts,
        window=(lo, hi),
        where="document" if j0 is None else "file",
    ),  # fmt: skip
    key=keys.BOUNDARY_MAP,
    config=chart_config("chunking-1"),
)

st.subheader("Fragmentation statistics")
st.caption(
    f"Share of the {UNIT_LABELS[kind]} ({len(units)}) that a chunk boundary cuts: no single "
    "chunk covers all of the unit's non-whitespace characters. Token chunkers are compared at "
    f"the same length in characters ({scale:.2f} characters per o200k_base token here)."
)
chunker_table(
    table_chunkers(doc_key, doc, embedder, [config.chunker, chunker_b]),
    doc,
    units,
    (size_chars, overlap_chars, scale),
    config.percentile,
    lambda cfg: _spans(doc_key, doc, cfg, embedder.model_id, embedder),
)
with st.expander(f"Shortest chunks of A ({config.label})"):
    show_table(
        pd.DataFrame(lab.shortest_chunks(doc.text, spans_a)), hide_index=True, key=keys.SHORTEST
    )
    st.caption("A chunk that is a heading alone, or a few characters, shows up here first.")

shown = st.multiselect(
    "Chunkers in the curves",
    names,
    default=list(dict.fromkeys([config.chunker, chunker_b])),
    format_func=chunker_name,
    key=keys.CURVE_CHUNKERS,
)
grids = sweeps(doc_key, doc, shown, units, kind, config.percentile, embedder)
g1, g2 = st.columns([3, 2])
with g1:
    if grids:
        st.plotly_chart(
            fragmentation_curves(grids, overlap_chars),
            key=keys.CURVES,
            config=chart_config("chunking-2"),
        )
        st.caption(
            f"Each curve at the overlap nearest {overlap_chars} characters; the star is "
            "the reference 600/60."
        )
    else:
        st.info("Pick at least one chunker for the curves.")
with g2:
    if grids:
        st.plotly_chart(
            fragmentation_heatmap(grids[0]), key=keys.HEATMAP, config=chart_config("chunking-3")
        )
        st.caption(
            f"{chunker_name(grids[0].chunker)}: size × overlap; the outlined cell is the reference."
        )
