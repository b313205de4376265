"""The cross-validated verdict: the retriever it picks where only words find the evidence, an
undecided verdict where every candidate ties, untuned candidates equal to ``evaluate``, no
leakage from a held-out fold, the decision rule and its sentence, and the JSON contract."""

from __future__ import annotations

import random

import numpy as np
import pytest

from scar_viz.common.errors import SettingsError
from scar_viz.evaluation import evaluate
from scar_viz.evaluation.crossval import cross_validate
from scar_viz.evaluation.folds import assign_folds
from scar_viz.evaluation.labelled_run import LabelledRun
from scar_viz.evaluation.learned import fit_gate_on
from scar_viz.evaluation.recommend import decide, recommend
from scar_viz.queries.gold import GoldQuery
from scar_viz.retrieval import Retriever
from scar_viz.scoring.params import GateParams
from scar_viz.views.verdict_words import (
    BAR_OFF,
    PENALTY_OFF,
    queries_needed,
    verdict_json,
    verdict_rows,
    verdict_words,
)
from tests.evaluation.verdict_corpora import (
    everyone_finds_it,
    made_up,
    made_up_verdict,
    rare_identifiers,
)
from tests.evaluation_sample import CANDIDATE_KEYS, VERDICT_KEYS, hash_sample


@pytest.fixture(scope="module")
def sample():
    return hash_sample()[:3]


@pytest.fixture(scope="module")
def sample_verdict(sample):
    prep, labelled, vecs = sample
    return recommend(LabelledRun(prep, labelled, vecs), n_boot=1000)


def test_queries_that_name_rare_identifiers_pick_a_lexical_retriever():
    prep, labelled, vecs = rare_identifiers()
    v = recommend(LabelledRun(prep, labelled, vecs), n_boot=1000)
    assert v.chosen.retriever in ("bm25", "hybrid"), (v.chosen.option, v.chosen.k)
    dense = max(c.mean_recall for c in v.candidates if c.retriever == "dense")
    assert v.chosen.mean_recall > dense + 0.3  # the words find what the vectors do not
    assert v.reference.retriever == "dense" and v.reference.mean_recall < 0.5
    ci = v.scored[v.best]
    assert ci.ci_low > 0  # clearly above the dense reference


def test_when_every_candidate_ties_the_verdict_is_undecided():
    prep, labelled, vecs = everyone_finds_it()
    v = recommend(LabelledRun(prep, labelled, vecs), n_boot=500)
    assert all(c.mean_recall == 1.0 for c in v.candidates if c.k >= 1)
    assert v.decided is False and v.as_json()["verdict"]["decided"] is False
    words = verdict_words(v)
    assert words.versus.startswith("It scores the same as the runner-up")
    assert "No number of queries would separate them." in words.details
    assert v.rival is not None and v.rival.option != v.chosen.option
    assert v.chosen.mean_tokens == min(c.mean_tokens for c in v.candidates)


def test_untuned_candidates_are_evaluate_on_every_query(sample, sample_verdict):
    """top-k, window ±1 and the presets have nothing to tune: their out-of-fold figures are
    evaluate's on all the queries, query by query (recall, chunks and tokens)."""
    prep, labelled, vecs = sample
    order = sorted(range(len(labelled)), key=lambda i: labelled[i].id)
    queries, qvecs = [labelled[i] for i in order], vecs[order]
    assert list(sample_verdict.cv.ids) == [q.id for q in queries]
    checked = 0
    for c in sample_verdict.candidates:
        if c.tuned or c.k not in (1, 4, 9):
            continue
        params = GateParams(c.k, c.lam or 0.5, c.tau if c.tau is not None else 0.1)
        ev = evaluate(LabelledRun(prep, queries, qvecs, Retriever(c.retriever)), [c.policy], params)
        for metric, values in (("recall", c.recall), ("chunks", c.chunks), ("tokens", c.tokens)):
            assert ev.values(c.policy, metric).tolist() == values.tolist(), (c.option, c.k, metric)
        checked += 1
    assert checked == 3 * 3 * 4  # retrievers × k × (top-k, window, A, B)


