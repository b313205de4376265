"""Built-in sample documents, shipped inside the package, with their labelled questions."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from scar_viz.documents.reading import Document, document_from_text


@dataclass(frozen=True)
class Sample:
    key: str
    title: str
    filename: str
    demo_ids: tuple[str, ...] = ()

    @property
    def queries_filename(self) -> str:
        return self.filename.rsplit(".", 1)[0] + ".queries.jsonl"


SAMPLES: dict[str, Sample] = {
    "harbor": Sample(
        "harbor",
        "Harbour operations handbook (built-in sample)",
        "harbor_manual.md",
        demo_ids=("harbor-f-01", "harbor-f-04", "harbor-f-02", "harbor-a-03"),
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


def load_sample(key: str = DEFAULT_SAMPLE) -> Document:
    sample = SAMPLES[key]
    return document_from_text(sample.filename, _read(sample.filename))


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
