"""AppTest of the compare page: every policy on the sample and on an upload, rerank only with a
cross-encoder, knobs, the evidence column, the learned gate's "why?", the diff."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from scar_viz.documents.reading import document_from_text
from scar_viz.policies import ALL_ORDER
from scar_viz.policies.rerank import RERANK_HINT
from scar_viz.scoring.learned import LearnedGate
from scar_viz.scoring.params import PRESETS
from scar_viz.views.compare import COVERS
from scripts.tiny_models import tiny_cross_encoder
from tests.pages.helpers import alerts, open_page

PAGE = "pages/compare.py"
TIMEOUT = 90


def table(at: AppTest) -> pd.DataFrame:
    frame = next(d.value for d in at.dataframe if "jaccard vs scar" in d.value.columns)
    return frame.set_index("policy", drop=False)


def row(at: AppTest, policy: str) -> pd.Series:
    frame = table(at)
    return frame.loc[frame["policy"].str.startswith(policy)].iloc[0]


@pytest.fixture
def at(hash_model) -> AppTest:
    return open_page(PAGE, TIMEOUT)


@pytest.fixture(scope="module")
def tiny_reranker(tmp_path_factory) -> str:
    return str(tiny_cross_encoder(tmp_path_factory.mktemp("tiny_ce")))


def upload(text: str, name: str = "notes.md") -> AppTest:
    return open_page(PAGE, TIMEOUT, upload=document_from_text(name, text))


def test_every_policy_but_rerank_renders_and_the_hint_says_how_to_add_one(at):
    assert at.title[0].value == "Compare policies"
    frame = table(at)
    names = [n for n in ALL_ORDER if n != "rerank"]
    assert [p.rstrip("0123456789") for p in frame["policy"]] == names
    assert any(RERANK_HINT in c.value for c in at.caption)
    assert not any("not available" in w for w in alerts(at, "warning"))
    assert not frame.isna().any().any()
    assert not frame.astype(str).isin(["None", "nan"]).any().any()
    assert (pd.to_numeric(frame["tokens"]) > 0).all()
    assert float(row(at, "scar")["jaccard vs scar"]) == pytest.approx(1.0)
    assert any("not in SCAR" in m.value for m in at.markdown)


def test_a_local_reranker_adds_the_rerank_policy(at, tiny_reranker, monkeypatch):
    monkeypatch.setenv("SCAR_VIZ_MODELS_ROOT", str(Path(tiny_reranker).parent))
    at.text_input(key="rr").set_value(Path(tiny_reranker).name).run()
    assert not at.exception
    assert "rerank" in list(table(at)["policy"])
    assert not any(RERANK_HINT in c.value for c in at.caption)
    assert int(row(at, "rerank")["chunks"]) == at.slider(key="k").value


def test_a_cross_encoder_that_does_not_load_is_left_out_with_its_reason(at, tmp_path, monkeypatch):
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(b"not weights")
    monkeypatch.setenv("SCAR_VIZ_MODELS_ROOT", str(tmp_path.parent))
    at.text_input(key="rr").set_value(str(tmp_path)).run()
    assert not at.exception
    assert "rerank" not in list(table(at)["policy"])
    assert any("Rerank is left out" in c.value and RERANK_HINT in c.value for c in at.caption)
    assert not any("Traceback" in t for t in alerts(at))


def test_qasc_knobs_and_the_all_windows_toggle_change_its_context(at):
    before = int(row(at, "qasc")["characters"])
    at.toggle(key="qaw").set_value(True).run()
    assert "all windows" in row(at, "qasc")["label"]
    assert int(row(at, "qasc")["characters"]) > before
    at.toggle(key="qaw").set_value(False).run()
    at.slider(key="qp").set_value(97).run()
    assert int(row(at, "qasc")["characters"]) < before
    at.toggle(key="qa").set_value(True).run()
    assert not at.exception and "adaptive" in row(at, "qasc")["label"]
    steps = next(d.value for d in at.dataframe if "seed" in d.value.columns)
    assert len(steps) >= 1 and set(steps.columns) == {"seed", "first", "last", "W", "kept"}


def test_window_width_and_k_change_the_table(at):
    narrow = int(row(at, "window")["chunks"])
    at.number_input(key="w").set_value(2).run()
    assert int(row(at, "window")["chunks"]) > narrow
    at.slider(key="k").set_value(1).run()
    assert int(row(at, "topk")["chunks"]) == 1


def test_the_sample_question_has_known_evidence_a_typed_one_not(at):
    cells = set(table(at)[COVERS])
    assert cells and all(c in {"full", "none"} or c.startswith("partial (") for c in cells)
    at.text_input(key="q").set_value("Which colour are the lifeboats?").run()
    assert COVERS not in table(at).columns


PARAS = {
    "ferry": "The ferry timetable lists every crossing and every harbour stop.",
    "cake": "Lemon cake needs flour, sugar, butter, eggs and lemons.",
}
DOC = "# Notes\n\n" + "\n\n".join(
    f"## Part {i}\n\n" + (PARAS["ferry"] if i == 3 else PARAS["cake"] if i == 17 else
                          f"Filler paragraph {i} about nothing at all, padding the document.")
    for i in range(20)
)  # fmt: skip
QUESTION = "Which ferry timetable lists every crossing and harbour stop?"


def test_labelling_the_question_gives_each_policy_full_or_none(hash_model):
    app = upload(DOC)
    app.slider(key="k").set_value(1).run()
    app.text_input(key="q").set_value(QUESTION).run()
    assert COVERS not in table(app).columns
    app.text_area(key="cmp_passage").set_value(PARAS["ferry"]).run()
    app.button(key="cmp_label").click().run()
    assert not app.exception
    assert row(app, "topk")[COVERS] == "full"  # the retrieved chunk holds the passage
    app.text_area(key="cmp_passage").set_value(PARAS["cake"]).run()
    app.button(key="cmp_label").click().run()  # the same question again: relabelled
    assert row(app, "topk")[COVERS] == "none"  # k = 1 and the cake is 14 parts away
    assert row(app, "window")[COVERS] == "none"
    app.text_area(key="cmp_passage").set_value("text that is not in the document").run()
    app.button(key="cmp_label").click().run()
    assert alerts(app, "error")


def why_frame(at: AppTest) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if "contribution" in d.value.columns)


def test_learned_why_box_follows_the_picked_decision(at):
    why = at.selectbox(key="why")
    assert len(why.options) >= 2
    first = why_frame(at)
    assert list(first["term"])[-1] == "intercept"
    why.set_value(why.options[1]).run()
    second = why_frame(at)
    assert not first.equals(second)
    spec = json.loads(at.get("plotly_chart")[-1].proto.spec)
    title = spec["layout"]["title"]["text"]
    assert title.startswith(why.options[1].split(" (")[0] + ":") and "probability" in title


def test_learned_uses_the_session_gate(at):
    lam, tau = PRESETS["A"]["lam"], PRESETS["A"]["tau"]
    at.session_state["learned_gate_json"] = LearnedGate.scar(lam, tau).to_json()
    at.slider(key="p").set_value(0.5).run()
    assert not at.exception
    learned, scar = row(at, "learned"), row(at, "scar")
    assert int(learned["chunks"]) == int(scar["chunks"])
    assert float(learned["jaccard vs scar"]) == pytest.approx(1.0)


def diff_heads(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("**In ")]


def test_diff_view_follows_the_chosen_policy(at):
    at.selectbox(key="vs").set_value("topk").run()
    theirs, _ = diff_heads(at)
    assert theirs.startswith(f"**In topk (k={at.slider(key='k').value}), not in SCAR**")
    assert theirs.endswith("· 0 characters")  # top-k is always inside SCAR
    at.selectbox(key="vs").set_value("qasc").run()
    theirs, _ = diff_heads(at)
    assert theirs.startswith("**In qasc m=2, not in SCAR**")
    assert not theirs.endswith("· 0 characters")


def test_diff_text_is_escaped(hash_model):
    text = "# Tags\n\n" + "\n\n".join(
        f"Rule {i}: the <b>crew</b> & <script>alert({i})</script> passengers." for i in range(200)
    )
    app = upload(text, "tags.md")
    app.text_input(key="q").set_value("What is rule 7 about the crew?").run()
    app.selectbox(key="vs").set_value("parent").run()
    assert not app.exception
    bodies = [h.proto.body for h in app.get("html")]
    diff = [b for b in bodies if "characters" in b and "chars " in b]
    assert diff and any("&lt;script&gt;alert(" in b and "&lt;b&gt;crew" in b for b in diff)
    assert not any("<script>" in b for b in bodies)


def test_uploaded_document_runs_every_policy(hash_model):
    app = upload(DOC)
    app.text_input(key="q").set_value("What does filler paragraph 7 say?").run()
    assert not app.exception
    assert any("notes.md" in t for t in alerts(app.sidebar))
    frame = table(app)
    assert len(frame) == len(ALL_ORDER) - 1
    assert (pd.to_numeric(frame["characters"]) > 0).all()
    assert pd.to_numeric(frame["characters"]).max() <= len(DOC) + 200


def test_scar_runs_at_the_sliders_mu(at):
    """The sample's first question: μ = 0.5 admits two more neighbours (their words match)."""
    plain = int(row(at, "scar")["chunks"])
    at.slider(key="mu").set_value(0.5).run()
    assert not at.exception, at.exception
    scar = row(at, "scar")
    assert int(scar["chunks"]) == plain + 2
    assert scar["label"] == "scar (r=1, μ=0.5)"