def test_the_json_contract(sample_verdict):
    out = verdict_json(sample_verdict)
    assert set(out) == {"verdict", "folds", "repeats", "budget_tokens", "candidates"}
    assert set(out["verdict"]) == set(VERDICT_KEYS)
    assert (out["folds"], out["repeats"]) == (4, 3)  # 24 queries: 5 folds need 25
    ref = sample_verdict.reference
    assert out["budget_tokens"] == pytest.approx(ref.mean_tokens, abs=1e-6)
    assert len(out["candidates"]) == 3 * 10 * 6
    policies = set()
    for row in out["candidates"]:
        assert list(row) == CANDIDATE_KEYS
        policies.add(row["policy"])
        low, high = row["recall_ci"]
        assert low <= high
        if row["policy"] == "scar":
            assert None not in (row["lam"], row["tau"], row["mu"]) and row["p"] is None
        elif row["policy"] == "learned":
            assert row["p"] is not None and row["lam"] is row["tau"] is row["mu"] is None
        else:
            assert row["lam"] is row["tau"] is row["mu"] is row["p"] is None
    assert policies == {"topk", "window1", "scar", "learned"}
    presets = {(r["lam"], r["tau"]) for r in out["candidates"] if r["policy"] == "scar"}
    assert {(0.5, 0.1), (0.1, 0.8)} <= presets
    ref_row = next(
        r
        for r in out["candidates"]
        if (r["retriever"], r["policy"], r["k"]) == ("dense", "window1", 3)
    )
    assert ref_row["recall_ci"] == [0.0, 0.0]
    assert isinstance(out["verdict"]["decided"], bool)
    nested = sample_verdict.nested
    assert nested is not None  # 4 folds: the choice can be held out
    assert out["verdict"]["expected_gain"] == pytest.approx(nested.gain, abs=1e-6)
    low, high = out["verdict"]["expected_gain_ci"]
    assert low <= out["verdict"]["expected_gain"] <= high
    assert nested.gain == pytest.approx(float((nested.recall - ref.recall).mean()), abs=1e-12)
    chosen = sample_verdict.chosen
    assert out["verdict"]["policy"] == chosen.policy and out["verdict"]["k"] == chosen.k


def test_the_order_of_the_queries_changes_nothing(sample, sample_verdict):
    prep, labelled, vecs = sample
    for seed in (1, 2):
        order = list(range(len(labelled)))
        random.Random(seed).shuffle(order)
        again = recommend(LabelledRun(prep, [labelled[i] for i in order], vecs[order]), n_boot=1000)
        assert verdict_json(again) == verdict_json(sample_verdict)


def _learned_only(prep, queries, vecs, folds):
    cv = cross_validate(
        LabelledRun(prep, queries, vecs),
        folds,
        reference=("dense", 3),
        ks=(3,),
        retrievers=("dense",),
        expansions=("learned",),
    )
    return next(c for c in cv.candidates if c.policy == "learned")


def test_a_held_out_query_is_read_with_a_gate_fitted_without_it(sample):
    """Leakage: each held-out query's learned-gate figures are those of a gate fitted (with
    scikit-learn) on the other folds alone, at the p, features and radius those folds chose."""
    prep, labelled, vecs = sample
    folds = assign_folds(labelled, 4, 1, seed=3)
    learned = _learned_only(prep, labelled, vecs, folds)
    assert len(learned.fold_settings) == 4
    for f, (features, p, radius) in enumerate(learned.fold_settings):
        train = [i for i in range(len(labelled)) if folds.fold[0, i] != f]
        held = [i for i in range(len(labelled)) if folds.fold[0, i] == f]
        gate = fit_gate_on(
            LabelledRun(prep, [labelled[i] for i in train], vecs[train]),
            3,
            features=features,
            radius=radius,
        )
        ev = evaluate(
            LabelledRun(prep, [labelled[i] for i in held], vecs[held]),
            ["learned"],
            GateParams(k=3, radius=radius),
            knobs={"learned": {"gate": gate, "p": p}},
        )
        assert ev.values("learned", "recall").tolist() == learned.recall[held].tolist()
        assert ev.values("learned", "tokens").tolist() == learned.tokens[held].tolist()


