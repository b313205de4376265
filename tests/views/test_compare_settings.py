"""Compare's knobs, written once: the page's widgets and ``select``'s options from one
declaration (scar_viz/views/compare_settings.py)."""

from __future__ import annotations

import inspect

from scar_viz.common.knobs import cli_fields, knob_fields, option_dest
from scar_viz.policies import POLICIES, policy_knobs
from scar_viz.views.compare_settings import CompareSettings


def test_the_page_draws_the_same_widgets_in_the_same_order():
    names = [f.name for f, _ in knob_fields(CompareSettings)]
    assert names == [
        "w",
        "n_candidates",
        "reranker",
        "level",
        "rse_preset",
        "ratio",
        "sentence_w",
        "all_windows",
    ]
    keys = [k.key for _, k in knob_fields(CompareSettings)]
    assert keys == ["w", "nc", "rr", "plevel", "rse_preset", "am_ratio", "sw", "qaw"]


def test_every_option_is_a_knob_its_policies_take():
    options = cli_fields(CompareSettings)
    assert len(options) == 15
    for f, option in options:
        for policy in option.only or (option.policy,):
            assert option_dest(f) in policy_knobs(policy), (f.name, policy)
    dests = [option_dest(f) for f, _ in options]
    assert len(set(dests)) == len(dests)
    assert dict((f.name, option_dest(f)) for f, _ in options)["rse_preset"] == "preset"


def test_option_defaults_are_the_policies_own():
    # n_candidates 0 is the page's "4·k", which the policy spells None; RSE's None: the preset's
    for f, option in cli_fields(CompareSettings):
        if f.name == "n_candidates":
            continue
        param = inspect.signature(POLICIES[option.policy]).parameters[option_dest(f)]
        assert param.default == f.default, f.name
