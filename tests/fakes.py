"""Test doubles that are real things: a local HTTP server that speaks the embeddings API, and
tiny random BERT models saved to a folder (no download)."""

from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np

from tests.fake_http import JsonServer, send_json, send_raw

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


class EmbeddingsServer(JsonServer):
    """An OpenAI-compatible ``POST /v1/embeddings`` on 127.0.0.1 with a switchable ``mode``:
    ok, 401, 429, slow, malformed, wrong-dims, mixed-dims. Records each request's headers."""

    def __init__(self, dim: int = 8) -> None:
        self.dim = dim
        self.mode = "ok"
        super().__init__()

    def respond(self, handler, body: dict, n: int) -> None:
        mode = self.mode
        if mode == "401":
            return send_json(
                handler,
                401,
                {
                    "error": {
                        "message": "Incorrect API key provided",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
            )
        if mode == "429":
            return send_json(
                handler,
                429,
                {
                    "error": {
                        "message": "Rate limit reached",
                        "type": "requests",
                        "code": "rate_limit",
                    }
                },
            )
        if mode == "slow":
            time.sleep(3)
        if mode == "malformed":
            raw = b'{"object": "list", "data": [{"embedding": [0.1, 0.2'
            return send_raw(handler, 200, raw)
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = []
        for i, text in enumerate(texts):
            dim = self.dim + (1 if mode == "mixed-dims" and i % 2 else 0)
            dim = self.dim * 2 if mode == "wrong-dims" else dim
            rng = np.random.default_rng(abs(hash(text)) % 2**32)
            data.append(
                {
                    "object": "embedding",
                    "index": i,
                    "embedding": rng.normal(size=dim).round(6).tolist(),
                }
            )
        return send_json(
            handler,
            200,
            {
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": 1, "total_tokens": 1},
            },
        )


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


def make_pdf(text: str | None, password: str | None = None) -> bytes:
    """A one-page PDF: with ``text`` in its text layer, blank without; encrypted with a password."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    page = writer.add_blank_page(width=300, height=300)
    if text is not None:
        font = DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
        )
        stream = DecodedStreamObject()
        stream.set_data(f"BT /F1 12 Tf 20 250 Td ({text}) Tj ET".encode())
        page[NameObject("/Contents")] = writer._add_object(stream)
    if password:
        writer.encrypt(password, algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()
