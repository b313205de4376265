"""Is the question in the model's language? A notice when it likely is not.

A question in a language the model was not trained on still gets cosines, just meaningless
ones (a Japanese question against the English default model scores about 0.09 everywhere), and
nothing on the page would say so. Three signals, any one enough:

- **unknown tokens** (WordPiece models, e.g. the default all-MiniLM-L6-v2): the share of the
  question's word pieces the vocabulary maps to ``[UNK]`` is at least :data:`UNKNOWN_SHARE`;
- **script**: at least :data:`FOREIGN_SHARE` of the question's letters are in a script
  (Latin, Cyrillic, CJK, Hiragana, …) that makes up under :data:`RARE_SCRIPT` of the
  document's letters: the check for models without a vocabulary (hash, static, remote);
- **low best cosine** (when the document's :class:`UsualCosine` is given): the question's
  best cos(q,c) is under the usual's :attr:`~UsualCosine.bar`, the usual best cosine less a
  margin of :data:`LOW_COS_SHARE` of it. Alone it says "another language or off-topic": an
  English question about bread fires it too.

The usual is measured once per document and model by :func:`usual_cosine` on reference
questions (the page uses the document's starter questions): the median of their best cosines
against the chunks. On the bundled sample the default model's usual is 0.536 (bar 0.268): its
24 labelled questions score 0.416 or more, a Japanese question 0.057, German 0.128, "How do I
bake sourdough bread?" 0.121. A margin proportional to the usual follows a model's spread
(docs/method.md §2); a model whose cosines all sit high (a large offset) seldom falls under
it, so this signal errs towards silence, and the script and vocabulary signals still speak.

:func:`language_notice` and :func:`usual_cosine` are pure (strings, numbers and arrays in,
frozen dataclasses or None out); :func:`model_tokens` reads a local model folder's
``tokenizer.json`` when there is one.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

UNKNOWN_SHARE = 0.25
"""A question with this share of ``[UNK]`` word pieces is likely not in the model's language."""
FOREIGN_SHARE = 0.5
"""A question with this share of its letters in a script rare in the document gets a notice."""
RARE_SCRIPT = 0.01
"""A script is rare in the document under this share of its letters."""
LOW_COS_SHARE = 0.5
"""The margin under the usual best cosine, as a share of it: a best cosine under half the
usual is far below the usual."""
_SAMPLE = 50_000  # document letters looked at, evenly spread, for the script profile
_SPECIAL = {"[CLS]", "[SEP]", "[PAD]", "<s>", "</s>", "<pad>"}


@dataclass(frozen=True)
class LanguageNotice:
    """Why the question is likely not in the model's language: ``message`` is a sentence for
    the page; the figures behind it are kept for tests and reports."""

    message: str
    foreign_share: float
    scripts: tuple[str, ...]
    unknown_share: float | None
    best_cos: float | None


@dataclass(frozen=True)
class UsualCosine:
    """What questions on a document usually score (:func:`usual_cosine`): ``best`` is the
    median over ``questions`` reference questions of their best cos(q,c)."""

    best: float
    questions: int

    @property
    def margin(self) -> float:
        """How far under :attr:`best` a question's best cosine may fall before the notice:
        :data:`LOW_COS_SHARE` × :attr:`best`."""
        return LOW_COS_SHARE * self.best

    @property
    def bar(self) -> float:
        """A best cosine under this is far below the usual: ``best − margin``."""
        return self.best - self.margin


def usual_cosine(question_vectors: np.ndarray, unit: np.ndarray) -> UsualCosine | None:
    """The usual best cosine of reference questions against a document's chunks.

    Args:
        question_vectors: (questions × dim) unit vectors of questions on the document, e.g.
            its starter questions (:func:`scar_viz.documents.starters.starter_questions`).
        unit: (chunks × dim) unit chunk vectors.

    Returns:
        None without questions or chunks, or when the usual best is not positive (no scale
        to measure a fall against).
    """
    q = np.asarray(question_vectors, dtype=float)
    c = np.asarray(unit, dtype=float)
    if q.ndim != 2 or c.ndim != 2 or not len(q) or not len(c):
        return None
    best = float(np.median((q @ c.T).max(axis=1)))
    return UsualCosine(best, len(q)) if best > 0 else None


def script_of(ch: str) -> str:
    """The script a letter is written in, from its Unicode name: ``"LATIN"``, ``"CJK"``,
    ``"HIRAGANA"``, ``"CYRILLIC"``…; ``""`` for a character that is not a letter."""
    if not ch.isalpha():
        return ""
    name = unicodedata.name(ch, "")
    return name.split(" ", 1)[0] if name else "OTHER"


