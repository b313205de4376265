"""scar-viz: the entry point declares the pages; nothing heavy happens here."""

import streamlit as st

st.set_page_config(page_title="scar-viz", page_icon="🧩", layout="wide")

pages = [
    st.Page("pages/explorer.py", title="Explorer", icon="🔎", url_path="explorer", default=True),
    st.Page("pages/compare.py", title="Compare policies", icon="⚖️", url_path="compare"),
    st.Page("pages/chunking.py", title="Chunking lab", icon="✂️", url_path="chunking"),
    st.Page("pages/evaluate.py", title="Evaluation lab", icon="📊", url_path="evaluate"),
    st.Page("pages/learn.py", title="Learn", icon="🎓", url_path="learn"),
]
st.navigation(pages).run()
