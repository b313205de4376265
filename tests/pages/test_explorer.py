"""AppTest of the explorer page: it renders on the sample, and sliders change the gate."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.chunking.config import ChunkingConfig, chunk_doc_of, chunk_document
from scar_viz.common.fmt import chunk_list, elide_middle
from scar_viz.documents import samples
from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import document_from_text
from scar_viz.embeddings import text_key
from scar_viz.queries.reading import parse_queries
from scar_viz.scoring.scar import DEFAULT_K
from scar_viz.views.explorer import gold_chunks, labelled_query
from tests.pages.helpers import alerts, use_endpoint
from ui import keys
from ui.corpus_view import PATH_CHARS
from ui.gate_controls import MU_NOTE, TERMS
from ui.intro import LESSON

APP = "../../app.py"
TIMEOUT = 60


def table_with(at: AppTest, column: str):
    """The first dataframe on the page with ``column``."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture
def at(hash_model) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    app.run()
    assert not app.exception, app.exception
    return app


def test_opens_on_sample_without_upload(at):
    assert at.title[0].value == "Explorer"
    assert at.selectbox(key="doc").value == samples.DEFAULT_SAMPLE
    assert at.text_input(key="q").value  # the default example question
    assert int(metric(at, "Retrieved")) == DEFAULT_K
    # the overview (marks above the similarity row); the live panel draws the plane
    assert [c.key for c in at.get("plotly_chart")] == ["overview_marks", "overview"]
    at.toggle(key="plane_chart_on").set_value(True).run()
    assert len(at.get("plotly_chart")) == 3  # and the plane as a chart, on demand


def test_lambda_and_tau_change_the_admitted_set(at):
    at.slider(key="lam").set_value(0.0)
    at.slider(key="tau").set_value(0.0).run()
    loose = int(metric(at, "Admitted neighbours"))
    at.slider(key="lam").set_value(2.0)
    at.slider(key="tau").set_value(1.5).run()
    strict = int(metric(at, "Admitted neighbours"))
    assert not at.exception
    assert loose > strict
    assert strict == 0


def test_mu_admits_the_neighbours_that_hold_the_questions_words(at):
    """The sample's first question ("…the last crossing of the day is cancelled?") at preset A:
    chunks 48 and 51 hold its words; μ = 0.5 lifts them over the bar."""
    assert at.slider(key="mu").value == 0.0
    assert int(metric(at, "Admitted neighbours")) == 1
    assert "lex(q,n)" not in table_with(at, "cos(q,n)").columns
    at.slider(key="mu").set_value(0.5).run()
    assert not at.exception, at.exception
    assert int(metric(at, "Admitted neighbours")) == 3
    frame = table_with(at, "cos(q,n)")
    assert {"lex(q,n)", "μ·lex(q,n)"} <= set(frame.columns)
    admitted = frame[frame["outcome"] == "admitted"]
    assert {48, 51} <= set(admitted["neighbour"]) and (admitted["μ·lex(q,n)"] > 0).all()
    options = at.selectbox(key="why_pick").options
    at.selectbox(key="why_pick").set_value(next(i for i, o in enumerate(options) if "→ 48" in o))
    at.run()
    assert any(r"\mu" in x.value and "lex" in x.value for x in at.latex)
    assert any("The question's words add μ·lex(q,n)" in m.value for m in at.markdown)


def test_mu_in_the_address_sets_the_slider(hash_model):
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    app.query_params["mu"] = "0.5"
    app.run()
    assert not app.exception, app.exception
    assert app.slider(key="mu").value == 0.5
    assert int(metric(app, "Admitted neighbours")) == 3
    bad = AppTest.from_file(APP, default_timeout=TIMEOUT)
    bad.query_params["mu"] = "7"
    bad.run()
    assert bad.slider(key="mu").value == 0.0
    assert any("μ = 7" in a for a in alerts(bad))


def test_presets_set_the_sliders(at):
    at.button(key="preset_b").click().run()
    assert at.slider(key="lam").value == pytest.approx(0.1)
    assert at.slider(key="tau").value == pytest.approx(0.8)
    at.button(key="preset_a").click().run()
    assert at.slider(key="lam").value == pytest.approx(0.5)
    assert at.slider(key="tau").value == pytest.approx(0.1)


