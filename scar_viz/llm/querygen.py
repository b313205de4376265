"""Labelled queries made from a document by a language model, validated against its text.

Fragmented queries come from chunk boundaries that cut a paragraph or a sentence (sampled
with the seed): the model sees the text on both sides of the cut and writes a question that
needs both, with the exact evidence sentences and a short reference answer. Atomic queries
come from single chunks. A generated query is kept only when

- the reply parses and holds a question and at least one evidence string;
- every evidence string occurs in the document, exactly or after collapsing whitespace
  (the true offsets are recorded, so ``text[start:end]`` is the document's own text);
- the question does not copy its evidence: at most ``max_copy`` of the question's word
  bigrams occur in the evidence (see :func:`copy_overlap`);
- it is not a duplicate (same question after normalisation, or the same evidence spans);
- a query made at a boundary crosses it: its type under the chunking is fragmented.

Each kept query's type (fragmented / atomic …) is then computed under the current chunking
with :func:`scar_viz.queries.gold.label_queries`, as for any query file. The output is the
query-file format (docs/cli.md, "Query files"), plus the reference ``answer``.
"""

from __future__ import annotations

import bisect
import json
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from scar_viz.chunking.base import Chunk
from scar_viz.chunking.config import chunk_doc_of
from scar_viz.common.edges import file_edges
from scar_viz.documents.reading import Document
from scar_viz.documents.sentences import paragraph_spans, sentence_spans
from scar_viz.llm.client import ChatModel, Progress, Usage
from scar_viz.queries.evidence import Evidence, EvidenceError, in_document
from scar_viz.queries.gold import label_queries
from scar_viz.queries.reading import LabelledQuery

DEFAULT_N = 40
DEFAULT_FRAGMENTED_SHARE = 0.5
DEFAULT_MAX_COPY = 0.6
"""Drop a question when this share of its word bigrams or more occurs in its evidence."""
SIDE_CHARS = 900
"""At most this much text on each side of a cut is shown to the model."""
MAX_ROUNDS = 3
"""Rounds of generation: a later round asks again for the queries that were dropped."""

DROP_REASONS = {
    "unparseable": "the reply could not be read as JSON with a question and evidence",
    "evidence not in document": "an evidence string occurs nowhere in the document",
    "copies its evidence": "the question repeats its evidence word for word",
    "duplicate": "the same question or evidence as a query already kept",
    "evidence outside the chunks": "the evidence lies where no chunk reaches",
    "does not cross the boundary": "a query made at a boundary whose evidence sits on one side",
}

FRAGMENTED_PROMPT = """Task: fragmented-query. You write test questions for a retrieval system.
You get two passages that are consecutive in one document: PASSAGE 2 continues exactly where
PASSAGE 1 stops. Write ONE question that can only be answered with information from BOTH
passages. Copy the evidence: the sentences needed to answer, each copied character for
character from the passages (at least one from each side; a sentence that runs across the cut
may be copied whole). Do not copy the evidence into the question. Answer with a JSON object:
{"question": "...", "evidence": ["...", "..."], "answer": "a short reference answer"}"""

ATOMIC_PROMPT = """Task: atomic-query. You write test questions for a retrieval system.
You get one passage of a document. Write ONE specific question that the passage answers.
Copy the evidence: the sentences needed to answer, each copied character for character from
the passage. Do not copy the evidence into the question. Answer with a JSON object:
{"question": "...", "evidence": ["..."], "answer": "a short reference answer"}"""


@dataclass(frozen=True)
class Source:
    """Where a request came from: a cut between chunks ``i`` and ``i + 1``, or chunk ``i``."""

    kind: str  # "fragmented" (a cut) or "atomic" (one chunk)
    chunk: int
    start: int
    end: int
    cut: int = -1

    @property
    def label(self) -> str:
        if self.kind == "fragmented":
            return (
                f"boundary between chunks {self.chunk} and {self.chunk + 1} (character {self.cut})"
            )
        return f"chunk {self.chunk}"


@dataclass(frozen=True)
class GeneratedQuery:
    """A kept query, its type under the chunking, its reference answer and its source."""

    query: LabelledQuery
    type: str
    answer: str
    source: Source

    def as_json(self) -> dict[str, object]:
        """One line of the corpus format, with the reference ``answer`` and the source."""
        return {**self.query.as_row(self.type), "answer": self.answer, "source": self.source.label}


