"""Streamlit glue shared by the pages (state, sidebar, caches, alerts, components).

Importing it switches the model hubs off for this process, before any page can import a model
library (``transformers`` and ``huggingface_hub`` read these switches once, when imported):
whichever way the app was started (``scripts/serve.py``, ``scripts/run.sh``, a bare
``streamlit run app.py``, a first visitor on a deep link), a model a visitor names loads from
this machine or not at all, and the server never downloads one.
"""

import os

OFFLINE_ENV = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")
"""The switches set to "1", whatever the operator's environment held."""

for _name in OFFLINE_ENV:
    os.environ[_name] = "1"