def test_the_sentence_policies_can_be_left_out(at):
    before = table(at)
    at.toggle(key="cmp_sent").set_value(False).run()
    assert not at.exception, at.exception
    after = table(at)
    kept = [p for p in before["policy"] if not p.startswith(("qasc", "sentence"))]
    assert list(after["policy"]) == kept and len(kept) < len(before)
    cols = ["policy", "tokens"]
    pd.testing.assert_frame_equal(
        after[cols].reset_index(drop=True), before.loc[kept, cols].reset_index(drop=True)
    )


def test_on_a_corpus_each_hit_file_has_its_own_axis(hash_model):
    from scar_viz.documents import samples
    from tests.pages.helpers import open_corpus

    at = open_corpus("pages/compare.py", TIMEOUT)
    at.text_input(key="q").set_value("How often is the nest camera serviced?").run()
    assert not at.exception, at.exception
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    corpus = samples.load_sample("kestrel")
    lengths = {p.path: p.end - p.start for p in corpus.parts}
    axes = {k: v for k, v in fig["layout"].items() if k.startswith("xaxis")}
    titles = [a["text"] for a in fig["layout"]["annotations"] if a["text"] in lengths]
    assert len(axes) == len(titles) >= 1
    for (_, axis), path in zip(sorted(axes.items()), titles, strict=True):
        assert axis["range"] == [0, lengths[path]]  # the file, not the corpus
    assert max(lengths.values()) < len(corpus.text)
