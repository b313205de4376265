"""Every session key of the app is named in ``ui/keys.py``: ``ui/`` and ``pages/`` spell none.

The sources are parsed (no app runs): a widget's ``key=``, a ``st.session_state`` subscript,
``get``/``pop``/``setdefault`` and ``in`` test, the key arguments of the ui helpers that take
one, and the defaults of parameters that name a key must not be string literals.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from ui import keys

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(
    p
    for p in [*ROOT.glob("ui/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py"]
    if p.name != "keys.py"
)
KEY_KEYWORDS = {
    "key",
    "field",
    "chart_key",
    "focus_key",
    "lam_key",
    "tau_key",
    "passage_key",
    "error_key",
}
KEY_ARGS = {  # helper name -> positions of its key arguments
    "default": (0,),
    "set_widget": (0,),
    "set_by_code": (0,),
    "named_select": (3,),
    "pickable_chart": (1,),
    "remember_overview_click": (0, 1),
    "copy_release_to": (0, 1, 2),
    "api_key": (0,),
    "label_error": (0,),
    "endpoint_inputs": (2,),
}


def _session_state(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "session_state"


def _key_expressions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield from (kw.value for kw in node.keywords if kw.arg in KEY_KEYWORDS)
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            owner = getattr(func, "value", None)
            if name in ("get", "put", "pop", "setdefault") and (
                _session_state(owner) or getattr(owner, "id", "") == "state"
            ):
                yield from node.args[:1]
            for i in KEY_ARGS.get(name, ()):
                if i < len(node.args):
                    yield node.args[i]
        elif isinstance(node, ast.Subscript) and _session_state(node.value):
            yield node.slice
        elif isinstance(node, ast.Compare) and any(map(_session_state, node.comparators)):
            yield node.left
        elif isinstance(node, ast.FunctionDef | ast.Lambda):
            args = node.args.args + node.args.kwonlyargs
            defaults = [None] * (len(node.args.args) - len(node.args.defaults))
            for arg, value in zip(
                args, defaults + node.args.defaults + node.args.kw_defaults, strict=True
            ):
                named = arg.arg in KEY_KEYWORDS or arg.arg.endswith("_key")
                if value is not None and named and arg.arg != "doc_key":  # doc_key: a digest
                    yield value


def _literals(expr: ast.AST):
    parts = expr.elts if isinstance(expr, ast.Tuple) else [expr]
    for part in parts:
        if isinstance(part, ast.JoinedStr) or (
            isinstance(part, ast.Constant) and isinstance(part.value, str)
        ):
            yield part


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_session_key_is_spelled_outside_the_keys_module(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [
        f"{path.name}:{lit.lineno} {ast.unparse(lit)}"
        for expr in _key_expressions(tree)
        for lit in _literals(expr)
    ]
    assert not found, f"name these keys in ui/keys.py: {found}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_key_named_exists(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    used = {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "keys"
    }
    assert not {u for u in used if not hasattr(keys, u)}
    rebound = [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute)
        and isinstance(n.ctx, ast.Store)
        and getattr(n.value, "id", "") == "keys"
    ]
    assert not rebound, f"{path.name} assigns to ui.keys at lines {rebound}"


def test_pages_never_touch_session_state():
    for path in ROOT.glob("pages/*.py"):
        assert "session_state" not in path.read_text(encoding="utf-8"), path.name


def test_no_two_names_share_a_key():
    values = [v for n, v in vars(keys).items() if n.isupper() and isinstance(v, str)]
    values += list(keys.KNOB_KEYS)
    assert [v for v, n in Counter(values).items() if n > 1] == []


def test_keys_made_from_names_cannot_meet_a_named_key():
    named = {v for n, v in vars(keys).items() if n.isupper() and isinstance(v, str)}
    made = [keys.preset("A"), keys.query_source("sample"), keys.guess(0, 1), keys.heatmap("f1")]
    assert not named & set(made)
