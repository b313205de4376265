"""One set of defaults, one parameter object, one gate formula, one error base."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

import numpy as np
import pytest

from scar_viz import evaluation, pipeline
from scar_viz.chunking.qasc import QascParams
from scar_viz.cli import main as cli
from scar_viz.common.edges import one_file
from scar_viz.common.errors import SettingsError, UserError, user_message
from scar_viz.common.knobs import knob_fields
from scar_viz.documents.reading import DocumentError
from scar_viz.embeddings import EmbeddingError, ModelSpecError
from scar_viz.policies import QueryInputs
from scar_viz.policies.rerank import RerankerError
from scar_viz.scoring import scar as scoring
from scar_viz.scoring import sweep
from scar_viz.scoring.params import DEFAULT_K, DEFAULT_PARAMS, GateParams
from scar_viz.teaching import lesson

ROOT = Path(__file__).resolve().parents[2]
GATE_NAMES = {"k", "lam", "tau", "radius"}


# --- one set of defaults -------------------------------------------------------------------


@pytest.mark.parametrize(
    "fn", [pipeline.query_inputs, evaluation.evaluate], ids=lambda f: f.__qualname__
)
def test_signatures_default_to_gate_params(fn):
    params = inspect.signature(fn).parameters
    assert params["params"].default == GateParams()
    assert not GATE_NAMES & set(params), "k, λ, τ, r travel as one GateParams"


def test_dataclasses_default_to_gate_params():
    for cls in (QueryInputs, scoring.Selection):
        (field,) = [f for f in dataclasses.fields(cls) if f.name == "params"]
        assert field.default == GateParams()


def test_cli_defaults_and_help_come_from_gate():
    parser = cli.build_parser()
    args = parser.parse_args(["select", "doc.md", "--query", "q"])
    assert cli.gate_params(args) == DEFAULT_PARAMS
    assert DEFAULT_PARAMS.k == DEFAULT_K
    sub = parser._subparsers._group_actions[0].choices["select"]
    helps = {a.dest: a.help for a in sub._actions}
    assert f"default {DEFAULT_PARAMS.lam:g}" in helps["lam"]
    assert f"default {DEFAULT_PARAMS.tau:g}" in helps["tau"]
    assert f"default {DEFAULT_PARAMS.k}" in helps["k"]


def _literal_gate_defaults(path: Path) -> list[str]:
    """Every k/lam/tau/radius parameter or dataclass field given a number literal as default
    (``None``, "not given", is no gate value)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            positional = args.posonlyargs + args.args
            with_default = positional[len(positional) - len(args.defaults) :]
            pairs = list(zip(with_default, args.defaults, strict=True))
            pairs += [
                (a, d)
                for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                if d is not None
            ]
            for arg, default in pairs:
                if (
                    arg.arg in GATE_NAMES
                    and isinstance(default, ast.Constant)
                    and default.value is not None
                ):
                    found.append(f"{path.name}:{node.lineno} {node.name}({arg.arg}=…)")
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if (
                    isinstance(item, ast.AnnAssign)
                    and isinstance(item.target, ast.Name)
                    and item.target.id in GATE_NAMES
                    and isinstance(item.value, ast.Constant)
                    and item.value.value is not None
                ):
                    found.append(f"{path.name}:{item.lineno} {node.name}.{item.target.id}")
    return found


def test_no_literal_gate_default_outside_the_params_module():
    defaults = ROOT / "scar_viz" / "scoring" / "params.py"
    files = [
        p
        for folder in ("scar_viz", "pages", "ui")
        for p in sorted((ROOT / folder).rglob("*.py"))
        if p != defaults
    ]
    assert defaults.exists() and len(files) > 50
    found = [hit for p in files for hit in _literal_gate_defaults(p)]
    assert found == []


def test_the_scan_finds_a_literal_default(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "def f(x, k=5, *, lam=0.5, radius=None):\n    pass\n\n"
        "class C:\n    tau: float = 0.1\n    k: int | None = None\n"
    )
    assert len(_literal_gate_defaults(bad)) == 3


# --- one gate ----------------------------------------------------------------------------------


