"""Other tools' indexes written by someone else: every field of a LangChain dump or a LlamaIndex
storage is checked (type, then range) before anything is sized from it, so a hostile store is
one sentence (a ``StoreError``) and never a traceback, whatever field is wrong; an offset of
300,000,000 is refused before a buffer of its size is made."""

from __future__ import annotations

import copy
import json
import tracemalloc
from pathlib import Path

import pytest

from scar_viz.common.errors import UserError
from scar_viz.store import StoreError
from scar_viz.store.other_tools import read_foreign

HUGE = "9" * 400
"""A JSON integer of 400 digits: beyond a float's range."""


def _lang_entry(key: str, start: int, text: str) -> dict:
    return {
        "id": key,
        "vector": [1.0, 0.5, 0.0, float(start % 3)],
        "text": text,
        "metadata": {"start_index": start, "source": "notes.md"},
    }


LANG = {
    "a": _lang_entry("a", 0, "Boats leave at dawn."),
    "b": _lang_entry("b", 21, "They come back at dusk."),
}


def _llama_node(node_id: str, start: int, text: str) -> dict:
    return {
        "__type__": "1",
        "__data__": {
            "text": text,
            "start_char_idx": start,
            "end_char_idx": start + len(text),
            "metadata": {"source": "notes.md"},
            "relationships": {"1": {"node_id": "doc"}, "3": {"node_id": "n2"}},
        },
    }


LLAMA = {
    "docstore/data": {
        "n1": _llama_node("n1", 0, "Boats leave at dawn."),
        "n2": _llama_node("n2", 21, "They come back at dusk."),
    }
}
VECTORS = {"embedding_dict": {"n1": [1.0, 0.0, 0.5, 0.0], "n2": [0.0, 1.0, 0.5, 0.0]}}


def _set(data: dict, path: tuple, value: object) -> dict:
    out = copy.deepcopy(data)
    here = out
    for key in path[:-1]:
        here = here[key]
    here[path[-1]] = value
    return out


LANG_CASES = {
    "entry is a list": _set(LANG, ("b",), ["id", "b"]),
    "text is a number": _set(LANG, ("b", "text"), 7),
    "metadata is a list": _set(LANG, ("b", "metadata"), [1, 2]),
    "metadata is null": _set(LANG, ("b", "metadata"), None),
    "start_index is text": _set(LANG, ("b", "metadata", "start_index"), "21"),
    "start_index is true": _set(LANG, ("b", "metadata", "start_index"), True),
    "start_index is negative": _set(LANG, ("b", "metadata", "start_index"), -5),
    "start_index is 300,000,000": _set(LANG, ("b", "metadata", "start_index"), 300_000_000),
    "start_index of 400 digits": _set(LANG, ("b", "metadata", "start_index"), "HUGE"),
    "end_index before start": _set(LANG, ("b", "metadata", "end_index"), 3),
    "end_index of 400 digits": _set(LANG, ("b", "metadata", "end_index"), "HUGE"),
    "end_index far past its text": _set(LANG, ("b", "metadata", "end_index"), 10_000),
    "vector is text": _set(LANG, ("b", "vector"), "1,2,3,4"),
    "vector is an object": _set(LANG, ("b", "vector"), {"0": 1}),
    "vector is nested": _set(LANG, ("b", "vector"), [[1, 2], [3, 4]]),
    "vector holds text": _set(LANG, ("b", "vector"), [1, "x", 0, 0]),
    "vector holds null": _set(LANG, ("b", "vector"), [1, None, 0, 0]),
    "vector holds booleans": _set(LANG, ("b", "vector"), [True, False, True, False]),
    "vector holds 400 digits": _set(LANG, ("b", "vector"), [1, "HUGE", 0, 0]),
    "vector holds infinity": _set(LANG, ("b", "vector"), [1, "INF", 0, 0]),
    "vector holds NaN": _set(LANG, ("b", "vector"), [1, "NAN", 0, 0]),
    "vectors of two lengths": _set(LANG, ("b", "vector"), [1, 0]),
    "vector too long": _set(LANG, ("b", "vector"), [0.5] * 70_000),
    "no vectors": _set(_set(LANG, ("a", "vector"), []), ("b", "vector"), []),
    "source is an object": _set(LANG, ("b", "metadata", "source"), {"x": 1}),
    "id is an object": _set(LANG, ("b", "id"), {"x": 1}),
    "two chunks disagree": _set(LANG, ("b", "metadata", "start_index"), 2),
    "model is a number": _set(LANG, ("b", "metadata", "embedding_model"), 5),
}

