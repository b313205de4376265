"""Tiny random BERT models saved to a folder, never downloaded: an embedding model and a
cross-encoder that ``sentence_transformers`` loads like real ones.

Used by the tests and the benchmarks (``benchmarks/policy_times.py``) to run the model paths
(loading, devices, reranking) without a real model's weights; their outputs are random but
deterministic for a seed.
"""

from __future__ import annotations

from pathlib import Path

WORDS = [
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "is",
    "it",
    "for",
    "on",
    "ferry",
    "harbour",
    "crossing",
    "tide",
    "wind",
    "gust",
    "master",
    "crew",
    "vessel",
    "cancelled",
    "delay",
    "rule",
    "exception",
    "checksum",
    "segment",
    "window",
]
"""The vocabulary's whole words (WordPiece pieces of single letters cover the rest)."""


def write_vocab(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        *WORDS,
        *letters,
        *"0123456789",
        *[f"##{c}" for c in letters],
    ]
    path = folder / "vocab.txt"
    path.write_text("\n".join(vocab) + "\n")
    return path


def tiny_bert(
    folder: Path, classifier: bool = False, seed: int = 0, max_positions: int = 128
) -> Path:
    """Save a random 1-layer BERT (and its WordPiece tokenizer) to ``folder``."""
    import torch
    from transformers import (
        BertConfig,
        BertForSequenceClassification,
        BertModel,
        BertTokenizerFast,
    )

    torch.manual_seed(seed)
    vocab = write_vocab(folder)
    tokenizer = BertTokenizerFast(vocab_file=str(vocab), do_lower_case=True)
    config = BertConfig(
        vocab_size=len(vocab.read_text().split()),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=max_positions,
        num_labels=1,
    )
    model = BertForSequenceClassification(config) if classifier else BertModel(config)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def tiny_cross_encoder(folder: Path, seed: int = 0) -> Path:
    """A tiny random BERT cross-encoder that ``CrossEncoder(folder)`` loads; never downloads.

    For tests and benchmarks of the rerank path without the real reranker: its scores are
    random but deterministic.
    """
    return tiny_bert(Path(folder), classifier=True, seed=seed, max_positions=512)


def tiny_bert_with_prompts(folder: Path, prompts: dict[str, str], seed: int = 0) -> Path:
    """:func:`tiny_bert` saved as a sentence-transformers model whose config holds ``prompts``
    (as E5's or BGE's do: ``{"query": "query: ", "passage": "passage: "}``)."""
    from sentence_transformers import SentenceTransformer

    raw = tiny_bert(folder.with_name(folder.name + "-raw"), seed=seed)
    model = SentenceTransformer(str(raw), device="cpu")
    model.prompts = dict(prompts)
    model.save(str(folder))
    return folder
