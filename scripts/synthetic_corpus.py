"""The synthetic corpus the scale benchmarks generate from a fixed seed (``corpus_scale.py``,
``page_times.py --corpus``, ``sentence_estimate.py``, ``store_scale.py``, ``verdict.py`` in
``benchmarks/``): each file mixes a topic vocabulary of its own with :data:`COMMON` words, so
the ``hash`` embedder (no model weights) sees structure; and :func:`make_zip`, a corpus as a
user uploads it. Here, not in one of the benchmarks,
because a benchmark never imports another (docs/architecture.md, "How the app is packaged").
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

# numpy and scar_viz are imported inside the functions: page_times.py imports the constants at
# its top, before it sets its cache folder and before the page it times imports anything

CORPUS_FILES, CORPUS_CHUNKS_PER_FILE, CORPUS_SIZE, CORPUS_OVERLAP = 90, 10, 650, 65
"""The corpus ``page_times.py --corpus`` times the pages on (and ``sentence_estimate.py``
measures): files, chunks per file, chunk size and overlap."""

COMMON = tuple(
    [
        "the",
        "a",
        "of",
        "to",
        "and",
        "in",
        "is",
        "for",
        "on",
        "with",
        "as",
        "by",
        "that",
        "this",
        "it",
        "be",
        "are",
        "from",
        "at",
        "or",
        "an",
        "which",
        "system",
        "value",
        "when",
        "each",
        "must",
        "may",
        "can",
        "not",
        "all",
        "one",
        "two",
        "data",
        "time",
        "new",
        "used",
        "use",
        "other",
        "more",
    ]
)


def _file_text(rng: np.random.Generator, topic: list[str], chars: int) -> str:
    words, size = [], 0
    while size < chars:
        pool = topic if rng.random() < 0.45 else list(COMMON)
        word = pool[int(rng.integers(len(pool)))]
        words.append(word)
        size += len(word) + 1
        if rng.random() < 0.07:
            words[-1] += "."
        if rng.random() < 0.01:
            words.append("\n\n")
    return " ".join(words)


def build_corpus(files: int, chunks_per_file: int, seed: int = 7):
    """(corpus Document, per-file texts): ``files`` files of about ``chunks_per_file`` chunks."""
    import numpy as np

    from scar_viz.documents.corpus import join_documents
    from scar_viz.documents.reading import document_from_text

    rng = np.random.default_rng(seed)
    syllables = ["ka", "to", "ri", "me", "su", "lo", "na", "vi", "de", "pa", "gu", "zo"]
    docs = []
    for i in range(files):
        topic = [
            "".join(syllables[int(j)] for j in rng.integers(len(syllables), size=3))
            for _ in range(40)
        ]
        text = _file_text(rng, topic, chunks_per_file * 560)
        docs.append(document_from_text(f"kb/{i // 100:02d}/file{i:04d}.md", text))
    return join_documents(docs, "synthetic")


def make_queries(corpus, n: int, seed: int = 11) -> str:
    """JSON Lines: ``n`` queries, each quoting a 160-character passage of one file (``doc``)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    lines = []
    for qi in range(n):
        part = corpus.parts[int(rng.integers(len(corpus.parts)))]
        text = corpus.text[part.start : part.end]
        start = int(rng.integers(0, max(1, len(text) - 200)))
        start = text.find(" ", start) + 1
        passage = text[start : start + 160].strip()
        start = text.find(passage, start)
        words = [w.strip(".") for w in passage.split() if w.strip(".") not in COMMON]
        query = " ".join(words[:8]) or passage[:40]
        evidence = {"doc": part.path, "text": passage, "start": start, "end": start + len(passage)}
        lines.append(json.dumps({"id": f"q{qi:04d}", "query": query, "evidence": [evidence]}))
    return "\n".join(lines) + "\n"


def make_zip(files: dict[str, bytes] | dict[str, str]) -> bytes:
    """A deflated zip archive holding ``files`` (name → bytes or text): a corpus as a user
    uploads it (the tests' archives and ``corpus_upload.py``'s)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()