LLAMA_CASES = {
    "docstore/data is a list": _set(LLAMA, ("docstore/data",), [1]),
    "node data is text that is not JSON": _set(LLAMA, ("docstore/data", "n2", "__data__"), "{"),
    "node data is a list": _set(LLAMA, ("docstore/data", "n2", "__data__"), [1]),
    "relationships is a list": _set(
        LLAMA, ("docstore/data", "n2", "__data__", "relationships"), [1]
    ),
    "a relationship is text": _set(
        LLAMA, ("docstore/data", "n2", "__data__", "relationships", "1"), "doc"
    ),
    "a relationship names an object": _set(
        LLAMA, ("docstore/data", "n1", "__data__", "relationships", "3"), {"node_id": {"a": 1}}
    ),
    "metadata is a list": _set(LLAMA, ("docstore/data", "n2", "__data__", "metadata"), [1]),
    "start is text": _set(LLAMA, ("docstore/data", "n2", "__data__", "start_char_idx"), "21"),
    "start without an end": _set(LLAMA, ("docstore/data", "n2", "__data__", "end_char_idx"), None),
    "start is 300,000,000": _set(
        _set(LLAMA, ("docstore/data", "n2", "__data__", "start_char_idx"), 300_000_000),
        ("docstore/data", "n2", "__data__", "end_char_idx"),
        300_000_023,
    ),
    "end of 400 digits": _set(LLAMA, ("docstore/data", "n2", "__data__", "end_char_idx"), "HUGE"),
    "a document's text_resource is text": {
        "docstore/data": {
            **LLAMA["docstore/data"],
            "doc": {"__type__": "4", "__data__": {"text_resource": "x"}},
        }
    },
    "a node embeds a number": _set(LLAMA, ("docstore/data", "n2", "__data__", "embedding"), 5),
}
LLAMA_VECTOR_CASES = {
    "embedding_dict is a list": {"embedding_dict": [1, 2]},
    "a vector of 400 digits": _set(VECTORS, ("embedding_dict", "n2"), ["HUGE", 0, 0, 0]),
}


def _dump(data: object) -> str:
    text = json.dumps(data).replace('"HUGE"', HUGE).replace('"INF"', "Infinity")
    return text.replace('"NAN"', "NaN")


def _write_lang(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "dump.json"
    path.write_text(_dump(data))
    return path


def _write_llama(tmp_path: Path, data: dict, vectors: dict = VECTORS) -> Path:
    folder = tmp_path / "storage"
    folder.mkdir()
    (folder / "docstore.json").write_text(_dump(data))
    (folder / "default__vector_store.json").write_text(_dump(vectors))
    return folder


def _open(path: Path) -> str:
    """ "ok" when the store opens, else its one sentence; any other exception fails the test."""
    try:
        read_foreign(path).prepared("hash:4", "hash")
    except StoreError as exc:
        assert isinstance(exc, UserError) and "\n" not in str(exc) and len(str(exc)) < 400
        return str(exc)
    return "ok"


def test_the_unspoiled_stores_open(tmp_path):
    assert _open(_write_lang(tmp_path, LANG)) == "ok"
    assert _open(_write_llama(tmp_path, LLAMA)) == "ok"


@pytest.mark.parametrize("case", LANG_CASES)
def test_a_hostile_langchain_dump_is_one_sentence(tmp_path, case):
    _open(_write_lang(tmp_path, LANG_CASES[case]))


@pytest.mark.parametrize("case", LLAMA_CASES)
def test_a_hostile_llamaindex_storage_is_one_sentence(tmp_path, case):
    _open(_write_llama(tmp_path, LLAMA_CASES[case]))


@pytest.mark.parametrize("case", LLAMA_VECTOR_CASES)
def test_hostile_llamaindex_vectors_are_one_sentence(tmp_path, case):
    _open(_write_llama(tmp_path, LLAMA, LLAMA_VECTOR_CASES[case]))


@pytest.mark.parametrize(
    "case", ["start_index is 300,000,000", "start_index of 400 digits", "vector holds 400 digits"]
)
def test_a_huge_number_is_refused_before_anything_is_sized_from_it(tmp_path, case):
    path = _write_lang(tmp_path, LANG_CASES[case])
    tracemalloc.start()
    try:
        said = _open(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert said != "ok" and peak < 20 * 2**20  # was a 4.9 GB buffer for 300,000,000


def test_offsets_out_of_range_name_the_chunk_and_the_range(tmp_path):
    said = _open(_write_lang(tmp_path, LANG_CASES["start_index is 300,000,000"]))
    assert "chunk 'b' spans 300000000–300000023" in said and "offsets run from 0 to" in said
