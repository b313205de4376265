"""scar-viz: the entry point declares the pages in sections; nothing heavy happens here."""

from pathlib import Path

import streamlit as st

from scar_viz.runtime.cancel import Cancelled
from ui.alerts import alert
from ui.cancel import end_stopped_run
from ui.heap import freeze_long_lived, start_reaping
from ui.state import check_address

# a local file: a material icon name makes the browser fetch the favicon from a font CDN
FAVICON = Path(__file__).with_name("static") / "favicon.png"
st.set_page_config(page_title="scar-viz", page_icon=str(FAVICON), layout="wide")
if notice := check_address():  # before any slider reads the address
    alert(notice, "warning")

pages = {
    "Explore": [
        st.Page(
            "pages/explorer.py",
            title="Explorer",
            icon=":material/travel_explore:",
            url_path="explorer",
            default=True,
        ),
        st.Page(
            "pages/compare.py",
            title="Compare policies",
            icon=":material/balance:",
            url_path="compare",
        ),
        st.Page(
            "pages/chunking.py",
            title="Chunking lab",
            icon=":material/content_cut:",
            url_path="chunking",
        ),
    ],
    "Evaluation lab": [
        st.Page(
            "pages/evaluate.py",
            title="Evaluation lab",
            icon=":material/monitoring:",
            url_path="evaluate",
        ),
        st.Page("pages/sweep.py", title="λ×τ sweep", icon=":material/grid_on:", url_path="sweep"),
        st.Page(
            "pages/transfer.py",
            title="Model transfer",
            icon=":material/swap_horiz:",
            url_path="transfer",
        ),
        st.Page(
            "pages/budget.py", title="Equal budget", icon=":material/savings:", url_path="budget"
        ),
        st.Page(
            "pages/fit_gate.py", title="Fit a gate", icon=":material/tune:", url_path="fit-gate"
        ),
        st.Page(
            "pages/answers.py", title="Answers (LLM)", icon=":material/forum:", url_path="answers"
        ),
    ],
    "Learn": [
        st.Page("pages/learn.py", title="Learn", icon=":material/school:", url_path="learn"),
    ],
}
start_reaping()
try:
    st.navigation(pages).run()
except Cancelled:  # heavy work stopped: the session ended, or a newer run superseded this one
    end_stopped_run()
finally:  # a page may end its run with st.stop() or st.rerun()
    freeze_long_lived()
