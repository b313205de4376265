"""Test harness: the live gate panel and the overview on real embeddings, nothing else.

Query parameters: ``doc`` = ``sample`` (the built-in harbour handbook, default model),
``hostile`` (a document full of markup, hashing embedder), ``corpus`` (five small files joined
into a corpus, hashing embedder) or ``file`` (the text file named by ``$GATE_APP_FILE``);
``model`` (default / hash); ``size`` (chunk size, default 600); ``k``,
``r`` and ``kmax`` (the payload's largest k; ``all`` = every chunk); ``mu``: the page's μ
(default 0; the payload always carries lex(q, ·)); ``big=1``: presenter size.

With ``$GATE_APP_DUMP`` set, the arrays the page decides from are written there
(``sims.npy``, ``unit.npy``, ``lex.npy``, ``payload.json`` and ``doc_of.npy``)
so a test can run Python's gate on them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import streamlit as st

from scar_viz.charts.overview import overview_chart
from scar_viz.chunking.config import ChunkingConfig
from scar_viz.documents import samples
from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import document_from_text
from scar_viz.embeddings import EmbeddingCache, make_embedder
from scar_viz.pipeline import embed_query, prepare_document
from scar_viz.scoring.lexical import question_lex
from scar_viz.scoring.params import GateParams
from scar_viz.scoring.scar import select_from_sims
from scar_viz.views.focus import gate_payload, overview_data
from ui.gate_panel import copy_release_to, gate_panel, remember_overview_click

HOSTILE = (
    '# Report <img src=x onerror="window.__pwned=1"> :red[RED]\n\n'
    + "<script>window.__pwned = 1</script> The harbour payload paragraph talks about tides. " * 3
    + "\n\n"
    + "\n\n".join(
        f'Section {i} <img src=x onerror="window.__pwned={i}"> of the tide tables, with wind '
        f"limits and crossings. <b onclick=x>bold</b> <script>window.__pwned={i}</script> " * 4
        for i in range(8)
    )
)

st.set_page_config(page_title="Gate panel harness", layout="wide")
st.title("Gate panel harness")
args = st.query_params
doc_kind = args.get("doc", "sample")
model = args.get("model", "hash" if doc_kind in ("hostile", "corpus") else "default")
size = int(args.get("size", 600))


@st.cache_resource(show_spinner=False)
def _embedder(spec: str):
    return make_embedder(spec)


@st.cache_resource(show_spinner=False)
def _prepared(kind: str, spec: str, size: int):
    if kind == "hostile":
        doc = document_from_text("hostile.md", HOSTILE)
        query = "harbour payload paragraph tides script window pwned"
    elif kind == "corpus":
        topics = ["tides and harbour pilots", "engine maintenance", "tide tables", "crew", "tides"]
        doc = join_documents(
            [
                document_from_text(
                    f"file{i}.md",
                    "\n\n".join(f"Part {j} of file {i} is about {t}. " * 6 for j in range(4)),
                )
                for i, t in enumerate(topics)
            ]
        )
        query = "tides and harbour pilots tide tables"
    elif kind == "file":
        path = Path(os.environ["GATE_APP_FILE"])
        doc = document_from_text(path.name, path.read_text(encoding="utf-8"))
        query = os.environ.get("GATE_APP_QUERY", "When is a connection reset?")
    else:
        doc = samples.load_sample()
        query = samples.sample_questions()[0]["query"]
    embedder = _embedder(spec)
    cache = EmbeddingCache()
    config = ChunkingConfig(size=size, overlap=size // 10)
    prep = prepare_document(doc, embedder, config=config, prepend=False, cache=cache)
    return prep, query, embed_query(embedder, query, cache=cache)


prep, query, qvec = _prepared(doc_kind, model, size)
n = len(prep.chunks)
k = int(args.get("k", 3))
radius = int(args.get("r", 1))
kmax = n if args.get("kmax") == "all" else int(args.get("kmax", 20))
mu = float(args.get("mu", 0))
words = question_lex([c.text for c in prep.chunks], query)
st.session_state.setdefault("lam", 0.5)
st.session_state.setdefault("tau", 0.1)
lam, tau = st.session_state["lam"], st.session_state["tau"]

sims = prep.unit @ qvec
focus = st.session_state.get("focus")  # the last chunk clicked in the overview
params = GateParams(k=k, lam=lam, tau=tau, radius=radius, mu=mu)
doc_of = prep.doc_of
payload = gate_payload(
    prep.chunks, sims, prep.unit, params, kmax=kmax, focus=focus, doc_of=doc_of, lex=words.share
)
if os.environ.get("GATE_APP_DUMP"):
    out = Path(os.environ["GATE_APP_DUMP"])
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / "sims.npy", sims)
    np.save(out / "unit.npy", prep.unit)
    np.save(out / "lex.npy", words.share)
    (out / "payload.json").write_text(json.dumps(payload))
    np.save(out / "doc_of.npy", doc_of)

st.caption(f"{prep.document.name}: {n} chunks · question: {query}")
released = gate_panel(
    payload,
    lam=lam,
    tau=tau,
    mu=mu,
    key="gate_panel",
    big=args.get("big") == "1",
    on_release=copy_release_to("gate_panel"),
)
sel = select_from_sims(sims, prep.unit, params, doc_of, words)
st.markdown(
    f"Python: λ = {lam:.2f}, τ = {tau:.2f} · admitted {sel.admitted} · "
    f"rejected {sel.rejected} · released: {released}"
)
st.plotly_chart(
    overview_chart(overview_data(sims, sel), focus=focus),
    on_select=remember_overview_click("overview", "focus"),
    selection_mode="points",
    key="overview",
)
st.markdown(f"Focused chunk: {st.session_state.get('focus')}")
