"""The landing's first lines (the Explorer on the built-in sample): one sentence that names
boundary fragmentation with the sample's own cut, the two chunks that split the lesson
question's answer (as the lesson's step 1 shows them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scar_viz.chunking.base import Chunk
from scar_viz.documents import samples
from scar_viz.documents.reading import Document
from scar_viz.queries.reading import parse_queries
from scar_viz.teaching.lesson import LESSON_QUERY, fragment_pair

LESSON_MINUTES = 10
"""How long the lesson takes: four steps, four predict-and-reveal rounds (stated once, on the
way to it)."""


@dataclass(frozen=True)
class SampleCut:
    """The lesson question and the two chunks whose boundary splits its answer."""

    question: str
    left: int
    right: int

    def sentence(self) -> str:
        """Markdown: what boundary fragmentation is, on this cut."""
        return (
            f"**Boundary fragmentation**: the chunker cut the answer to “{self.question}” "
            f"between chunk {self.left} and chunk {self.right}, so a retriever that returns "
            "one of them sends half the answer; the gate decides which neighbours to add."
        )


def sample_cut(sample: str, document: Document, chunks: Sequence[Chunk]) -> SampleCut | None:
    """The lesson question's cut under ``chunks`` of the built-in sample ``sample`` (its
    ``document``): None for another sample, or when one chunk holds the whole answer."""
    if sample != samples.DEFAULT_SAMPLE:
        return None
    found = parse_queries(samples.sample_queries_text(sample), document)
    query = next((q for q in found.queries if q.id == LESSON_QUERY), None)
    if query is None or not query.evidence:
        return None
    evidence = query.evidence[0]
    pair = fragment_pair(chunks, evidence.start, evidence.end)
    if pair is None:
        return None
    return SampleCut(query.query, pair.left, pair.right)