def test_gate_works_on_scalars_and_arrays():
    score, bar, passes = scoring.gate(0.8, 0.9, 0.2, 0.5, 0.1)
    assert score == pytest.approx(0.7) and bar == pytest.approx(0.09) and bool(passes)
    qn = np.array([0.8, 0.1, 0.5])
    score, bar, passes = scoring.gate(qn[None, :], 0.9, 0.2, 0.5, np.array([[0.1], [0.9]]))
    assert passes.shape == (2, 3)
    assert passes.tolist() == [[True, False, True], [False, False, False]]
    for i, tau in enumerate((0.1, 0.9)):
        for j, cos_qn in enumerate(qn):
            assert bool(scoring.gate(float(cos_qn), 0.9, 0.2, 0.5, tau)[2]) == passes[i, j]


def _counting_gate(monkeypatch, module) -> list[int]:
    calls: list[int] = []

    def counted(*args):
        calls.append(1)
        return scoring.gate(*args)

    monkeypatch.setattr(module, "gate", counted)
    return calls


def test_sweep_and_lesson_use_the_one_gate(monkeypatch):
    rng = np.random.default_rng(3)
    unit = scoring.normalize(rng.normal(size=(12, 5)))
    sims = unit[[2, 7]] @ unit.T
    calls = _counting_gate(monkeypatch, sweep)
    sweep.sweep(
        sweep.build_candidates(sims, unit, [(2, 3), (7,)], 2, 1, doc_of=one_file(len(unit))),
        [0.5],
        [0.1],
    )
    assert calls
    real, counted = scoring.gate, []
    monkeypatch.setattr(scoring, "gate", lambda *args: counted.append(1) or real(*args))
    lesson.pooled_decisions(unit, unit[[2]])  # the lesson's decisions come from the one gate
    assert counted


def test_selection_carries_its_params():
    rng = np.random.default_rng(0)
    chunks = rng.normal(size=(6, 4))
    params = GateParams(k=2, lam=0.3, tau=0.2, radius=2)
    sel = scoring.scar_select(chunks[1], chunks, params)
    assert sel.params == params


# --- QASC's knobs, written once ------------------------------------------------------------


def test_every_qasc_field_is_a_cli_option_and_a_widget():
    items = knob_fields(QascParams)
    # every field is a knob except top_k, which the policy sets from k (not a user setting)
    fields = [f.name for f in dataclasses.fields(QascParams) if f.name != "top_k"]
    assert [f.name for f, _ in items] == fields
    keys = [k.key for _, k in items]
    assert all(keys) and len(set(keys)) == len(keys)
    argv = ["select", "d.md", "--query", "q", "--adaptive", "--window-m", "4", "--decay", "1.5"]
    args = cli.build_parser().parse_args(argv)
    assert (args.adaptive, args.window_m, args.decay) == (True, 4, 1.5)
    assert args.percentile is None  # unset: the policy's default applies
    for f, k in items:
        if k.lo is not None:
            assert k.lo <= f.default <= k.hi, f.name


# --- one error base ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cls", [DocumentError, EmbeddingError, RerankerError, SettingsError, ModelSpecError]
)
def test_user_facing_errors_share_one_base(cls):
    assert issubclass(cls, UserError)
    assert user_message(cls("two\n  lines")) == "two lines"


def test_reranker_error_is_not_an_embedding_error():
    assert not issubclass(RerankerError, EmbeddingError)


def test_bad_settings_are_user_errors():
    with pytest.raises(UserError, match="seed percentile"):
        QascParams(percentile=120).validate()
    with pytest.raises(UserError, match="Unknown policy"):
        evaluation.resolve_policy("nope")


# --- μ: SCAR's lexical term (docs/method.md §8) ---


def _random_case(seed: int, n: int = 30, q: int = 6):
    rng = np.random.default_rng(seed)
    unit = scoring.normalize(rng.normal(size=(n, 8)))
    sims = scoring.normalize(rng.normal(size=(q, 8))) @ unit.T
    return sims, unit, rng.uniform(0.0, 1.0, size=(q, n))


class _Lex:
    """A stand-in for QuestionLex: only ``share`` is read by SCAR."""

    def __init__(self, share):
        self.share = share