def test_uploaded_document_is_used(hash_model):
    text = "# Notes\n\n" + "\n\n".join(
        f"Paragraph {i} talks about topic {i % 4} in some detail. " * 6 for i in range(30)
    )
    doc = document_from_text("notes.md", text)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["uploaded"] = (text_key(text), doc)
    at.run()
    at.selectbox(key="doc").set_value("upload").run()
    assert not at.exception
    assert any("notes.md" in h.proto.body for h in at.sidebar.get("html"))


def test_invalid_chunking_shows_message_and_keeps_page(at):
    at.number_input(key="overlap").set_value(700).run()
    assert not at.exception
    assert any("Overlap (700) must be smaller" in e.value for e in at.error)
    at.number_input(key="overlap").set_value(60).run()
    assert not at.error
    assert int(metric(at, "Retrieved")) == DEFAULT_K


def _sliders(node) -> list[str]:
    """The keys of the sliders under ``node``, in page order."""
    if getattr(node, "type", None) == "slider":
        return [node.key]
    children = (getattr(node, "children", None) or {}).values()
    return [k for child in children for k in _sliders(child)]


def _rows(node) -> list[list[str]]:
    """Each row of columns holding sliders: the slider keys of its columns, in page order."""
    children = list((getattr(node, "children", None) or {}).values())
    if children and all(getattr(c, "type", None) == "column" for c in children):
        keys_here = _sliders(node)
        if keys_here and not any(len(_rows(c)) for c in children):
            return [keys_here]
    return [row for c in children for row in _rows(c)]


def test_a_newcomer_reads_what_fragmentation_is_and_finds_learn(at):
    first = at.markdown[0].value  # the page's first line, above the question
    assert first.startswith("**Boundary fragmentation**")
    assert re.search(r"between chunk \d+ and chunk \d+", first)  # the sample's own cut
    (link,) = at.get("page_link")
    assert link.proto.label == LESSON and link.proto.page == "learn"
    assert "10-minute" in LESSON


def test_the_formulas_and_mu_wait_under_how_the_gate_decides(at):
    (box,) = [e for e in at.expander if e.label == "How the gate decides"]
    caption = box.caption[0].value
    for word, text in TERMS:
        assert f"**{word}**: {text}" in caption
    assert caption.index("**Chunk**") < caption.index("**Retriever**")
    assert [s.key for s in box.slider] == [keys.MU]
    assert not any("μ" in c.value for c in at.caption if c not in box.caption)


def test_mu_sits_below_the_four_main_knobs(at):  # inside "How the gate decides"
    rows = _rows(at.main)
    assert [keys.K, keys.R, keys.LAM, keys.TAU] in rows
    assert [keys.MU] in rows
    assert rows.index([keys.MU]) == rows.index([keys.K, keys.R, keys.LAM, keys.TAU]) + 1
    assert any(MU_NOTE in c.value for c in at.caption)


def test_empty_query_asks_for_one(at):
    at.text_input(key="q").set_value("   ").run()
    assert not at.exception
    assert any("Type a question" in i.value for i in at.info)


def test_every_setting_restores_from_the_address(hash_model):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    params = {
        "q": "Who decides a crossing in fog?",
        "k": "4",
        "r": "2",
        "lam": "1.25",
        "tau": "0.35",
        "size": "500",
        "overlap": "50",
        "chunker": "section",
        "model": "hash",
        "prepend": "true",
        "present": "true",
    }
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    assert at.text_input(key="q").value == params["q"]
    assert (at.slider(key="k").value, at.slider(key="r").value) == (4, 2)
    assert (at.slider(key="lam").value, at.slider(key="tau").value) == (1.25, 0.35)
    assert (at.number_input(key="size").value, at.number_input(key="overlap").value) == (500, 50)
    assert at.selectbox(key="chunker").value == "section"
    assert at.checkbox(key="prepend").value is True
    assert at.toggle(key="present").value is True
    assert int(metric(at, "Retrieved")) == 4


def test_decision_table_download_is_offered(at):
    assert any(b.key == "dl_decisions" for b in at.get("download_button"))


