"""Every ``st.session_state`` key of the app, named once: widget keys and the values pages keep.

A widget's key is also its URL parameter when the widget is bound (``bind=URL``) and its name
in a saved session file (:data:`scar_viz.views.session.SETTING_KEYS`), so a value here must
not change: a shared link would lose the setting. Code names the key (``keys.DOC``); only this
module spells it. ``tests/pages/test_ui_keys.py`` checks that ``ui/`` and ``pages/`` write no
key as a literal string, and that no two names here share a value.

Keys that start with ``_`` are the app's own bookkeeping (no widget draws them). The widget
keys of a settings dataclass (QASC's, Compare's policy knobs) are declared with its fields
(:func:`scar_viz.common.knobs.knob`); :data:`KNOB_KEYS` lists them.
"""

from __future__ import annotations

from scar_viz.chunking.qasc import QascParams
from scar_viz.common.knobs import knob_fields
from scar_viz.views.compare_settings import CompareSettings

# --- the sidebar: document, chunking, embedding model, LLM, presenter, sharing ---------------
DOC = "doc"
"""The document picked: a built-in sample's id, ``UPLOAD`` or an index (``ui.store_open``)."""
UPLOAD_FILE = "upload_file"
UPLOAD_SEEN = "_upload_seen"
"""The uploader's file names at its last change (to tell one added file from a batch)."""
"""The uploader: one file, several, or a zip (a list of uploaded files)."""
UPLOAD_ERROR = "upload_error"
UPLOADED = "uploaded"
"""(content digest, Document) of the uploaded (or restored) document or corpus."""
UPLOAD_SKIPPED = "_upload_skipped"
"""(summary lines, ((path, reason), …)) of the files the last upload left out."""
STORE_PATH = "store_path"
"""Open an index: the folder typed, relative to the operator's index root (never bound)."""
STORE_OPENED = "_store_opened"
"""The resolved folder of the index this run opens, or None."""
CHUNKER = "chunker"
SIZE = "size"
OVERLAP = "overlap"
PERCENTILE = "cpct"
PREPEND = "prepend"
RETRIEVER = "retriever"
RRF_K = "rrf_k"
MODEL = "model"
ST_MODEL = "st_model"
QUERY_PROMPT = "query_prompt"
DOC_PROMPT = "doc_prompt"
OPENAI_MODEL = "openai_model"
BASE_URL = "base_url"
API_KEY_INPUT = "api_key_input"
"""The embeddings endpoint's API key field: never bound, never saved."""
LLM_MODEL = "llm_model"
LLM_URL = "llm_url"
LLM_KEY_INPUT = "llm_key_input"
"""The chat endpoint's API key field: never bound, never saved."""
OWN_ENDPOINTS = "_own_endpoints"
"""{endpoint field: the values this visitor typed or confirmed} (``ui.consent``)."""
ENDPOINT_ORIGIN = "_endpoint_origin"
"""{endpoint field: "session file"} for the fields a restored session file set."""
ENCODED_NOW = "encoded_now"
ENCODED_SECONDS = "encoded_seconds"
PRESENT = "present"
PRESENT_KEPT = "_present_kept"
"""Presenter mode as the user or the address last set it (put back after a page switch)."""
SESSION_FILE = "session_file"
SESSION_ERROR = "session_error"
SESSION_NOTE = "_session_note"
"""What the last restored session file could not set (values out of range), or ""."""
SAVE_SESSION = "save_session"
IMG_FMT = "img_fmt"
SET_BY_CODE = "_set_by_code"
"""Widget keys set from code whose widget has not been drawn since (``ui.state.set_widget``)."""