@dataclass(frozen=True)
class Drop:
    """A generated query that was not kept, and why (a key of :data:`DROP_REASONS`)."""

    source: Source
    reason: str
    question: str
    detail: str


@dataclass(frozen=True)
class GeneratedSet:
    """The kept queries, every drop with its reason, the candidates available, the usage."""

    queries: tuple[GeneratedQuery, ...]
    drops: tuple[Drop, ...]
    n_cuts: int
    n_requested: int
    usage: Usage
    notes: tuple[str, ...] = field(default=())

    @property
    def drop_counts(self) -> dict[str, int]:
        return dict(Counter(d.reason for d in self.drops))

    @property
    def type_counts(self) -> dict[str, int]:
        return dict(Counter(q.type for q in self.queries))

    def jsonl(self) -> str:
        """The kept queries as JSON Lines (the corpus format), one query a line."""
        return "".join(json.dumps(q.as_json(), ensure_ascii=False) + "\n" for q in self.queries)

    def report(self) -> str:
        """One paragraph: kept by type and drops by reason."""
        kept = ", ".join(f"{n} {t}" for t, n in sorted(self.type_counts.items())) or "none"
        drops = "; ".join(f"{n} {r}" for r, n in sorted(self.drop_counts.items())) or "none"
        return (
            f"kept {len(self.queries)} of {self.n_requested} generated ({kept}); "
            f"dropped: {drops}; {self.n_cuts} cuts through a paragraph or sentence; "
            f"{self.usage.calls} calls ({self.usage.cached} cached), "
            f"{self.usage.total_tokens} tokens"
        )


# --- candidates -----------------------------------------------------------------------------


def _cut_units(units: Sequence[tuple[int, int]], chunks: Sequence[Chunk]) -> set[int]:
    """Boundaries i where some unit overlaps chunks i and i + 1 and fits in neither."""
    ends = [e for _, e in units]
    out = set()
    for i in range(len(chunks) - 1):
        a, b = chunks[i], chunks[i + 1]
        for s, e in units[bisect.bisect_right(ends, a.start) :]:
            if s >= b.end:
                break
            inside = (a.start <= s and e <= a.end) or (b.start <= s and e <= b.end)
            if not inside and s < a.end and e > b.start:
                out.add(i)
                break
    return out


def cut_boundaries(text: str, chunks: Sequence[Chunk]) -> list[int]:
    """Indices i whose boundary (chunks i, i + 1) cuts a paragraph or a sentence."""
    cut = _cut_units(paragraph_spans(text), chunks) | _cut_units(sentence_spans(text), chunks)
    return sorted(cut)


def _fragmented_messages(text: str, a: Chunk, b: Chunk) -> tuple[list[dict], Source]:
    cut = a.end
    lo = max(a.start, cut - SIDE_CHARS)
    hi = min(max(b.end, cut), cut + SIDE_CHARS)
    user = (
        f"PASSAGE 1 (ends at the cut):\n{text[lo:cut]}\n\n"
        f"PASSAGE 2 (starts at the cut):\n{text[cut:hi]}"
    )
    messages = [
        {"role": "system", "content": FRAGMENTED_PROMPT},
        {"role": "user", "content": user},
    ]
    return messages, Source("fragmented", a.index, lo, hi, cut)


def _atomic_messages(chunk: Chunk) -> tuple[list[dict], Source]:
    messages = [
        {"role": "system", "content": ATOMIC_PROMPT},
        {"role": "user", "content": f"PASSAGE:\n{chunk.text}"},
    ]
    return messages, Source("atomic", chunk.index, chunk.start, chunk.end)


# --- validation -----------------------------------------------------------------------------


class _Normalised:
    """The document with whitespace runs collapsed to one space, mapped back to offsets."""

    def __init__(self, text: str) -> None:
        chars: list[str] = []
        origin: list[int] = []
        for m in re.finditer(r"\s+|\S+", text):
            if m.group().isspace():
                chars.append(" ")
                origin.append(m.start())
            else:
                chars.extend(m.group())
                origin.extend(range(m.start(), m.end()))
        self.text = "".join(chars)
        self.origin = origin

    def find_all(self, needle: str) -> list[tuple[int, int]]:
        """Original (start, end) of every occurrence of ``needle`` (whitespace collapsed)."""
        probe = " ".join(needle.split())
        if not probe:
            return []
        out = []
        i = self.text.find(probe)
        while i >= 0:
            j = i + len(probe) - 1
            out.append((self.origin[i], self.origin[j] + 1))
            i = self.text.find(probe, i + 1)
        return out


