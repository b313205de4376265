"""scar-viz: the entry point declares the pages; nothing heavy happens here."""

import streamlit as st

st.set_page_config(page_title="scar-viz", page_icon="🧩", layout="wide")

pages = [
    st.Page("pages/explorer.py", title="Explorer", icon="🔎", url_path="explorer", default=True),
]
st.navigation(pages).run()