# --- the question and the gate (Explorer, Compare, the Evaluation lab) -----------------------
Q = "q"
EXAMPLE = "example"
STARTER = "starter"
Q_DOC = "_q_doc"
"""The document the question box last followed (a new document gets its own question)."""
K = "k"
R = "r"
LAM = "lam"
TAU = "tau"
MU = "mu"
"""SCAR's lexical weight μ (this project's extension, docs/method.md §8; 0 is the paper's gate)."""
GATE_PANEL = "gate_panel"
PANEL_SENT = "_panel_sent"
PANEL_SHOWS = "_panel_shows"
OVERVIEW = "overview"
OVERVIEW_MARKS = "overview_marks"
FOCUS = "focus"
"""The chunk clicked in the overview (or picked in the hits list)."""
HITS_OPEN = "hits_open"
HITS_TABLE = "hits_table"
HITS_PICK = "hits_pick"
"""Presenter mode's focus buttons under the hits table."""
CORPUS_TABLE = "corpus_table"
"""The corpus view's table of files (a click on a row focuses that file's best chunk)."""
CORPUS_PICK = "corpus_pick"
"""Presenter mode's buttons under the corpus table (one per file shown: its best chunk)."""
CORPUS_CHART = "corpus_chart"
"""The corpus view's small multiples (a click on a cell or a mark focuses that chunk)."""

# --- the learned gate (Fit a gate, Explorer, Compare) ----------------------------------------
GATE_JSON = "learned_gate_json"
"""The session's gate as JSON text (never a URL or a cache key)."""
GATE_APPLIED = "gate_applied"
"""The content hash of the gate *Apply* set (the verdict's), so every page names it alike."""
GATE_LINK = "gate"
"""The address parameter naming the session's gate by its content hash
(:mod:`scar_viz.views.gate_link`): a link opened elsewhere finds the same gate on the server."""
P = "p"
P_KEPT = "learned_p"
"""The last p chosen, kept across pages (the slider's own key is :data:`P`)."""
GATE_FILE = "gate_file"
GATE_FILE_ERROR = "gate_file_error"

# --- the query sets -------------------------------------------------------------------------
QUERY_SETS = "qsets"
"""{document digest: {source: (name, stored set)}}, see :mod:`ui.queryset`."""
QS_PICK = "qs_pick"
"""The active query-set source."""
QS_FILE = "qs_file"
QS_REFUSED = "_qs_refused"
"""Why the last query file was not kept (this session's budget of bytes held), or empty."""
QS_DOC_TEXT = "_qs_doc_text"
FORMAT_HELP = "fmt"

# --- Explorer --------------------------------------------------------------------------------
POLICY = "policy"
PLANE_CHART_ON = "plane_chart_on"
PLANE_CHART = "plane_chart"
SUMMARY_TABLE = "summary_table"
WHY_PICK = "why_pick"
WHY_LEARNED = "why_learned"
WHY_CHART = "why_chart"
WHY_TABLE = "why_table"
DECISION_TABLE = "decision_table"
DL_DECISIONS = "dl_decisions"
LAB_TEXT = "lab_text"
LAB_CHUNKS = "lab_chunks"
LAB_ADD = "lab_add"
LAB_DL = "lab_dl"
LLM_ANSWER = "llm_answer"
ANSWER_TABLE = "answer_table"

# --- Compare (its policy knobs' keys are in CompareSettings) ---------------------------------
CMP_VIEW = "cmp_view"
CMP_STRIPS = "cmp_strips"
CMP_TABLE = "cmp_table"
CMP_PASSAGE = "cmp_passage"
CMP_LABEL = "cmp_label"
CMP_LABEL_ERROR = "cmp_label_error"
CMP_WHY = "why"
CMP_SENTENCES = "cmp_sent"
"""Compare runs the sentence policies (QASC, qasc-hybrid, sentence window)."""
VS = "vs"
QASC_WINDOWS = "qasc_windows"