@pytest.mark.parametrize("seed", range(5))
def test_mu_zero_gives_exactly_the_papers_gate(seed):
    sims, unit, lex = _random_case(seed)
    for row, lex_row in zip(sims, lex, strict=True):
        for radius in (1, 2):
            params = GateParams(k=4, lam=0.4, tau=0.3, radius=radius)
            plain = scoring.select_from_sims(row, unit, params, doc_of=one_file(len(unit)))
            with_lex = scoring.select_from_sims(
                row, unit, params, lexical=_Lex(lex_row), doc_of=one_file(len(unit))
            )
            assert with_lex.selected == plain.selected
            assert [d.score for d in with_lex.decisions] == [d.score for d in plain.decisions]
            rows = [d.as_row() for d in with_lex.decisions]
            assert rows == [d.as_row() for d in plain.decisions]
    cands = sweep.build_candidates(
        sims, unit, [[0]] * len(sims), 4, 2, lex=lex, doc_of=one_file(len(unit))
    )
    plain = sweep.build_candidates(sims, unit, [[0]] * len(sims), 4, 2, doc_of=one_file(len(unit)))
    a, b = sweep.sweep(cands, [0.2, 0.6], [0.1, 0.5]), sweep.sweep(plain, [0.2, 0.6], [0.1, 0.5])
    assert np.array_equal(a.query_chunks, b.query_chunks)


def test_mu_admits_a_neighbour_lambda_and_tau_alone_reject():
    # c = 0 retrieved (k = 1), n = 1 its neighbour. cos(q,c) = 0.8, cos(q,n) = 0.3,
    # cos(c,n) = 0.6: b = 0.4. λ = 0.5, τ = 0.5: S = 0.3 − 0.2 = 0.1 ≤ bar 0.4, rejected.
    # lex(q,n) = 0.75, μ = 0.5: S = 0.1 + 0.375 = 0.475 > 0.4, admitted.
    unit = np.array([[1.0, 0.0], [0.6, 0.8], [-1.0, 0.0]])
    sims = np.array([0.8, 0.3, -0.9])
    lex = _Lex(np.array([1.0, 0.75, 0.0]))
    base = GateParams(k=1, lam=0.5, tau=0.5, radius=1)
    assert scoring.select_from_sims(sims, unit, base, doc_of=one_file(len(unit))).selected == [0]
    sel = scoring.select_from_sims(
        sims, unit, base.with_(mu=0.5), lexical=lex, doc_of=one_file(len(unit))
    )
    assert sel.selected == [0, 1]
    (d,) = sel.decisions
    assert d.score == pytest.approx(0.475)
    assert d.bar == pytest.approx(0.4)
    assert d.lexical_term == pytest.approx(0.375)
    assert d.as_row()["μ·lex(q,n)"] == pytest.approx(0.375)
    from scar_viz.scoring.explain import explain_decision

    why = explain_decision(d)
    assert r"\mu" in why.latex and "without them it would be rejected" in why.sentence


def test_mu_needs_lexical_evidence_and_is_not_negative():
    sims, unit, _ = _random_case(0)
    with pytest.raises(SettingsError, match="lexical"):
        scoring.select_from_sims(sims[0], unit, GateParams(mu=0.2), doc_of=one_file(len(unit)))
    with pytest.raises(SettingsError, match="0 or more"):
        scoring.select_from_sims(
            sims[0], unit, GateParams(mu=-0.1), lexical=_Lex(sims[0]), doc_of=one_file(len(unit))
        )
    cands = sweep.build_candidates(sims, unit, [[0]] * len(sims), 3, 1, doc_of=one_file(len(unit)))
    with pytest.raises(SettingsError, match="lex"):
        sweep.sweep(cands, [0.5], [0.1], mu=0.3)


@pytest.mark.parametrize("radius", [1, 2])
def test_sweep_with_mu_agrees_with_select_one_by_one(radius):
    sims, unit, lex = _random_case(7, n=40, q=8)
    rng = np.random.default_rng(1)
    golds = [sorted(rng.choice(40, size=3, replace=False).tolist()) for _ in range(len(sims))]
    cands = sweep.build_candidates(
        sims, unit, golds, 3, radius, lex=lex, doc_of=one_file(len(unit))
    )
    lams, taus = [0.0, 0.5, 1.2], [0.0, 0.3, 0.9]
    for mu in (0.3, 1.0):
        res = sweep.sweep(cands, lams, taus, mu=mu)
        assert res.mu == mu
        for i, lam in enumerate(lams):
            for j, tau in enumerate(taus):
                for qi, row in enumerate(sims):
                    params = GateParams(k=3, lam=lam, tau=tau, radius=radius, mu=mu)
                    sel = scoring.select_from_sims(
                        row, unit, params, lexical=_Lex(lex[qi]), doc_of=one_file(len(unit))
                    )
                    assert res.query_chunks[i, j, qi] == len(sel.selected)
                    hits = len(set(sel.selected) & set(golds[qi])) / len(golds[qi])
                    assert res.query_recall[i, j, qi] == pytest.approx(hits)
