"""Heavy work ends with the visitor's run: the ``should_stop`` this app hands to the package's
long loops (:mod:`scar_viz.runtime.cancel`), and what a run does when one of them stopped.

A run should stop when its session ended (the browser closed: the server drops the session
from its active ones and asks its script to stop) or when a newer run superseded it (the
visitor moved a widget: Streamlit queued a rerun). Streamlit interrupts a script only at its
next ``st`` call; work in the package, or on a worker thread, never makes one, so without this
check a closed tab left its evaluation or its chat calls running to the end.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from scar_viz.runtime.cancel import ShouldStop


def _never() -> bool:
    return False


def stop_check() -> ShouldStop:
    """A ``should_stop`` for this run, safe to call from any thread: True once the session
    is no longer active, or a stop or a full rerun was requested for it. Outside a server
    (tests, bare mode) it never says stop."""
    ctx = get_script_run_ctx()
    requests = getattr(ctx, "script_requests", None)
    if ctx is None or requests is None:
        return _never
    session_id = ctx.session_id

    def should_stop() -> bool:
        if Runtime.exists() and not Runtime.instance().is_active_session(session_id):
            return True
        # ScriptRequests has no public reader of its state; the names are Streamlit 1.67's
        state = getattr(getattr(requests, "_state", None), "value", "CONTINUE")
        if state == "STOP":
            return True
        if state != "RERUN":
            return False
        data = getattr(requests, "_rerun_data", None)
        # a rerun of a fragment alone does not preempt this run (Streamlit's own rule)
        fragment_only = bool(getattr(data, "fragment_id_queue", None)) and not getattr(
            data, "is_fragment_scoped_rerun", False
        )
        return not fragment_only

    return should_stop


def end_stopped_run() -> None:
    """After a stopped loop: let Streamlit act on the request that stopped it (a new element
    is where it checks, and raises its own stop or rerun); if none is pending, the run ends
    here quietly."""
    st.empty()
    st.stop()