def script_shares(text: str, limit: int | None = None) -> dict[str, float]:
    """Each script's share of the letters of ``text`` (at most ``limit`` letters, evenly
    spread, looked at); empty when ``text`` has no letters."""
    if limit and len(text) > limit:
        text = text[:: len(text) // limit + 1]
    counts = Counter(s for s in map(script_of, text) if s)
    total = sum(counts.values())
    return {s: n / total for s, n in counts.items()} if total else {}


def _script_name(script: str) -> str:
    return script if script == "CJK" else script.title()


def unknown_share(tokens: Sequence[str], unknown: str = "[UNK]") -> float:
    """The share of ``tokens`` (special tokens such as ``[CLS]`` left out) that are ``unknown``;
    0.0 for no tokens."""
    words = [t for t in tokens if t not in _SPECIAL]
    return sum(t == unknown for t in words) / len(words) if words else 0.0


def language_notice(
    question: str,
    document_text: str,
    *,
    tokens: Sequence[str] | None = None,
    best_cos: float | None = None,
    usual: UsualCosine | None = None,
) -> LanguageNotice | None:
    """A notice when ``question`` is likely not in the model's (and the document's) language.

    Args:
        question: the typed question.
        document_text: the document's text (its letters' scripts are the reference).
        tokens: the question's word pieces from the model's tokenizer (:func:`model_tokens`),
            or None for a model without a vocabulary.
        best_cos: the question's best cos(q,c), quoted in the message.
        usual: what questions on this document usually score (:func:`usual_cosine`); with
            ``best_cos``, the low-cosine signal.

    Returns:
        None when no signal fires (see the module docstring), else the notice.
    """
    letters = [s for s in map(script_of, question) if s]
    doc = script_shares(document_text, _SAMPLE)
    foreign = [s for s in letters if doc.get(s, 0.0) < RARE_SCRIPT] if doc else []
    foreign_share = len(foreign) / len(letters) if letters else 0.0
    unk = unknown_share(tokens) if tokens is not None else None
    low = best_cos is not None and usual is not None and best_cos < usual.bar
    by_script = foreign_share >= FOREIGN_SHARE
    by_vocab = unk is not None and unk >= UNKNOWN_SHARE
    if not (by_script or by_vocab or low):
        return None
    scripts = tuple(s for s, _ in Counter(foreign).most_common())
    reasons = []
    if by_script:
        names = " and ".join(_script_name(s) for s in scripts[:2])
        kind = "scripts" if len(scripts) > 1 else "a script"
        reasons.append(
            f"{foreign_share:.0%} of its letters are {names}, {kind} the document hardly uses"
        )
    if by_vocab:
        reasons.append(f"the model does not know {unk:.0%} of its word pieces")
    if low:
        assert usual is not None  # low needs it
        reasons.append(
            f"its best cosine {best_cos:.3f} is far below the usual {usual.best:.3f} of "
            f"questions on this document (under {usual.bar:.3f}, {LOW_COS_SHARE:.0%} of it)"
        )
    cos = f" (best cos {best_cos:.3f})" if best_cos is not None and not low else ""
    if by_script or by_vocab:
        message = (
            "This question is likely not in the model's language: "
            + "; ".join(reasons)
            + f". Its cosines{cos} say little about relevance; ask in the document's language "
            "or use a multilingual model."
        )
    else:
        message = (
            "This question may be in another language than the model's, or off-topic for "
            f"this document: {reasons[0]}. Its top chunks may not be relevant at all."
        )
    return LanguageNotice(message, foreign_share, scripts, unk, best_cos)


def model_tokens(name_or_path: str | None, text: str) -> tuple[str, ...] | None:
    """``text``'s word pieces from the ``tokenizer.json`` of a local WordPiece model folder
    (one with an ``[UNK]`` token, as the default model's), or None when there is none."""
    tokenizer = _tokenizer(str(name_or_path)) if name_or_path else None
    return tuple(tokenizer.encode(text).tokens) if tokenizer is not None else None


@lru_cache(maxsize=4)
def _tokenizer(folder: str):
    path = Path(folder) / "tokenizer.json"
    if not path.is_file():
        return None
    try:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(path))
    except Exception:  # a missing package or an unreadable file: no vocabulary signal
        return None
    if tokenizer.token_to_id("[UNK]") is None:
        return None
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer
