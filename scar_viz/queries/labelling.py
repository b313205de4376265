"""The labelled-query format explained in the app, and a query set built while exploring.

:data:`QUERY_FORMAT` documents the corpus format (what :mod:`scar_viz.queries.reading` reads);
:data:`TEMPLATE_JSONL` is a file to fill in; :func:`worked_example` a few valid lines on the
built-in sample. :func:`add_query` turns (question, evidence text or span) into a validated
:class:`~scar_viz.queries.reading.LabelledQuery` with true offsets, and :func:`to_jsonl` writes
a set back in the corpus format, so the Evaluation lab can use what a user labelled in the
Explorer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from scar_viz.chunking.base import Chunk
from scar_viz.common.errors import UserError
from scar_viz.documents import samples
from scar_viz.documents.reading import Document
from scar_viz.queries.evidence import Evidence, EvidenceError, in_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import LabelledQuery

QUERY_FORMAT = """\
**Labelled queries: JSON Lines, UTF-8, one query a line.**

```json
{"id": "q-01", "query": "What happens if …?", "type": "fragmented",
 "evidence": [{"text": "<exact passage of the document>", "start": 7453, "end": 7928}]}
```

- `id`: unique in the file; `query`: the question.
- `evidence`: one or more passages that answer it. `text` is copied exactly from the
  document; `start`/`end` are character offsets (end exclusive), so
  `document[start:end] == text`. When the offsets are missing or wrong but the text occurs
  exactly once, the app finds it and says so.
- `type` (optional): `fragmented` or `atomic`. The app recomputes it for the current
  chunking, so it may be left out.
- Other fields (`answer`, `note`) are kept for you and ignored by the app.
"""
"""Markdown for the page: the corpus query format in a user's words."""

TEMPLATE_JSONL = (
    json.dumps(
        {
            "id": "q-01",
            "query": "Your question about the document?",
            "evidence": [
                {"text": "Paste the passage that answers it, exactly as in the document."}
            ],
        },
        ensure_ascii=False,
    )
    + "\n"
)
"""A one-line file to fill in (offsets left out: the app locates a passage that occurs once)."""


class LabelError(UserError, ValueError):
    """A question or evidence that cannot become a labelled query; the message says why."""


def worked_example(key: str | None = None, ids: Sequence[str] = ()) -> str:
    """A few lines of the built-in sample's own query file (one fragmented, one atomic by
    default, or ``ids``), in the corpus format; they validate against the sample."""

    key = key or samples.DEFAULT_SAMPLE
    rows = [
        json.loads(line) for line in samples.sample_queries_text(key).splitlines() if line.strip()
    ]
    if ids:
        chosen = [r for r in rows if r["id"] in ids]
    else:
        chosen = [
            next(r for r in rows if r.get("type") == kind)
            for kind in ("fragmented", "atomic")
            if any(r.get("type") == kind for r in rows)
        ]
    fields = ("id", "query", "type", "evidence", "answer")
    return "".join(
        json.dumps({f: r[f] for f in fields if f in r}, ensure_ascii=False) + "\n" for r in chosen
    )


def _pattern(evidence: str) -> re.Pattern[str]:
    words = evidence.split()
    return re.compile(r"\s+".join(re.escape(w) for w in words))


def locate_evidence(text: str, evidence: str | tuple[int, int]) -> Evidence:
    """The evidence as a span of ``text``: a (start, end) pair, or a passage found exactly or,
    failing that, with any run of whitespace matching any other (line breaks, double spaces).

    Raises:
        LabelError: when the span is out of range or blank, or the passage is blank, not in
            the document, or occurs more than once (then a longer passage is needed).
    """
    if isinstance(evidence, tuple):
        start, end = (int(x) for x in evidence)
        if not 0 <= start < end <= len(text):
            raise LabelError(f"The span {start}–{end} is not inside the document (0–{len(text)}).")
        if not text[start:end].strip():
            raise LabelError(f"The span {start}–{end} holds only whitespace.")
        return Evidence(text[start:end], start, end)
    passage = evidence.strip()
    if not passage:
        raise LabelError("The evidence is empty: paste the passage that answers the question.")
    hits = [(m.start(), m.end()) for m in re.finditer(re.escape(passage), text)]
    if not hits:
        hits = [(m.start(), m.end()) for m in _pattern(passage).finditer(text)]
    if not hits:
        first = " ".join(passage.split()[:8])
        raise LabelError(
            f"The evidence does not occur in the document (first words: “{first}”); copy it "
            "from the document's text."
        )
    if len(hits) > 1:
        raise LabelError(
            f"The evidence occurs {len(hits)} times in the document; select a longer passage "
            "so that it occurs once."
        )
    start, end = hits[0]
    return Evidence(text[start:end], start, end)


def add_query(
    queries: Sequence[LabelledQuery],
    document: Document,
    question: str,
    evidence: str | tuple[int, int] | Sequence[str | tuple[int, int]],
    qid: str | None = None,
) -> tuple[LabelledQuery, ...]:
    """``queries`` with one more: ``question`` and its evidence located in ``document`` (in a
    corpus each span also names its file).

    ``evidence`` is a passage, a (start, end) span, or a list of them. The id defaults to
    ``session-NN`` (the first free number). Asking the same question again replaces it.

    Raises:
        LabelError: for a blank question, a taken id, or evidence that cannot be located.
    """
    question = " ".join(question.split())
    if not question:
        raise LabelError("Type the question first.")
    items = [evidence] if isinstance(evidence, str | tuple) else list(evidence)
    if not items:
        raise LabelError("Give at least one evidence passage.")
    try:
        spans = tuple(in_document(document, locate_evidence(document.text, item)) for item in items)
    except EvidenceError as exc:
        raise LabelError(f"The passage cannot be evidence: {exc}") from exc
    kept = [q for q in queries if q.query != question]
    ids = {q.id for q in kept}
    if qid is None:
        n = 1
        while f"session-{n:02d}" in ids:
            n += 1
        qid = f"session-{n:02d}"
    elif qid in ids:
        raise LabelError(f"The id '{qid}' is already used in this query set.")
    return (*kept, LabelledQuery(qid, question, spans, None, len(kept) + 1))


def to_jsonl(
    queries: Sequence[LabelledQuery],
    document: Document | None = None,
    chunks: Sequence[Chunk] = (),
) -> str:
    """The queries as JSON Lines in the corpus format; with ``document`` and ``chunks`` each
    line gets the ``type`` of its evidence under that chunking (else the declared type)."""
    types: dict[str, str] = {}
    if document is not None and chunks:
        types = {g.id: g.type for g in label_queries(queries, document, chunks)}
    rows = (q.as_row(types.get(q.id)) for q in queries)
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
