"""scar-viz: the entry point declares the pages; nothing heavy happens here."""

import streamlit as st

st.set_page_config(page_title="scar-viz", page_icon=":material/join_inner:", layout="wide")

pages = [
    st.Page(
        "pages/explorer.py",
        title="Explorer",
        icon=":material/travel_explore:",
        url_path="explorer",
        default=True,
    ),
    st.Page(
        "pages/compare.py", title="Compare policies", icon=":material/balance:", url_path="compare"
    ),
    st.Page(
        "pages/chunking.py",
        title="Chunking lab",
        icon=":material/content_cut:",
        url_path="chunking",
    ),
    st.Page(
        "pages/evaluate.py",
        title="Evaluation lab",
        icon=":material/monitoring:",
        url_path="evaluate",
    ),
    st.Page("pages/answers.py", title="Answers (LLM)", icon=":material/forum:", url_path="answers"),
    st.Page("pages/learn.py", title="Learn", icon=":material/school:", url_path="learn"),
]
st.navigation(pages).run()