def test_payload_memo_is_keyed_on_content_not_object_identity(at):
    """The gate panel's payload is cached under the document's digest, the chunking, the
    model, prepending, the query and the focus: never ``id(prep)``, which CPython reuses."""
    import dataclasses

    from scar_viz.chunking.config import ChunkingConfig
    from scar_viz.embeddings import make_embedder
    from scar_viz.pipeline import prepare_document
    from ui.cache import prepared_key

    emb = make_embedder("hash")
    doc = samples.load_sample()
    one = prepare_document(doc, emb, ChunkingConfig())
    two = prepare_document(doc, emb, ChunkingConfig())  # same content, another object
    assert one is not two and prepared_key(one) == prepared_key(two)
    other = prepare_document(document_from_text(doc.name, doc.text + " More."), emb)
    assert prepared_key(other) != prepared_key(one)
    assert prepared_key(dataclasses.replace(one, prepend=True)) != prepared_key(one)
    key = prepared_key(one)
    assert key[0] == text_key(doc.text) and len(key[0]) == 64
    assert isinstance(key[1], ChunkingConfig) and key[2].startswith("hash:")
    assert not any(isinstance(part, int) and part > 2**20 for part in key)
    root = Path(__file__).resolve().parents[2]
    source = (root / "pages" / "explorer.py").read_text()
    assert "live_panel(prep, setup.key," in source and "id(prep)" not in source
    panel = (root / "ui" / "gate_controls.py").read_text()
    assert '("gate-payload", *doc_key' in panel and "id(prep)" not in panel
    assert "prepared_key(prepared)" in (root / "ui" / "setup.py").read_text()  # Setup.key


def test_page_is_thin():
    """Issue 12.1: the page is a thin script (about 250 lines at most)."""
    source = (Path(__file__).resolve().parents[2] / "pages" / "explorer.py").read_text()
    assert len(source.splitlines()) <= 250
    assert "charts._" not in source and "import numpy" not in source


# --- overview, panel, policy ---------------------------------------------------------------


