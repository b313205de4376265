"""The gate panel's Python side (ui/gate_panel.py) under AppTest: mounts, and a release is
copied into the page's λ and τ. The browser side is tested in tests/browser/test_gate_panel.py."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _mount():
    import numpy as np
    import streamlit as st

    from scar_viz.chunking.base import Chunk
    from scar_viz.common.edges import one_file
    from scar_viz.scoring.params import GateParams
    from scar_viz.scoring.scar import normalize
    from scar_viz.views.focus import gate_payload
    from ui.gate_panel import copy_release_to, gate_panel

    rng = np.random.default_rng(0)
    unit = normalize(rng.normal(size=(12, 6)))
    sims = unit @ normalize(rng.normal(size=6))
    chunks = [Chunk(i, i * 10, i * 10 + 10, f"text {i} <b>x</b>") for i in range(12)]
    params = GateParams(k=3, lam=0.5, tau=0.1, radius=1)
    payload = gate_payload(chunks, sims, unit, params, doc_of=one_file(len(chunks)))
    released = gate_panel(payload, key="panel", on_release=copy_release_to("panel"))
    st.write(f"released={released}")


def test_panel_mounts_and_reports_nothing_before_a_release():
    at = AppTest.from_function(_mount, default_timeout=60).run()
    assert not at.exception
    assert at.markdown[0].value == "released=None"


def _copy():
    import streamlit as st

    from ui.gate_panel import copy_release_to

    st.session_state.setdefault("lam", 0.5)
    copy_release_to("panel", "lam", "tau")()
    st.write(f"lam={st.session_state['lam']} tau={st.session_state.get('tau')}")


def test_copy_release_to_writes_the_released_values():
    at = AppTest.from_function(_copy)
    at.session_state["panel"] = {"release": {"lam": 0.93, "tau": 1.2}}
    at.run()
    assert at.markdown[0].value == "lam=0.93 tau=1.2"
    at.session_state["panel"] = {"release": None}
    at.session_state["lam"] = 0.4
    at.run()
    assert at.markdown[0].value == "lam=0.4 tau=1.2"  # no release: nothing is overwritten


def test_payload_id_ignores_lambda_and_tau_only():
    from ui.gate_panel import payload_id

    base = {"n": 3, "sims": "AAAA", "lam": 0.5, "tau": 0.1, "k": 3}
    assert payload_id(base) == payload_id({**base, "lam": 1.0, "tau": 0.7})
    assert payload_id(base) != payload_id({**base, "k": 4})


def _js() -> str:
    from pathlib import Path

    return (Path(__file__).resolve().parent.parent / "ui" / "gate_panel.js").read_text()


def test_the_js_header_names_modules_and_files_that_exist():
    import importlib
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    header = _js().split("\n\n")[0]
    dotted = re.findall(r"\bscar_viz(?:\.\w+)+", header)
    files = re.findall(r"\b(?:ui|tests|benchmarks|scar_viz)/[\w/]+\.\w+", _js())
    assert dotted and files
    for name in dotted:
        module, attr = name.rsplit(".", 1)
        assert hasattr(importlib.import_module(module), attr), name
    for path in files:
        assert (root / path).is_file(), path


def test_the_js_puts_hooks_on_window_only_when_the_address_asks():
    import re

    js = _js()
    body = js[js.index("function installTestHooks") :]
    outside = js[: js.index("function installTestHooks")]
    assert not re.search(r"window\.__\w+\s*=", outside)  # every hook is set in installTestHooks
    assert re.search(r"window\.__scarGateDecide\s*=", body)
    assert "if (wantsTestHooks()) installTestHooks(view);" in js
    assert 'get("test_hooks") === "1"' in js
