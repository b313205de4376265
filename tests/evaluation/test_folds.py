"""Folds from the query ids: stratified by type, independent of the file's order, repeatable."""

from __future__ import annotations

import random

import numpy as np
import pytest

from scar_viz.common.errors import SettingsError
from scar_viz.evaluation.folds import assign_folds
from scar_viz.queries.gold import GoldQuery
from scar_viz.queries.reading import LabelledQuery


def queries(n_frag: int, n_atomic: int, n_scattered: int = 0) -> list[GoldQuery]:
    out = []
    for kind, n, gold in (
        ("fragmented", n_frag, (1, 2)),
        ("atomic", n_atomic, (1,)),
        ("scattered", n_scattered, (1, 5)),
    ):
        for i in range(n):
            q = LabelledQuery(f"{kind[:4]}-{i:03d}", f"question {kind} {i}", (), None, 0)
            out.append(GoldQuery(q, gold, ((1, 1),), kind))
    return out


def by_id(qs, folds) -> dict[str, tuple[int, ...]]:
    return {q.id: tuple(folds.fold[:, i].tolist()) for i, q in enumerate(qs)}


def test_each_fold_gets_its_share_of_every_type():
    qs = queries(23, 31, 7)
    folds = assign_folds(qs, 5, 3, seed=0)
    assert folds.k == 5 and folds.repeats == 3
    types = np.array([q.type for q in qs])
    for r in range(3):
        sizes = np.bincount(folds.fold[r], minlength=5)
        assert sizes.max() - sizes.min() <= 1
        for kind, n in (("fragmented", 23), ("atomic", 31), ("scattered", 7)):
            per = np.bincount(folds.fold[r][types == kind], minlength=5)
            assert set(per.tolist()) <= {n // 5, n // 5 + 1}


def test_the_order_of_the_file_changes_nothing():
    qs = queries(20, 20, 3)
    first = by_id(qs, assign_folds(qs, 5, 3, seed=4))
    for shuffle_seed in (1, 2):
        shuffled = qs[:]
        random.Random(shuffle_seed).shuffle(shuffled)
        assert by_id(shuffled, assign_folds(shuffled, 5, 3, seed=4)) == first


def test_repeats_and_seeds_give_other_assignments():
    qs = queries(30, 30)
    folds = assign_folds(qs, 5, 3, seed=0)
    assert not np.array_equal(folds.fold[0], folds.fold[1])
    again = assign_folds(qs, 5, 2, seed=1)
    assert np.array_equal(again.fold[0], folds.fold[1])  # repeat r uses seed + r


def test_training_rows_hold_each_query_out_once_per_repeat():
    qs = queries(12, 13)
    folds = assign_folds(qs, 5, 2)
    train = folds.training()
    assert train.shape == (10, 25)
    held = folds.held_row()
    for r in range(2):
        block = ~train[r * 5 : (r + 1) * 5]
        assert block.sum(axis=0).tolist() == [1] * 25
        assert (np.argmax(block, axis=0) + r * 5).tolist() == held[r].tolist()


def test_few_queries_lower_k_and_too_few_are_refused():
    assert assign_folds(queries(12, 12), 5).k == 4  # 24 queries: 5 folds need 25
    assert assign_folds(queries(12, 12), 5).asked == 5
    with pytest.raises(SettingsError, match="at least 10 labelled queries"):
        assign_folds(queries(4, 5), 5)
    dup = queries(6, 6)
    dup[1] = dup[0]
    with pytest.raises(SettingsError, match="own id"):
        assign_folds(dup, 2)
    with pytest.raises(SettingsError, match="at least 2 folds"):
        assign_folds(queries(6, 6), 1)


def test_nested_rows_hold_out_the_outer_fold_and_one_inner_fold():
    qs = queries(12, 13)
    folds = assign_folds(qs, 4, 2)
    rows = np.vstack([folds.training(), folds.inner_training()])
    assert rows.shape == (2 * 4 + 2 * 4 * 3, 25)
    nested = folds.nested_row()
    for r in range(2):
        for f in range(4):
            for q in range(25):
                train = rows[nested[r, f, q]]
                g = folds.fold[r, q]
                assert not train[q]  # q is never trained on where it is read
                assert not train[folds.fold[r] == f].any()  # nor is outer fold f
                # trained on everything else of repeat r
                assert train[(folds.fold[r] != f) & (folds.fold[r] != g)].all()
                if g == f:
                    assert nested[r, f, q] == folds.held_row()[r, q]


def test_two_folds_cannot_nest():
    folds = assign_folds(queries(6, 6), 5)
    assert folds.k == 2 and not folds.nestable
    assert folds.inner_training().shape == (0, 12)