def test_overview_and_gate_panel_are_shown(at):
    import json as _json

    charts = {c.key: _json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    marks, base = charts["overview_marks"], charts["overview"]
    assert [t["name"] for t in marks["data"]] == ["rejected", "admitted", "retrieved", "ranks"]
    assert [t["name"] for t in base["data"]] == ["cos(q,c)", "chunks"]
    assert marks["layout"]["xaxis"]["range"] == base["layout"]["xaxis"]["range"]  # aligned
    # λ moves change the marks only: the similarity row is sent unchanged
    at.slider(key="lam").set_value(0.0)
    at.slider(key="tau").set_value(0.0).run()
    after = {c.key: c.proto.spec for c in at.get("plotly_chart")}
    assert after["overview"] == _json.dumps(base) or _json.loads(after["overview"]) == base
    assert _json.loads(after["overview_marks"]) != marks


def test_metric_deltas_never_show_minus_zero(at):
    at.slider(key="lam").set_value(2.0)
    at.slider(key="tau").set_value(1.5).run()
    for m in at.metric:
        assert "-0%" not in str(m.delta) and "−0%" not in str(m.delta)
    # with nothing admitted and r = 1 the window still sends more: a real change
    assert "vs window" in str(next(m.delta for m in at.metric if m.label == "SCAR chunks"))


def test_presenter_mode_uses_short_metric_labels(hash_model):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["present"] = "true"
    at.run()
    assert not at.exception, at.exception
    labels = [m.label for m in at.metric]
    assert "Admitted" in labels and "Admitted neighbours" not in labels
    assert all(len(label) <= 12 for label in labels), labels
    assert all("vs window" not in str(m.delta) for m in at.metric)


def test_presenter_mode_draws_tables_as_large_escaped_html(hash_model):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["present"] = "true"
    at.run()
    assert not at.exception, at.exception
    tables = [h.proto.body for h in at.get("html") if 'class="sv-table"' in h.proto.body]
    assert len(tables) >= 2  # the decision table and the summary
    assert any("<th>cos(q,n)</th>" in t for t in tables)
    # no grid at all: the hits are a large table with one focus button per hit
    assert len(at.dataframe) == 0
    hits = [t for t in tables if "<th>rank</th>" in t]
    assert len(hits) == 1
    pick = next(b for b in at.get("button_group") if b.key == keys.HITS_PICK)
    second = int(pick.options[1].removeprefix("chunk "))
    pick.set_value(second).run()
    assert not at.exception, at.exception
    assert at.session_state[keys.FOCUS] == second  # the button focuses its chunk


def test_presenter_mode_draws_the_corpus_table_large_with_a_button_per_file(hash_model):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["present"] = "true"
    at.query_params["doc"] = "kestrel"
    at.run()
    assert not at.exception, at.exception
    assert len(at.dataframe) == 0  # no canvas grid, whose text stays at 14 px
    tables = [h.proto.body for h in at.get("html") if "<th>fragmented</th>" in h.proto.body]
    assert len(tables) == 1
    corpus = samples.load_sample("kestrel")
    assert all(html.escape(p.path) in tables[0] for p in corpus.parts)
    pick = next(b for b in at.get("button_group") if b.key == keys.CORPUS_PICK)
    last = pick.options[-1]  # a file the table lists last: fewest hits
    first = next(i for i, p in enumerate(corpus.parts) if p.path == last)
    doc_of = chunk_doc_of(corpus, chunk_document(corpus, ChunkingConfig()))
    # the buttons' values are chunks (each file's best), shown as the file's path: any chunk
    # of that file names its button
    pick.set_value(int((doc_of == first).argmax())).run()
    assert not at.exception, at.exception
    assert doc_of[at.session_state[keys.FOCUS]] == first  # the button opens that file
    assert last in " ".join(h.proto.body for h in at.get("html") if "sv-open-file" in h.proto.body)


def test_an_off_topic_question_gets_the_low_cosine_notice(at):
    at.text_input(key="q").set_value("How do I bake sourdough bread?").run()
    assert not at.exception, at.exception
    notes = alerts(at, "warning")
    assert any("off-topic" in n and "far below the usual" in n for n in notes), notes
    at.text_input(key="q").set_value(samples.sample_questions()[0]["query"]).run()
    assert not any("far below the usual" in n for n in alerts(at, "warning"))


def test_learned_policy_shows_its_why_box(at):
    at.segmented_control(key="policy").set_value("learned").run()
    assert not at.exception, at.exception
    why = table_with(at, "term")
    terms = list(why["term"])
    assert terms[-2:] == ["intercept", "score"] and "cos_qn" in terms
    assert why["contribution"][:-1].sum() == pytest.approx(why["contribution"].iloc[-1], abs=1e-3)
    assert any("the default learned gate" in c.value for c in at.caption)
    assert metric(at, "learned chunks")


def test_learned_mode_disables_lambda_tau_and_lists_meanings_in_full(at):
    from scar_viz.scoring.learned.features import FEATURE_MEANING
    from ui.gate_controls import LEARNED_NOTE

    assert not at.slider(key="lam").disabled and not at.slider(key="tau").disabled
    assert not any(c.value == LEARNED_NOTE for c in at.caption)
    at.segmented_control(key="policy").set_value("learned").run()
    assert not at.exception, at.exception
    assert at.slider(key="lam").disabled and at.slider(key="tau").disabled
    assert not at.slider(key="k").disabled and not at.slider(key="r").disabled
    assert any(c.value == LEARNED_NOTE for c in at.caption)
    why = table_with(at, "term")
    assert "meaning" not in why.columns  # a cell would cut it off: listed in full instead
    text = " ".join(m.value for m in at.markdown)
    features = [t for t in why["term"] if t in FEATURE_MEANING]
    assert features and all(FEATURE_MEANING[t] in text for t in features)
    at.segmented_control(key="policy").set_value("SCAR").run()
    assert not at.slider(key="lam").disabled


def test_learned_policy_reads_a_gate_fitted_in_this_session(at):
    from scar_viz.scoring.learned import default_gate
    from ui.keys import GATE_JSON as GATE_STATE

    at.segmented_control(key="policy").set_value("learned").run()
    assert not at.exception
    assert any("the default learned gate" in c.value for c in at.caption)
    assert not any("this session's learned gate" in c.value for c in at.caption)
    at.session_state[GATE_STATE] = default_gate().to_json()  # what Fit a gate keeps
    at.run()
    assert not at.exception
    assert any("this session's learned gate" in c.value for c in at.caption)


# --- a new document ------------------------------------------------------------------------

REPORT = "# Ferry report\n\n" + "\n\n".join(
    f"## {title}\n\n" + f"The {title.lower()} of the ferry are described here in detail. " * 8
    for title in ("Weather limits", "Crew duties", "Fuel and bunkering", "Passenger safety")
)


def uploaded_app(text: str = REPORT, name: str = "report.md") -> AppTest:
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    app.run()
    doc = document_from_text(name, text)
    app.session_state["uploaded"] = (text_key(text), doc)
    app.selectbox(key="doc").set_value("upload").run()
    assert not app.exception, app.exception
    return app


def test_an_upload_starts_with_an_empty_question_and_starters(hash_model):
    at = uploaded_app()
    assert at.text_input(key="q").value in ("", None)
    assert any("A new document: type a question" in i.value for i in at.info)
    assert not at.metric  # no results for the sample's question on the new document
    starters = at.selectbox(key="starter")
    assert "What does the document say about weather limits?" in starters.options
    assert len(starters.options) <= 5
    starters.set_value("What does the document say about crew duties?").run()
    assert at.text_input(key="q").value == "What does the document say about crew duties?"
    assert int(metric(at, "Retrieved")) == DEFAULT_K


def test_back_on_the_sample_its_question_and_examples_return(hash_model):
    at = uploaded_app()
    at.selectbox(key="doc").set_value(samples.DEFAULT_SAMPLE).run()
    assert at.text_input(key="q").value == samples.sample_questions()[0]["query"]
    assert at.selectbox(key="example").options


# --- label as you explore ------------------------------------------------------------------


def test_label_the_current_question_and_download_the_set(at):
    from ui.queryset import session_set

    doc = samples.load_sample()
    passage = doc.text[1000:1200]
    at.text_area(key="lab_text").set_value(passage)
    at.button(key="lab_add").click().run()
    assert not at.exception
    assert any("Added as session-01" in a for a in alerts(at, "info"))
    assert any(b.key == "lab_dl" for b in at.get("download_button"))
    stored = at.session_state["qsets"]
    assert any("session" in v for v in stored.values())
    _ = session_set  # the Evaluation lab reads the same store (source "session")


def test_labelling_errors_show_one_message(at):
    at.text_area(key="lab_text").set_value("words that are nowhere in the harbour document xyz")
    at.button(key="lab_add").click().run()
    assert not at.exception
    errors = alerts(at, "error")
    assert len(errors) == 1 and "does not occur in the document" in errors[0]


def test_label_by_picking_chunks(at):
    first = at.multiselect(key="lab_chunks").options[0]  # "chunk N"
    at.multiselect(key="lab_chunks").set_value([int(first.split()[1])])
    at.button(key="lab_add").click().run()
    assert any("Added as session-01" in a for a in alerts(at, "info"))


# --- answer with an LLM --------------------------------------------------------------------


def llm_app(server) -> AppTest:
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    app.query_params["llm_url"] = server.base_url
    app.query_params["llm_model"] = "fake-model"
    app.query_params["q"] = "Who decides whether a crossing goes ahead in fog?"
    app.run()
    assert not app.exception, app.exception
    assert server.calls == 0  # the link's endpoint is a proposal until the visitor confirms
    use_endpoint(app)
    return app


def test_answers_from_three_contexts_side_by_side(hash_model, llm_server):
    at = llm_app(llm_server)
    at.button(key="llm_answer").click().run()
    assert not at.exception, at.exception
    table = table_with(at, "tokens spent")
    assert list(table["policy"]) == ["top-k", "window ±1", "SCAR"]
    assert (table["tokens spent"] > 0).all()
    assert table["context tokens"].iloc[1] >= table["context tokens"].iloc[0]
    # one call per distinct context (identical contexts share the disk cache)
    assert llm_server.calls == table["context tokens"].nunique()
    calls = llm_server.calls
    at.button(key="llm_answer").click().run()  # asking again costs no call
    assert llm_server.calls == calls


def test_a_labelled_question_is_answered_and_scored(hash_model, llm_server):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["llm_url"] = llm_server.base_url
    at.query_params["llm_model"] = "fake-model"
    at.run()  # the sample's first example question: its evidence is in the sample's file
    use_endpoint(at)
    at.button(key="llm_answer").click().run()
    assert not at.exception, at.exception
    table = table_with(at, "tokens spent")
    assert {"faithfulness", "context_recall"} <= set(table.columns)
    assert table["faithfulness"].between(0, 1).all()


def test_answers_are_escaped(hash_model, llm_server):
    from tests.fake_llm import HTML_ANSWER

    llm_server.mode = "html"
    at = llm_app(llm_server)
    at.button(key="llm_answer").click().run()
    bodies = [h.proto.body for h in at.get("html")]
    assert not any("<script>" in b for b in bodies)
    assert any("&lt;script&gt;" in b for b in bodies)
    assert any(HTML_ANSWER in a for a in alerts(at, "info"))


def test_llm_errors_show_one_message(hash_model, llm_server):
    llm_server.mode = "401"
    at = llm_app(llm_server)
    at.button(key="llm_answer").click().run()
    assert not at.exception
    assert len(alerts(at, "error")) == 1


def test_a_corpus_shows_its_files_and_the_focused_file(at):
    at.selectbox(key="doc").set_value("kestrel").run()
    assert not at.exception, at.exception
    charts = [c.key for c in at.get("plotly_chart")]
    assert charts == ["corpus_chart", "overview_marks", "overview"]
    table = table_with(at, "fragmented queries")
    corpus = samples.load_sample("kestrel")
    assert sorted(table["file"]) == sorted(p.path for p in corpus.parts)
    assert table["retrieved"].sum() == int(metric(at, "Retrieved"))
    assert table["retrieved"].iloc[0] > 0  # files holding hits come first
    assert table["queries"].sum() > 0  # the sample's labelled set is counted
    # a focus in another file opens that file in the overview
    last = table["file"].iloc[-1]
    first = next(i for i, p in enumerate(corpus.parts) if p.path == last)
    doc_of = chunk_doc_of(corpus, chunk_document(corpus, ChunkingConfig()))
    chunk = int((doc_of == first).argmax())
    at.session_state["focus"] = chunk
    at.run()
    assert last in " ".join(h.body for h in at.get("html"))


def test_a_corpus_without_a_question_shows_what_was_loaded(at):
    at.selectbox(key="doc").set_value("kestrel").run()
    at.text_input(key="q").set_value("").run()
    assert not at.exception, at.exception
    assert [c.key for c in at.get("plotly_chart")] == ["corpus_chart"]  # no overview yet
    table = table_with(at, "characters")
    corpus = samples.load_sample("kestrel")
    assert list(table["file"]) == [p.path for p in corpus.parts]  # corpus order
    assert "retrieved" not in table.columns and "best cos(q,c)" not in table.columns
    doc_of = chunk_doc_of(corpus, chunk_document(corpus, ChunkingConfig()))
    assert list(table["chunks"]) == [int((doc_of == d).sum()) for d in range(len(corpus.parts))]
    assert list(table["characters"]) == [p.end - p.start for p in corpus.parts]
    assert table["queries"].sum() > 0  # the sample's labelled set is counted already
    assert any("Loaded: " in c.value for c in at.caption)


LONG = "handbooks/<b>operations</b>/chapters/2026/vessels/the-gannet/engine-room/checks.md"


def test_a_long_path_is_cut_in_the_middle_with_the_whole_path_on_hover(hash_model):
    files = [
        document_from_text(
            LONG, "# Checks\n\n" + "Check the engine oil before the first crossing. " * 30
        ),
        document_from_text("short.md", "# Short\n\n" + "The ramp is lowered at the quay. " * 30),
    ]
    corpus = join_documents(files)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["uploaded"] = (text_key(corpus.text), corpus)
    at.run()
    at.selectbox(key="doc").set_value("upload").run()
    at.text_input(key="q").set_value("When is the engine oil checked?").run()
    assert not at.exception, at.exception
    shown = list(table_with(at, "characters")["file"])
    cut = elide_middle(LONG, PATH_CHARS)
    assert cut in shown and LONG not in shown and cut.endswith("/checks.md") and "…" in cut
    opened = next(h.proto.body for h in at.get("html") if "sv-open-file" in h.proto.body)
    assert f'title="{html.escape(LONG, quote=True)}"' in opened  # the whole path on hover
    assert "<b>operations" not in opened  # escaped


def test_presenter_mode_shows_what_was_loaded_as_a_large_table(hash_model):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["present"] = "true"
    at.query_params["doc"] = "kestrel"
    at.run()
    at.text_input(key="q").set_value("").run()
    assert not at.exception, at.exception
    table = next(h.proto.body for h in at.get("html") if "<th>characters</th>" in h.proto.body)
    assert "<th>retrieved</th>" not in table
    assert all(html.escape(p.path) in table for p in samples.load_sample("kestrel").parts)
    assert not [b for b in at.get("button_group") if b.key == keys.CORPUS_PICK]  # no hits yet


def test_presenter_mode_shows_each_whole_path_on_hover(hash_model):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params["present"] = "true"
    at.query_params["doc"] = "kestrel"
    at.run()
    assert not at.exception, at.exception
    table = next(h.proto.body for h in at.get("html") if "<th>fragmented</th>" in h.proto.body)
    corpus = samples.load_sample("kestrel")
    for part in corpus.parts:
        assert f'title="{html.escape(part.path, quote=True)}"' in table


def test_a_labelled_questions_gold_is_marked_in_the_overview_hits_and_context(at):
    doc = samples.load_sample()
    question = at.text_input(key="q").value
    labelled = labelled_query(parse_queries(samples.sample_queries_text(), doc).queries, question)
    gold = gold_chunks(labelled, doc, chunk_document(doc, ChunkingConfig()))
    assert gold  # the sample's first example question is labelled
    at.slider(key=keys.K).set_value(20).run()  # enough hits to hold some of the gold
    assert not at.exception, at.exception
    assert any(
        f"Gold evidence of this labelled question: {chunk_list(gold)}" in c.value
        for c in at.caption
    )
    # the overview: a gold band under each gold chunk
    base = next(c for c in at.get("plotly_chart") if c.key == keys.OVERVIEW)
    bands = [s for s in json.loads(base.proto.spec)["layout"]["shapes"] if s.get("name") == "gold"]
    assert sorted(b["x0"] + 0.5 for b in bands) == list(gold)
    # the hits: ★ exactly on the gold ones
    hits = _hits(at)
    assert [c in gold for c in hits["chunk"]] == [g == "★" for g in hits["gold"]]
    assert (hits["gold"] == "★").any()
    # the context: each gold chunk outlined where it is sent, named where it is missed
    context = next(h.proto.body for h in at.get("html") if "sv-ctx" in h.proto.body)
    sent = {int(m) for m in re.findall(r'<div class="sv-head">chunk (\d+) ·', context)}
    marked = {int(m) for m in re.findall(r"chunk (\d+) · [^<]*★ gold evidence", context)}
    assert marked == set(gold) & sent
    missed = re.findall(r"gold evidence not in this context: ([^<]*)</div>", context)
    assert missed == ([chunk_list(set(gold) - sent)] if set(gold) - sent else [])
    # an unlabelled question marks nothing
    at.text_input(key="q").set_value("Where are the life jackets kept?").run()
    assert "gold" not in _hits(at).columns
    assert not any("Gold evidence" in c.value for c in at.caption)


def _hits(at: AppTest):
    return table_with(at, "dense rank")


def test_switching_the_retriever_changes_the_retrieved_chunks(at):
    dense = _hits(at)
    assert list(dense["dense rank"]) == list(range(1, len(dense) + 1))
    assert "BM25 rank" in dense.columns and "retriever" not in at.query_params
    at.selectbox(key=keys.RETRIEVER).set_value("bm25").run()
    assert not at.exception
    bm25 = _hits(at)
    assert list(bm25["BM25 rank"]) == list(range(1, len(bm25) + 1))
    assert list(bm25["chunk"]) != list(dense["chunk"])
    assert at.query_params["retriever"] in ("bm25", ["bm25"])
    assert int(metric(at, "Retrieved")) == DEFAULT_K
    at.selectbox(key=keys.RETRIEVER).set_value("hybrid").run()
    assert not at.exception
    assert at.number_input(key=keys.RRF_K).value == 60
    hybrid = _hits(at)
    # RRF of the two rankings, as the table shows them (ties to the lower index)
    fused = 1 / (60 + hybrid["dense rank"]) + 1 / (60 + hybrid["BM25 rank"])
    assert list(fused) == sorted(fused, reverse=True)
