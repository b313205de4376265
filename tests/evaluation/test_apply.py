"""The runner of a saved setting: on a prepared document it selects what the registry's policy
selects at the same setting, for every retriever × expansion; on chunks an adapter fetched it
keeps the adapter's retrieved chunks in their order; it never steps over a file's edge; and it
says in one sentence what chunks without texts cannot run."""

from __future__ import annotations

import numpy as np
import pytest

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.common.errors import SettingsError
from scar_viz.documents.samples import load_sample
from scar_viz.embeddings import HashEmbedder
from scar_viz.evaluation.apply import ChunkSet, needs_words, reach, run_setting
from scar_viz.evaluation.settings import ChosenSettings
from scar_viz.pipeline import embed_query, prepare_document, query_inputs
from scar_viz.policies import run_policy
from scar_viz.retrieval import Retriever
from scar_viz.scoring.learned import default_gate
from tests.integrations.helpers import a_setting

QUESTIONS = (
    "What happens if the last crossing of the day is cancelled?",
    "Who may overrule a sailing decision?",
    "restricted visibility radar watch",
)


def _setting(retriever: str, policy: str, mu: float = 0.0) -> ChosenSettings:
    return a_setting(
        retriever, policy, scar=(2, 0.3, 0.05, mu), learned=(0.2, default_gate()), k_rrf=15.0
    )


@pytest.fixture(scope="module")
def prep():
    return prepare_document(load_sample(), HashEmbedder(), ChunkingConfig(size=300, overlap=30))


@pytest.mark.parametrize("retriever", ["dense", "bm25", "hybrid"])
@pytest.mark.parametrize("policy", ["topk", "window1", "scar", "learned"])
def test_on_a_document_the_runner_is_the_policy_at_the_same_setting(prep, retriever, policy):
    setting = _setting(retriever, policy, mu=0.4)
    name, knobs = {
        "topk": ("topk", {}),
        "window1": ("window", {"w": 1}),
        "scar": ("scar", {}),
        "learned": ("learned", {"gate": setting.gate, "p": setting.p}),
    }[policy]
    for question in QUESTIONS:
        qvec = embed_query(HashEmbedder(), question)
        inputs = query_inputs(
            prep, question, qvec, setting.params, retriever=Retriever(retriever, 15.0)
        )
        want = run_policy(name, inputs, **knobs).chunk_ids
        got = run_setting(setting, ChunkSet.of(prep), question, qvec)
        assert tuple(got.selected) == want, (retriever, policy, question)
        assert len(got.retrieved) == 3


def test_given_retrieved_chunks_keep_their_order_and_no_step_crosses_a_run():
    unit = np.eye(6)[[0, 0, 0, 1, 1, 1]] + 0.01 * np.arange(6)[:, None]
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    chunks = ChunkSet(unit, np.array([0, 0, 0, 1, 1, 1]))
    setting = _setting("dense", "window1")
    sel = run_setting(setting, chunks, "q", unit[5], retrieved=[2, 3])
    assert sel.retrieved == [2, 3]  # the adapter's order, not re-ranked by cos
    assert sel.selected == [1, 2, 3, 4]  # 2's right and 3's left are over a run's edge
    assert sel.admitted == [1, 4]


def test_what_chunks_without_texts_cannot_run_is_one_sentence():
    unit = np.eye(3)
    chunks = ChunkSet(unit, np.zeros(3, dtype=int))
    with pytest.raises(SettingsError, match="need every chunk's text"):
        run_setting(_setting("bm25", "topk"), chunks, "q", unit[0])
    with pytest.raises(SettingsError, match="μ > 0 and a lexical gate"):
        run_setting(_setting("dense", "scar", mu=0.5), chunks, "q", unit[0])
    with pytest.raises(SettingsError, match="4 dimensions but the chunks have 3"):
        run_setting(_setting("dense", "topk"), chunks, "q", np.ones(4))


def test_what_the_expansion_reaches_and_weighs():
    assert [reach(_setting("dense", p)) for p in ("topk", "window1", "scar", "learned")] == [
        0,
        1,
        2,
        1,
    ]
    assert needs_words(_setting("dense", "scar", mu=0.1))
    assert not needs_words(_setting("dense", "scar")) and not needs_words(_setting("bm25", "topk"))