def test_labels_only_an_in_sample_fit_could_learn_do_not_raise_out_of_fold_recall(sample):
    """Leakage: give one fold's queries labels nothing else predicts (a far-away chunk each).
    What the gate selects for them is unchanged (chunks, tokens), so their recall can only be
    what those selections find; a gate fitted or a p tuned with them would move."""
    prep, labelled, vecs = sample
    folds = assign_folds(labelled, 4, 1, seed=3)
    held = [i for i in range(len(labelled)) if folds.fold[0, i] == 0]
    n = len(prep.chunks)
    moved = list(labelled)
    for i in held:
        q = labelled[i]
        far = (q.gold[0] + n // 2) % n
        moved[i] = GoldQuery(q.query, (far,), ((far, far),), q.type)  # same type, same fold
    before = _learned_only(prep, labelled, vecs, folds)
    after = _learned_only(prep, moved, vecs, folds)
    assert after.chunks[held].tolist() == before.chunks[held].tolist()
    assert after.tokens[held].tolist() == before.tokens[held].tolist()
    assert after.recall[held].mean() <= before.recall[held].mean()
    assert after.fold_settings[0] == before.fold_settings[0]  # fold 0 trains on the rest only


def test_the_decision_rule_on_made_up_candidates():
    rng = np.random.default_rng(0)
    n = 200
    base = (rng.random(n) < 0.6).astype(float)
    better = np.maximum(base, (rng.random(n) < 0.5).astype(float))  # finds more, clearly
    opts = [
        ("dense", "window1", 3),
        ("hybrid", "scar", 4),
        ("hybrid", "scar", 5),
        ("bm25", "topk", 9),
    ]
    cands = made_up([base, better, better, better], [1000, 900, 950, 2000], opts)
    best, runner = decide(cands, 1000)
    assert (best, runner) == (1, 0)  # k = 5 is the same option; top-k at 2,000 is over budget
    v = made_up_verdict(cands, 1000)
    words = verdict_words(v)
    assert v.decided and words.lead.startswith("Use SCAR tuned (λ 0.00, τ 0.00) on hybrid")
    assert PENALTY_OFF in words.details and BAR_OFF in words.details
    assert decide(cands, 500) == (1, None)  # nothing fits: the fewest tokens
    v = made_up_verdict(cands, 500)
    assert not v.decided
    assert verdict_words(v).sentence.startswith("No candidate stays within 500 tokens")


def test_an_undecided_pair_says_how_many_queries_would_separate_them():
    rng = np.random.default_rng(1)
    n = 40
    a = (rng.random(n) < 0.6).astype(float)
    b = a.copy()
    b[:3] = 1 - b[:3]
    opts = [("dense", "window1", 3), ("bm25", "topk", 4)]
    v = made_up_verdict(made_up([a, b], [800, 700], opts), 1000)
    d = v.chosen.recall - v.rival.recall
    want = int(np.ceil(7.84 * np.var(d, ddof=1) / d.mean() ** 2))
    assert not v.decided and queries_needed(v) == want
    assert f"About {want - n:,} more labelled queries" in verdict_words(v).details


def test_rows_mark_the_verdict_runner_up_and_reference(sample_verdict):
    rows = verdict_rows(sample_verdict)
    marks = [r["role"] for r in rows]
    assert marks[0].startswith("verdict") and "reference" in marks
    assert ("runner-up" in marks) == (sample_verdict.runner_up is not None)
    assert all(r["tokens"] <= sample_verdict.budget_tokens + 1e-9 for r in rows)


def test_bad_requests_are_one_sentence(sample):
    prep, labelled, vecs = sample
    with pytest.raises(SettingsError, match="at least 10 labelled queries"):
        recommend(LabelledRun(prep, labelled[:8], vecs[:8]))
    with pytest.raises(SettingsError, match="budget"):
        recommend(LabelledRun(prep, labelled, vecs), budget=0)
    with pytest.raises(SettingsError, match="compares topk, window1, scar, learned"):
        recommend(LabelledRun(prep, labelled, vecs), policies=["rse"])
    with pytest.raises(SettingsError, match="retrievers"):
        recommend(LabelledRun(prep, labelled, vecs), retrievers=["sparse"])


def test_narrowed_candidates_keep_the_reference(sample):
    prep, labelled, vecs = sample
    v = recommend(
        LabelledRun(prep, labelled, vecs),
        retrievers=["bm25"],
        policies=["topk"],
        ks=(2, 3),
        n_boot=200,
    )
    assert {(c.retriever, c.policy) for c in v.candidates} == {
        ("bm25", "topk"),
        ("bm25", "window1"),
    }
    assert (v.reference.retriever, v.reference.policy, v.reference.k) == ("bm25", "window1", 3)


def test_on_a_corpus_no_candidate_reaches_past_a_file_edge():
    """The sample corpus (six files): window ±1 and the presets stop at each file's edge, as
    evaluate's policies do, query by query."""
    from tests.evaluation_sample import labelled_sample

    prep, gold, vecs, _ = labelled_sample("kestrel")
    assert prep.doc_of is not None and len(set(prep.doc_of.tolist())) > 1
    v = recommend(
        LabelledRun(prep, gold, vecs), ks=(2, 5), retrievers=["dense", "hybrid"], n_boot=200
    )
    order = sorted(range(len(gold)), key=lambda i: gold[i].id)
    for c in v.candidates:
        if c.tuned:
            continue
        params = GateParams(c.k, c.lam or 0.5, c.tau if c.tau is not None else 0.1)
        ev = evaluate(
            LabelledRun(prep, [gold[i] for i in order], vecs[order], Retriever(c.retriever)),
            [c.policy],
            params,
        )
        assert ev.values(c.policy, "chunks").tolist() == c.chunks.tolist(), (c.option, c.k)
        assert ev.values(c.policy, "tokens").tolist() == c.tokens.tolist(), (c.option, c.k)


def test_a_learned_gate_to_radius_2_is_written_and_run_to_radius_2(sample, sample_verdict):
    """The learned gate's wider shape (crossval.gate_shapes): where the training sets chose it,
    the candidate, its JSON, its settings file and its gate all say r = 2, and the one runner
    (apply.run_setting) walks two chunks out where the gate admits both."""
    from dataclasses import replace

    from scar_viz.evaluation.apply import ChunkSet, run_setting
    from scar_viz.evaluation.crossval import gate_shapes

    assert gate_shapes(1) == (("base", 1), ("lexical", 1), ("lexical", 2))
    assert gate_shapes(2) == (("base", 2), ("lexical", 2))
    prep, labelled, vecs = sample
    v = sample_verdict
    wide = [i for i, c in enumerate(v.candidates) if c.policy == "learned" and c.radius == 2]
    assert wide, "no (retriever, k) chose the radius-2 shape on the sample"
    narrow = [c for c in v.candidates if c.policy == "learned" and c.radius == 1]
    assert all(c.gate.fitted_on["radius"] == 1 for c in narrow)
    assert {c.radius for c in v.candidates if c.policy in ("topk", "window1")} == {1}
    for i in wide:
        c = v.candidates[i]
        assert c.features == "lexical" and c.setting_json()["radius"] == 2
        assert c.gate.fitted_on["radius"] == 2 and "distance" in c.gate.feature_names
        setting = replace(v, best=i).settings()
        assert setting.radius == 2 and setting.gate == c.gate
    setting = replace(v, best=wide[0]).settings()
    chunks = ChunkSet.of(prep)
    reached = 0
    for g, vec in zip(labelled, vecs, strict=True):
        sel = run_setting(setting, chunks, g.query.query, vec)
        top = set(sel.retrieved)
        reached += any(min(abs(s - t) for t in top) == 2 for s in sel.selected)
        assert all(min(abs(s - t) for t in top) <= 2 for s in sel.selected)
    assert reached  # some selection holds a chunk two away from every retrieved one
