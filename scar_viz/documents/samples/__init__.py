"""Built-in samples, shipped inside the package, with their labelled questions: one document
(a single file), one corpus (a folder of files, read as one joined Document with ``parts``)
and one document in Japanese (a cold-store operations manual written for the project, with 21
questions in Japanese: text without spaces, for the tokeniser of :mod:`scar_viz.common.terms`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from scar_viz.documents.corpus import join_documents
from scar_viz.documents.reading import Document, document_from_text


@dataclass(frozen=True)
class Sample:
    """A built-in sample: ``filename`` is a file (``kind`` "document") or a folder whose files,
    walked recursively, make a corpus (``kind`` "corpus"); its questions are in
    :attr:`queries_filename` beside it."""

    key: str
    title: str
    filename: str
    demo_ids: tuple[str, ...] = ()
    kind: str = "document"

    @property
    def queries_filename(self) -> str:
        stem = self.filename if self.kind == "corpus" else self.filename.rsplit(".", 1)[0]
        return stem + ".queries.jsonl"


SAMPLES: dict[str, Sample] = {
    "harbor": Sample(
        "harbor",
        "Harbour operations handbook (built-in sample)",
        "harbor_manual.md",
        demo_ids=("harbor-f-01", "harbor-f-04", "harbor-f-02", "harbor-a-03"),
    ),
    "kestrel": Sample(
        "kestrel",
        "Kestrel knowledge base (sample corpus)",
        "kestrel",
        demo_ids=("kb-f-01", "kb-f-02", "kb-a-05", "kb-s-01"),
        kind="corpus",
    ),
    "reitou": Sample(
        "reitou",
        "冷蔵・冷凍倉庫 運用手引き (Japanese sample)",
        "reitou_souko.md",
        demo_ids=("ja-f-06", "ja-f-03", "ja-f-01", "ja-a-04"),
    ),
}
DEFAULT_SAMPLE = "harbor"
UPLOAD = "upload"
"""The document id of an uploaded document (the sidebar's and the URL's ``doc``)."""


def document_name(key: str) -> str:
    """The human name of a document id: a sample's title, or "Uploaded document" for
    :data:`UPLOAD`; an unknown id is returned as is."""
    if key == UPLOAD:
        return "Uploaded document"
    sample = SAMPLES.get(key)
    return sample.title if sample else key


def _read(filename: str) -> str:
    return resources.files(__name__).joinpath(filename).read_text(encoding="utf-8")


def _walk(folder, prefix: str = "") -> list[tuple[str, str]]:
    """(relative POSIX path, text) of every file under ``folder``, recursively."""
    found: list[tuple[str, str]] = []
    for entry in folder.iterdir():
        path = f"{prefix}{entry.name}"
        if entry.is_dir():
            found.extend(_walk(entry, path + "/"))
        elif not entry.name.startswith((".", "__")):
            found.append((path, entry.read_text(encoding="utf-8")))
    return found


def sample_files(key: str) -> list[tuple[str, str]]:
    """(relative path, text) of a sample's files, by path: one for a document sample."""
    sample = SAMPLES[key]
    if sample.kind != "corpus":
        return [(sample.filename, _read(sample.filename))]
    return sorted(_walk(resources.files(__name__).joinpath(sample.filename)))


def load_sample(key: str = DEFAULT_SAMPLE) -> Document:
    """The sample's Document: a corpus sample's files joined, named by their paths."""
    sample = SAMPLES[key]
    docs = [document_from_text(path, text) for path, text in sample_files(key)]
    if sample.kind != "corpus":
        return docs[0]
    return join_documents(docs, sample.key)


def sample_queries_text(key: str = DEFAULT_SAMPLE) -> str:
    """The sample's labelled questions as JSON Lines (the corpus query format); "" if none."""
    try:
        return _read(SAMPLES[key].queries_filename)
    except FileNotFoundError:
        return ""


def sample_questions(key: str = DEFAULT_SAMPLE) -> list[dict]:
    """The sample's questions, demo questions first, as parsed JSON objects."""
    rows = [json.loads(line) for line in sample_queries_text(key).splitlines() if line.strip()]
    demos = SAMPLES[key].demo_ids
    return sorted(rows, key=lambda r: demos.index(r["id"]) if r["id"] in demos else len(demos))
