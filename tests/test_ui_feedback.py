"""ui.alerts' one way an error reaches the user (attempt, or_stop), with_progress, and
ui.share's download and pickable_chart, under AppTest."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.pages.helpers import alerts


def _script():
    import streamlit as st

    from scar_viz.common.errors import SettingsError
    from ui.alerts import attempt, or_stop, with_progress

    def fails():
        raise SettingsError("k must be <b>positive</b>.")

    seen = []

    def counted(update):
        for i in range(3):
            update(i + 1, 3)
            seen.append(i)
        return "done"

    st.write(f"progress={with_progress('Working …', counted)} after {len(seen)}")
    st.write(f"attempt ok={attempt(lambda: 41 + 1)}")
    st.write(f"attempt failed={attempt(fails, 'Fitting failed:', 'Nothing was lost.', 'warning')}")
    value = or_stop(lambda: 7)
    st.write(f"or_stop ok={value}")
    if st.session_state.get("stop_here", False):
        or_stop(fails, "Cannot go on:")
    st.write("reached the end")


def test_attempt_or_stop_and_progress():
    at = AppTest.from_function(_script, default_timeout=60).run()
    assert not at.exception
    texts = [m.value for m in at.markdown]
    assert "progress=done after 3" in texts and "attempt ok=42" in texts
    assert "attempt failed=None" in texts and "or_stop ok=7" in texts
    assert "reached the end" in texts
    # the failed attempt: one warning, in the order failed, error, kept, with the markup escaped
    assert alerts(at, "warning") == ["Fitting failed: k must be <b>positive</b>. Nothing was lost."]
    assert not alerts(at, "error")
    bodies = " ".join(e.proto.body for e in at.get("html"))
    assert "&lt;b&gt;positive" in bodies and "<b>positive" not in bodies
    at.session_state["stop_here"] = True
    at.run()
    assert not at.exception
    texts = [m.value for m in at.markdown]
    assert "reached the end" not in texts  # the page stopped at or_stop
    assert alerts(at, "error") == ["Cannot go on: k must be <b>positive</b>."]


def _downloads():
    import plotly.graph_objects as go
    import streamlit as st

    from ui.share import download, pickable_chart

    download("Rows (CSV)", "a,b\n1,2\n", "rows.csv", key="dl_csv")
    col, _ = st.columns(2)
    download("Set (JSON Lines)", lambda: '{"id": 1}\n', "set.jsonl", key="dl_jsonl", where=col)

    def picked():
        st.session_state["picked"] = True

    pickable_chart(go.Figure(go.Scatter(x=[1], y=[2])), "chart", picked, "test")


def test_download_infers_the_type_and_pickable_chart_mounts():
    at = AppTest.from_function(_downloads, default_timeout=60).run()
    assert not at.exception
    buttons = {b.proto.label: b.proto for b in at.get("download_button")}
    assert set(buttons) == {"Rows (CSV)", "Set (JSON Lines)"}
    assert buttons["Rows (CSV)"].url.endswith(".csv")  # the type came from the file ending
    assert buttons["Set (JSON Lines)"].deferred_file_id  # a function: made on the click only
    for proto in buttons.values():
        assert proto.icon == ":material/download:" and proto.ignore_rerun
    charts = at.get("plotly_chart")
    assert len(charts) == 1 and "scar-viz-test" in charts[0].proto.spec + charts[0].proto.config


def test_time_left_follows_the_pace_so_far():
    from ui.alerts import time_left

    assert time_left(0, 28, 5.0) == ""  # nothing done yet: no pace
    assert time_left(7, 28, 3.5) == ", about 10 s left"  # 0.5 s a step, 21 steps left
    assert time_left(1, 100, 2.0) == ", about 3 min left"
    assert time_left(27, 28, 27.0) == ", about 1 s left"
    assert time_left(28, 28, 30.0) == "" and time_left(10, 28, 0.1) == ""


def test_the_embedding_bar_says_the_time_left_at_its_own_pace():
    from ui.loading import embedding_text

    assert embedding_text(0, 1152, "MiniLM", 0.0) == "Embedding chunks: 0/1152 (MiniLM)"
    line = embedding_text(378, 1152, "MiniLM", 60.0)  # 6.3 chunks a second so far
    assert line.startswith("Embedding chunks: 378/1152 (MiniLM)")
    assert line.endswith(", about 2 min left")  # 774 left at that pace: 123 s
    assert embedding_text(1100, 1152, "MiniLM", 100.0).endswith(", about 5 s left")