def locate(text: str, norm: _Normalised, needle: str, near: int) -> tuple[int, int] | None:
    """Offsets of ``needle`` in ``text``: exact, else after collapsing whitespace; of several
    occurrences the one closest to ``near`` (the passage the model was shown)."""
    needle = needle.strip()
    if not needle:
        return None
    hits = []
    i = text.find(needle)
    while i >= 0:
        hits.append((i, i + len(needle)))
        i = text.find(needle, i + 1)
    hits = hits or norm.find_all(needle)
    if not hits:
        return None
    return min(hits, key=lambda h: abs(h[0] - near))


_TOKEN = re.compile(r"[a-z0-9]+")


def copy_overlap(question: str, evidence: Sequence[str]) -> float:
    """Share of the question's word bigrams that occur in the evidence (0 … 1)."""
    q = _TOKEN.findall(question.lower())
    grams = {tuple(q[i : i + 2]) for i in range(len(q) - 1)}
    if not grams:
        return 0.0
    ev = set()
    for e in evidence:
        w = _TOKEN.findall(e.lower())
        ev |= {tuple(w[i : i + 2]) for i in range(len(w) - 1)}
    return len(grams & ev) / len(grams)


def _normal_question(question: str) -> str:
    return " ".join(_TOKEN.findall(question.lower()))


def _check(
    data: dict | None, source: Source, text: str, norm: _Normalised, max_copy: float
) -> tuple[str, tuple[Evidence, ...], str] | Drop:
    """(question, evidence, answer) from a reply, or the :class:`Drop` that explains why not."""
    question = data.get("question") if isinstance(data, dict) else None
    items = data.get("evidence") if isinstance(data, dict) else None
    if isinstance(items, str):
        items = [items]
    if (
        not isinstance(question, str)
        or not question.strip()
        or not isinstance(items, list)
        or not items
        or not all(isinstance(e, str) and e.strip() for e in items)
    ):
        return Drop(source, "unparseable", str(question or ""), "no question or no evidence")
    question = " ".join(question.split())
    evidence = []
    for item in items:
        where = locate(text, norm, item, source.start)
        if where is None:
            words = " ".join(item.split()[:8])
            return Drop(source, "evidence not in document", question, f"not found: {words!r}")
        evidence.append(Evidence(text[where[0] : where[1]], *where))
    overlap = copy_overlap(question, [e.text for e in evidence])
    if overlap >= max_copy:
        return Drop(source, "copies its evidence", question, f"{overlap:.0%} of its bigrams")
    raw = data.get("answer") if isinstance(data, dict) else None
    answer = raw if isinstance(raw, str) else ""
    spans = sorted({(e.start, e.end) for e in evidence})
    unique = tuple(Evidence(text[s:e], s, e) for s, e in spans)
    return question, unique, " ".join(answer.split())


# --- generation -----------------------------------------------------------------------------


def _plan(
    rng: random.Random,
    cuts: list[int],
    chunks: Sequence[Chunk],
    edges: Sequence[bool] | np.ndarray,
) -> tuple[list, list]:
    """Shuffled candidate orders: the cuts first, then the other boundaries (evidence on
    either side of any boundary also makes a fragmented query; never a corpus' file edge,
    ``edges[i]``), and every chunk of 8 words or more."""
    cut_order = list(cuts)
    rng.shuffle(cut_order)
    cut_set = set(cuts)
    others = [i for i in range(len(chunks) - 1) if i not in cut_set and not edges[i]]
    rng.shuffle(others)
    chunk_order = [c.index for c in chunks if len(c.text.split()) >= 8]
    rng.shuffle(chunk_order)
    return cut_order + others, chunk_order


