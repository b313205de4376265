"""The policy comparison table: one row per policy with its cost and its overlap with a
reference policy's context."""

from __future__ import annotations

from collections.abc import Mapping

from scar_viz.common.spans import jaccard
from scar_viz.policies import PolicyResult


def comparison_rows(
    results: Mapping[str, PolicyResult | str], reference: str = "scar"
) -> list[dict[str, object]]:
    """One table row per policy: spans, chunks, characters, tokens, ms, Jaccard vs ``reference``.

    ``characters`` and ``tokens`` count the assembled context (tokens: ``o200k_base``);
    ``jaccard`` is over document characters, blank when the reference failed; a failed
    policy's row carries its message.
    """
    ref = results.get(reference)
    ref_spans = ref.spans if isinstance(ref, PolicyResult) else None
    rows: list[dict[str, object]] = []
    for name, res in results.items():
        if not isinstance(res, PolicyResult):
            rows.append(
                {
                    "policy": name,
                    "spans": None,
                    "chunks": None,
                    "characters": None,
                    "tokens": None,
                    "ms": None,
                    f"jaccard vs {reference}": None,
                    "notes": f"not available: {res}",
                }
            )
            continue
        rows.append(
            {
                "policy": res.name,
                "spans": len(res.spans),
                "chunks": None if res.chunk_ids is None else len(res.chunk_ids),
                "characters": res.chars,
                "tokens": res.tokens,
                "ms": round(res.seconds * 1000, 2),
                f"jaccard vs {reference}": None
                if ref_spans is None
                else jaccard(res.spans, ref_spans),
                "notes": " ".join(res.notes),
            }
        )
    return rows
