"""A corpus evaluation broken down by file: each file's queries, and each policy's recall and
mean chunks on them.

A query belongs to the file its evidence is in (``GoldQuery.gold_refs``); a query whose
evidence spans two or more files (scattered across files) is counted under
:data:`SEVERAL_FILES`. An evaluation on a single document has no breakdown.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from scar_viz.evaluation.run import Evaluation

SEVERAL_FILES = "(evidence in several files)"

Rows = list[dict[str, object]]


def query_file(refs: tuple[tuple[str, int], ...]) -> str:
    """The file a query's gold chunks are in, or :data:`SEVERAL_FILES`."""
    files = {path for path, _ in refs}
    return next(iter(files)) if len(files) == 1 else SEVERAL_FILES


def file_rows(ev: Evaluation, policies: list[str] | None = None) -> Rows:
    """One row per file holding evidence (in path order, :data:`SEVERAL_FILES` last): its
    number of queries, and for each policy that ran its mean recall and mean chunks over
    them. Empty when the evaluation is not on a corpus."""
    if not any(gq.gold_refs for gq in ev.queries):
        return []
    names = [n for n in (policies or list(ev.policies)) if not ev.policies[n].error]
    members: dict[str, list[int]] = defaultdict(list)
    for qi, gq in enumerate(ev.queries):
        members[query_file(gq.gold_refs)].append(qi)
    order = sorted(members, key=lambda f: (f == SEVERAL_FILES, f))
    rows: Rows = []
    for path in order:
        idx = members[path]
        row: dict[str, object] = {"file": path, "queries": len(idx)}
        for name in names:
            outcomes = ev.policies[name].outcomes
            row[f"{name} recall"] = float(np.mean([outcomes[i].recall for i in idx]))
            row[f"{name} chunks"] = float(np.mean([outcomes[i].chunks for i in idx]))
        rows.append(row)
    return rows
