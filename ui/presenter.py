"""Presenter mode (``?present=true``): large type, high contrast, the charts first."""

from __future__ import annotations

import html

import plotly.graph_objects as go
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from scar_viz.charts import at_least
from ui import keys
from ui.state import URL

MIN_PX = 18
"""The smallest text presenter mode shows (the back row of a room, a 1080p projector)."""
SIDEBAR_PX = 500
"""The sidebar's width in presenter mode: its longest select option fits at 22 px type."""

PRESENTER_CHART_PX = MIN_PX + 2
"""The base font of a chart drawn for presenter mode (its smallest text, 2 px under it, is
:data:`MIN_PX`: labels placed for that size are drawn at it)."""
PRESENTER_PLANE_PX = 960
"""The lesson's decision plane in presenter mode: half a 1920 px screen, three quarters of a
1280 px one (labels are placed for a fixed width: ``scar_viz.charts.plane``)."""

COLUMN_PX = 420
"""Columns narrower than this wrap onto the next line in presenter mode (no cut-off value)."""


CHART_GREY_PRESENTED = "#3d3f4b"
"""What presenter mode draws the grey of Streamlit's plotly theme in (its tick labels and axis
titles, ``rgb(128, 132, 149)``: 3.7:1 on white) instead: 10.6:1."""


DISABLED_TEXT = "#4b4d57"
"""A disabled widget's text in presenter mode (a revealed Learn round's boxes, a knob another
one switched off): Streamlit fades it to 2.3:1; this is 8.4:1, the box itself stays grey."""


def _chart_text_rules() -> str:
    """Plotly writes each text's size inline (``font-size: 12px``): lift every size under
    :data:`MIN_PX` to it (an ``!important`` rule beats an inline style)."""
    sizes = [f"{n}px" for n in range(1, 10)] + [f"{n}." for n in range(1, 10)]
    sizes += [str(n) for n in range(10, MIN_PX)]
    selectors = ",\n".join(f'.js-plotly-plot text[style*="font-size: {size}"]' for size in sizes)
    return f"{selectors} {{ font-size: {MIN_PX}px !important; }}"


PRESENTER_CSS = f"""<style>
html, body, [data-testid="stAppViewContainer"] {{ font-size: 22px; }}
[data-testid="stAppViewContainer"] {{ background: #ffffff; color: #000000; }}
footer {{ display: none; }}
[data-testid="stHeader"] {{ background: transparent; pointer-events: none; }}
[data-testid="stExpandSidebarButton"] {{ pointer-events: auto; }}
h1 {{ font-size: 2.6rem !important; }} h2, h3 {{ font-size: 1.9rem !important; }}
[data-testid="stMetricValue"] {{ font-size: 2.4rem !important; color: #000; }}
[data-testid="stCaptionContainer"] {{ color: #111 !important; font-size: 1rem; }}
.block-container {{ padding: 1rem 1.2rem 2rem !important; max-width: 100% !important; }}
[data-testid="stAppViewContainer"] :is(p, span, div, label, li, td, th, code, small, button,
  a, input, textarea, summary, pre) {{ font-size: max({MIN_PX}px, 1em); }}
[data-testid="stSidebar"][data-collapsed="false"] {{
  width: {SIDEBAR_PX}px !important; min-width: {SIDEBAR_PX}px !important;
}}
[data-testid="stMain"] [data-testid="stHorizontalBlock"] {{ flex-wrap: wrap; }}
[data-testid="stMain"] [data-testid="stColumn"] {{ min-width: min(100%, {COLUMN_PX}px); }}
[data-testid="stMain"] :is([data-testid="stWidgetLabel"], [data-testid="stMetricLabel"]) * {{
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important;
}}
[data-testid="stSidebar"] input {{ font-size: {MIN_PX}px !important; }}
[data-testid="stHtml"] :is(div, span, p, b, i, mark) {{
  font-size: max({MIN_PX}px, 1em) !important;
}}
[data-testid="stAppViewContainer"] .katex {{ font-size: 1.9em !important; }}
{_chart_text_rules()}
[data-testid="stMain"] :is([data-testid="stWidgetLabel"][disabled],
  [data-testid="stSliderThumbValue"][disabled], label:has(input:disabled), button:disabled)
  :is(p, span, div) {{
  color: {DISABLED_TEXT} !important;
}}
[data-testid="stMain"] code {{ color: #000 !important; background: #eef1f5 !important; }}
.js-plotly-plot text[style*="fill: rgb(128, 132, 149)"] {{
  fill: {CHART_GREY_PRESENTED} !important;
}}
</style>"""


_CLOSE_SIDEBAR = """<script>
(() => {
  // presenter mode: the sidebar opened to change page closes on the page it led to (%s)
  const bar = document.querySelector('[data-testid="stSidebar"]');
  if (!bar || bar.getAttribute("data-collapsed") !== "false") return;
  const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
  if (close) close.click();
})();
</script>"""


def _close_sidebar_on_arrival() -> None:
    """Close the sidebar once on each page presenter mode arrives at: Streamlit applies
    ``initial_sidebar_state`` only when its value changes, so a sidebar the teacher opened to
    change page stayed open on every next page (500 px of a 1280 px screen). The script is
    keyed by the page, so it runs once per arrival: opened again on the same page, the sidebar
    stays open through that page's reruns."""
    ctx = get_script_run_ctx()
    page = ctx.page_script_hash if ctx is not None else ""
    st.sidebar.html(_CLOSE_SIDEBAR % html.escape(page), unsafe_allow_javascript=True)


def _keep_choice() -> None:
    st.session_state[keys.PRESENT_KEPT] = bool(st.session_state.get(keys.PRESENT, False))


def presenter_toggle() -> bool:
    """The sidebar's presenter toggle; applies the presenter CSS when on.

    A value seeded from ``?present=true`` can be dropped by the first page switch (the new
    page's address starts empty), so the last choice is kept apart and put back; only the
    user turning the toggle off ends presenter mode. Set in session state, the bound toggle
    writes ``present=true`` back into the new page's address.
    """
    if st.session_state.get(keys.PRESENT_KEPT) and keys.PRESENT not in st.query_params:
        st.session_state[keys.PRESENT] = True
        st.query_params[keys.PRESENT] = "true"
    on = st.sidebar.toggle(
        "Presenter mode",
        False,
        key=keys.PRESENT,
        bind=URL,
        help="Large type and high-contrast colours for a projector; the strip "
        "and the decision plane come first. Shareable: ?present=true",
        on_change=_keep_choice,
    )
    # collapsed while presenting, so the charts get the width (the chevron opens it again,
    # and the browser then remembers that choice); "auto" puts it back when presenting ends
    st.set_page_config(initial_sidebar_state="collapsed" if on else "auto")
    if on:
        st.session_state[keys.PRESENT_KEPT] = True
        st.sidebar.html(PRESENTER_CSS)
        _close_sidebar_on_arrival()
    return bool(on)


def presenter_fonts(fig: go.Figure) -> go.Figure:
    """``fig`` with its text at :data:`MIN_PX` or more in presenter mode (set in the figure,
    so plotly makes room for it), else as it is."""
    return at_least(fig, MIN_PX + 2) if presenting() else fig


def presenting() -> bool:
    """Whether this session is in presenter mode."""
    return bool(st.session_state.get(keys.PRESENT, False))
