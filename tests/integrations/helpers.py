"""What the integration tests share: the frameworks (required in CI), ``select --policy
scar``'s answer as (file, chunk) pairs, and a generated multi-file corpus with exact ties."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
from pathlib import Path

import pytest

from scar_viz.cli.main import main
from scar_viz.documents import samples
from tests.conftest import in_ci

SAMPLES = Path(samples.__file__).resolve().parent
SAMPLE_DOC = SAMPLES / "harbor_manual.md"
SAMPLE_QUERIES = SAMPLES / "harbor_manual.queries.jsonl"
SAMPLE_CORPUS = SAMPLES / "kestrel"
SAMPLE_CORPUS_QUERIES = SAMPLES / "kestrel.queries.jsonl"


def require(module: str) -> None:
    """Import ``module`` (an integrations extra), or skip saying why; in CI (``CI=true``),
    where the test command installs the extra, fail instead."""
    try:
        importlib.import_module(module)
    except ImportError:
        reason = f"{module} is not installed (pip install -r requirements-integrations.txt)"
        if in_ci():
            pytest.fail(f"integration tests are mandatory in CI: {reason}")
        pytest.skip(reason)


def cli_json(*argv: str) -> dict:
    """``python -m scar_viz ARGV --json`` run in process, its JSON."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([*argv, "--json"])
    assert rc == 0, err.getvalue()
    return json.loads(out.getvalue())


def cli_selected(doc: Path, query: str, k: int, r: int, lam: float, tau: float, **opts: object):
    """``select DOC --policy scar``'s selected chunks as (file, index in the file), in order."""
    extra = [f"--{key.replace('_', '-')}={value}" for key, value in opts.items()]
    out = cli_json(
        "select", str(doc), "--query", query, "--model", "hash", "--no-cache",
        f"--k={k}", f"--radius={r}", f"--lam={lam}", f"--tau={tau}", *extra,
    )  # fmt: skip
    if "selected_chunks" in out:
        return [(c["doc"], c["index"]) for c in out["selected_chunks"]]
    return [(out["document"], i) for i in out["selected"]]


def sample_questions(path: Path, n: int = 12) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["query"] for line in lines if line.strip()][:n]


def generated_corpus(folder: Path) -> tuple[Path, list[str]]:
    """Five files cut from the sample: two identical (every chunk has a twin, so exact ties),
    one of a single short paragraph and one of two; and questions drawn from the text.

    Returns:
        (the folder, the questions).
    """
    text = SAMPLE_DOC.read_text(encoding="utf-8")
    paragraphs = [p for p in text.split("\n\n") if len(p) > 80]
    files = {
        "a/alpha.md": "\n\n".join(paragraphs[2:12]),
        "a/beta.md": "\n\n".join(paragraphs[2:12]),  # alpha's twin
        "b/gamma.md": "\n\n".join(paragraphs[20:6:-1]),
        "b/tiny.md": paragraphs[25][:150],
        "c/two.md": "\n\n".join(paragraphs[30:32]),
    }
    for name, body in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(body + "\n", encoding="utf-8")
    questions = [p[:100] for p in paragraphs[2:32:3]]
    questions += [
        paragraphs[25][:60],
        paragraphs[31][:80],
        "Who decides when a crossing is cancelled?",
    ]
    return folder, questions


def a_setting(
    retriever: str,
    policy: str,
    *,
    scar: tuple[int, float, float, float] = (2, 0.35, 0.12, 0.0),
    learned: tuple[float, object] | None = None,
    k: int = 3,
    k_rrf: float = 60.0,
):
    """A :class:`~scar_viz.evaluation.settings.ChosenSettings` of ``retriever`` × ``policy`` at
    k: SCAR with ``scar`` (r, λ, τ, μ), the learned gate with ``learned`` (p, gate), r = 1
    otherwise (what ``recommend`` saves for top-k and window ±1)."""
    from scar_viz.evaluation.settings import ChosenSettings

    r, lam, tau, mu = scar if policy == "scar" else (1, None, None, None)
    p, gate = learned if policy == "learned" and learned else (None, None)
    return ChosenSettings(
        retriever, policy, k, r, lam, tau, mu, p, gate, k_rrf, {"model": "hash:256"}
    )


def sentence_splitter_storage(folder: Path, model: str = "hash") -> str:
    """The sample through LlamaIndex's own SentenceSplitter (its file name in the metadata, so
    in what is embedded), embedded by ScarEmbedding(model), persisted in ``folder``."""
    require("llama_index.core")
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.node_parser import SentenceSplitter

    from scar_viz.integrations.llamaindex import ScarEmbedding

    text = SAMPLE_DOC.read_text(encoding="utf-8")
    splitter = SentenceSplitter(chunk_size=128, chunk_overlap=16, tokenizer=str.split)
    index = VectorStoreIndex.from_documents(
        [Document(text=text, metadata={"file_name": "harbor_manual.md"})],
        transformations=[splitter],
        embed_model=ScarEmbedding(model, cache=False),
    )
    index.storage_context.persist(str(folder))
    return str(folder)
