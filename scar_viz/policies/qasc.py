"""The QASC policy: sentences of the document, embedded with the query's model, then QASC.

Sentence embeddings come from ``inputs.embed``, which goes through the on-disk embedding cache,
so a document's sentences are encoded once per model; later queries only look them up.
"""

from __future__ import annotations

import time

from scar_viz.errors import SettingsError
from scar_viz.knobs import from_values, knob_fields
from scar_viz.policies.base import PolicyResult, QueryInputs, register, span_result
from scar_viz.qasc import QascParams, qasc_select, sentence_scores
from scar_viz.sentences import paragraph_spans, sentence_spans


@register("qasc", knobs=tuple(f.name for f, _ in knob_fields(QascParams)))
def qasc_policy(inputs: QueryInputs, splitter: str = "pysbd", **knobs: object) -> PolicyResult:
    """QASC (METHODS.md §5) on ``inputs.document``; ``knobs`` are :class:`QascParams` fields.

    Its time covers the sentence split (memoised per text), the sentence vectors (a cache
    look-up after the first query, an encoding before) and every QASC step.

    Raises:
        ValueError: when ``inputs.embed`` is missing or a knob is out of range.
    """
    t0 = time.perf_counter()
    if inputs.embed is None:
        raise SettingsError("QASC needs the embedding model to embed the document's sentences.")
    params = from_values(QascParams, knobs)
    params.validate()
    text = inputs.document.text
    sentences = sentence_spans(text, splitter)
    if not sentences:
        raise SettingsError("The document has no sentences to chunk.")
    vecs = inputs.embed([text[s:e] for s, e in sentences])
    scores = sentence_scores(vecs, inputs.query_vec)
    res = qasc_select(sentences, scores, paragraph_spans(text), params)
    mode = (
        f"adaptive (θ_x = {res.expand_threshold:.3f}, ≤ {params.max_m}/side)"
        if params.adaptive
        else f"fixed m = {params.window_m}"
    )
    notes = [
        f"{len(sentences)} sentences; {len(res.seeds)} seeds at s ≥ θ = {res.threshold:.3f} "
        f"(p{params.percentile:g}); window {mode}; {len(res.kept)}/{len(res.windows)} windows "
        f"with W > {params.keep_ratio:g}·θ = {res.keep_bar:.3f}; {len(res.merged)} after merging."
    ]
    if res.unsnapped:
        notes.append(
            f"{res.unsnapped} boundaries stayed at a sentence: the paragraph break is "
            f"more than {params.snap_chars} characters away."
        )
    if not res.spans:
        notes.append("No window scored above the keep bar: QASC sends nothing for this query.")
    if res.threshold <= 0:
        notes.append("θ ≤ 0: the keep bar 0.6·θ is then above θ itself.")
    return span_result("qasc", inputs, res.spans, t0, notes=notes, detail=res)