# --- Chunking lab ----------------------------------------------------------------------------
CHUNKER_B = "cb"
CHUNK_QUERIES = "cqs"
UNITS = "cu"
TYPE_TABLE = "ctypes"
JUMP = "cjump"
PASSAGE_START = "cpos"
BOUNDARY_MAP = "cmap"
CHUNK_TABLE = "ctable"
LAB_FILE = "cfile"
"""The Chunking lab's file (a corpus): its document view and boundary map show that file."""
LAB_SEMANTIC = "lab_semantic"
"""The button that adds the chunkers needing the model (semantic) to the statistics table."""
LAB_SEMANTIC_ON = "lab_semantic_on"
"""{document key} whose statistics table includes them (asked for with the button)."""
SHORTEST = "cshort"
CURVE_CHUNKERS = "cc"
CURVES = "ccurves"
HEATMAP = "cheat"

# --- Evaluate, Budget, Sweep, Transfer (the Evaluation lab) ----------------------------------
POLICIES = "pol"
LAB_SENTENCES = "pol_sent"
"""The lab's policy list offers the sentence policies."""
VERDICT_REF_K = "vref"
"""The k of the verdict's reference, window ±1 under dense retrieval."""
VERDICT_BUDGET = "vbudget"
"""The verdict's token budget (0: the reference's mean tokens)."""
VERDICT_TABLE = "verdict_table"
VERDICT_CHART = "verdict_chart"
VERDICT_APPLY = "verdict_apply"
VERDICT_DL = "verdict_dl"
VERDICT_RUN = "verdict_run"
"""The button that starts a verdict on a large query set (it waits for it)."""
METRICS_TABLE = "metrics_table"
BY_FILE_TABLE = "by_file_table"
"""The Evaluation lab's per-file breakdown on a corpus."""
DL_JSON = "dl_json"
PQ_POL = "pq_pol"
PER_QUERY_TABLE = "per_query_table"
DL_PER_QUERY = "dl_per_query"
MISS_REASONS = "miss_reasons"
SIG_TABLE = "sig_table"
BUD_POLS = "bud_pols"
BUD_PRESET = "bud_preset"
BUD_LOG = "bud_log"
BUD_SENTENCES = "bud_sent"
BUD_EVERY = "bud_every"
"""Equal budget on every question of a set larger than its sample (off: a spread sample)."""
BUDGET_CHART = "budget_chart"
BUDGET_TABLE = "budget_table"
BUDGET_CSV = "budget_csv"
BUD_BY_FILE_K = "bud_by_file_k"
"""The k whose per-file breakdown Equal budget shows on a corpus."""
BUD_BY_FILE = "bud_by_file"
FLOOR = "floor"
PARETO_CHART = "pareto_chart"
FRONT = "front"
SWEEP_BY_FILE_AT = "sweep_by_file_at"
"""Which SCAR setting the sweep's per-file breakdown shows: the best mark or the sliders."""
SWEEP_BY_FILE = "sweep_by_file"
CHECK_ON = "chk"
OBJECTIVE = "obj"
SWEEP_TABS = "sweep_tab"
TRANSFER_TABS = "transfer_tab"
"""Model transfer's open tab, so a widget changed in the second tab reruns on that tab."""
CHK_FILE = "chk_file"
CHK_DATA = "chk_data"
CHK_DOC_FILE = "chk_doc_file"
CHK_DOC = "chk_doc"
CHK_DOC_ERROR = "chk_doc_error"
TWO_SETS_TABLE = "two_sets_table"
HEAT_CHECK = "heat_check"
MODEL_2 = "m2"
MODEL_2_URL = "m2url"
EV_CHUNKER2 = "ev_chunker2"
TRANSFER_TABLE = "transfer_table"
SCALES_CHART = "scales_chart"
BAR_TABLE = "bar_table"
BAR_CHART = "bar_chart"
CHUNKER_TABLE = "chunker_table"
TRANSFER_BY_FILE = "transfer_by_file"
CHUNKER_BY_FILE = "chunker_by_file"