def generate_queries(
    document: Document,
    chunks: Sequence[Chunk],
    model: ChatModel,
    *,
    n: int = DEFAULT_N,
    fragmented_share: float = DEFAULT_FRAGMENTED_SHARE,
    seed: int = 0,
    max_copy: float = DEFAULT_MAX_COPY,
    progress: Progress | None = None,
) -> GeneratedSet:
    """Generate up to ``n`` labelled queries for ``document`` under ``chunks``.

    ``round(n · fragmented_share)`` requests go to cuts, the rest to single chunks; requests
    whose query is dropped are replaced from the next candidates, for at most
    :data:`MAX_ROUNDS` rounds, so fewer than ``n`` may be kept (the report says why).

    Args:
        progress: called as progress(done, total) over the calls of each round.

    Raises:
        ValueError: for n < 1, a share outside [0, 1] or a document without chunks.
        LLMError: when the endpoint fails (replies received so far stay cached).
    """
    if n < 1:
        raise ValueError("Ask for at least one query (--n 1 or more).")
    if not 0.0 <= fragmented_share <= 1.0:
        raise ValueError("The fragmented share must lie between 0 and 1.")
    if not chunks:
        raise ValueError("The document has no chunks to make queries from.")
    text = document.text
    norm = _Normalised(text)
    edges = file_edges(chunk_doc_of(document, chunks), len(chunks))
    cuts = [i for i in cut_boundaries(text, chunks) if not edges[i]]
    rng = random.Random(seed)
    cut_order, chunk_order = _plan(rng, cuts, chunks, edges)
    want = {"fragmented": round(n * fragmented_share), "atomic": 0}
    want["atomic"] = n - want["fragmented"]
    notes = []
    if want["fragmented"] > len(cuts):
        notes.append(
            f"only {len(cuts)} boundaries cut a paragraph or sentence and "
            f"{want['fragmented']} fragmented queries were asked for: other boundaries "
            "(paragraphs on either side) are used too"
        )
    kept: list[tuple[str, tuple[Evidence, ...], str, Source, str]] = []
    drops: list[Drop] = []
    seen_q: set[str] = set()
    seen_ev: set[tuple[tuple[int, int], ...]] = set()
    got: Counter[str] = Counter()
    requested = 0
    usage_before = model.usage
    for _ in range(MAX_ROUNDS):
        batch: list[tuple[list[dict], Source]] = []
        for _k in range(want["fragmented"] - got["fragmented"]):
            if cut_order:
                i = cut_order.pop(0)
                batch.append(_fragmented_messages(text, chunks[i], chunks[i + 1]))
        for _k in range(want["atomic"] - got["atomic"]):
            if chunk_order:
                batch.append(_atomic_messages(chunks[chunk_order.pop(0)]))
        if not batch:
            break
        requested += len(batch)
        replies = model.complete_many([m for m, _ in batch], progress=progress)
        for (_, source), reply in zip(batch, replies, strict=True):
            if not reply.ok:
                drops.append(Drop(source, "unparseable", "", reply.text[:200]))
                continue
            checked = _check(reply.data, source, text, norm, max_copy)
            if isinstance(checked, Drop):
                drops.append(checked)
                continue
            question, evidence, answer = checked
            try:
                evidence = tuple(in_document(document, e) for e in evidence)
            except EvidenceError as exc:
                drops.append(Drop(source, "evidence outside the chunks", question, str(exc)))
                continue
            spans = tuple((e.start, e.end) for e in evidence)
            if _normal_question(question) in seen_q or spans in seen_ev:
                drops.append(Drop(source, "duplicate", question, ""))
                continue
            typed = _typed(document, chunks, question, evidence, source)
            if isinstance(typed, Drop):
                drops.append(typed)
                continue
            seen_q.add(_normal_question(question))
            seen_ev.add(spans)
            kept.append((question, evidence, answer, source, typed))
            got[source.kind] += 1
    out = []
    for number, (question, evidence, answer, source, typed) in enumerate(kept, start=1):
        lq = LabelledQuery(f"gen-{number:02d}", question, evidence, None, 0)
        out.append(GeneratedQuery(lq, typed, answer, source))
    return GeneratedSet(
        tuple(out), tuple(drops), len(cuts), requested, model.usage - usage_before, tuple(notes)
    )


def _typed(
    document: Document,
    chunks: Sequence[Chunk],
    question: str,
    evidence: tuple[Evidence, ...],
    source: Source,
) -> str | Drop:
    """The query's type under ``chunks`` (:func:`label_queries`), or a :class:`Drop` when no
    chunk covers the evidence or a query made at a boundary does not cross it."""
    try:
        (gq,) = label_queries([LabelledQuery("", question, evidence, None, 0)], document, chunks)
    except ValueError as exc:
        return Drop(source, "evidence outside the chunks", question, str(exc))
    if source.kind == "fragmented" and gq.type != "fragmented":
        return Drop(source, "does not cross the boundary", question, f"{gq.type} here")
    return gq.type