# --- Fit a gate ------------------------------------------------------------------------------
FG_L2 = "fg_l2"
FIT_ON = "fit_on"
FG_FEATURES = "fg_features"
"""Fit a gate: the feature set (base or lexical)."""
FG_WEIGHTS = "fg_weights"
FG_WEIGHTS_TABLE = "fg_weights_table"
FG_IN_USE_TABLE = "fg_in_use_table"
"""Fit a gate: the weights of the gate in use when it is not the one fitted on the page (the
verdict's, after *Apply*)."""
FG_CHART = "fg_chart"
FG_TRACE = "_fg_trace"
FG_POINT = "fg_point"
FG_HALVES = "fg_halves"
FG_BY_FILE = "fg_by_file"
FG_USE = "fg_use"
FG_DOWNLOAD = "fg_download"
FG_DEFAULT = "fg_default"
K_FIX = "k_fix"
"""The button that sets k to the learned gate's fitted k (shown only when k changes a decision)."""

# --- Answers (LLM) ---------------------------------------------------------------------------
GEN_N = "gen_n"
GEN_SHARE = "gen_share"
GEN_SEED = "gen_seed"
GEN_RUN = "gen_run"
GENERATED = "llm_generated"
"""{document digest: (chunking label, GeneratedSet)}."""
GEN_REPORT = "gen_report"
GEN_KEPT = "gen_kept"
GEN_DROPS = "gen_drops"
GEN_DOWNLOAD = "gen_download"
GEN_LOAD = "gen_load"
ANS_POLICIES = "ans_policies"
ANS_JUDGE = "ans_judge"
ANS_NQ = "ans_nq"
ANS_RUN = "ans_run"
ANSWER_CHECK = "llm_check"
"""(settings key, AnswerCheck) of the last answer check."""
ANS_SUMMARY = "ans_summary"
ANS_SIGNIFICANCE = "ans_significance"
ANS_BY_FILE = "ans_by_file"
ANS_UNPARSEABLE = "ans_unparseable"
ANS_QUERY = "ans_query"
ANS_SIDE = "ans_side"
ANS_CLAIMS = "ans_claims"
ANS_DOWNLOAD = "ans_download"

# --- the lesson (Learn) ----------------------------------------------------------------------
L_DOC = "l_doc"
L_LAM = "l_lam"
L_TAU = "l_tau"
L_CAND = "l_cand"
L_ROUND = "l_round"
L_ALPHA = "l_alpha"
L_BETA = "l_beta"
L_SCALE_TABLE = "l_scale_table"
L_ANSWERS = "l_answers"
"""(content key of the rounds, Answers)."""


# --- keys made from a name (one widget per item) ---------------------------------------------
def last_choice(key: str) -> str:
    """This session's last choice in the select ``key`` (``ui.named_select.named_select``)."""
    return f"_last_{key}"


def endpoint_answer(slot: str, place: str, answer: str) -> str:
    """A proposal's *Use it* / *Don't use it* button (``ui.consent``): its endpoint, where the
    box is drawn (the sidebar, a page) and the answer."""
    return f"endpoint_{slot}_{place}_{answer}"


def preset(name: str) -> str:
    """The button of the gate preset ``name``."""
    return f"preset_{name.lower()}"


def query_source(source: str) -> str:
    """The query-set source radio, drawn afresh (a key per pick) when ``source`` changes."""
    return f"qs_source_{source}"


def template_download(prefix: str) -> str:
    return f"{prefix}_template"


def example_download(prefix: str) -> str:
    return f"{prefix}_example"


def issues_table(set_name: str) -> str:
    return f"issues_{set_name}"


def heatmap(field: str) -> str:
    """The sweep's heatmap of ``field``."""
    return f"heat_{field}"


def guess(round_: int, chunk: int) -> str:
    """The lesson's checkbox: is ``chunk`` in round ``round_``'s context?"""
    return f"guess_{round_}_{chunk}"


def reveal(round_: int) -> str:
    return f"reveal_btn_{round_}"


def lesson_plane(round_: int) -> str:
    return f"l_plane_{round_}"


KNOB_KEYS: tuple[str, ...] = tuple(
    k.key for cls in (QascParams, CompareSettings) for _, k in knob_fields(cls) if k.key
)
"""Widget keys declared with settings dataclasses' fields (also URL parameters)."""
