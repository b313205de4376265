""" "Use it in your code": the command line, LangChain and LlamaIndex snippets that run a saved
setting (docs/integrations.md), filled in with the document, the model, the chunking and the
settings file the app's verdict downloads.

Each snippet loads the settings file — what runs is the file's setting, through
:func:`~scar_viz.evaluation.apply.run_setting`, wherever it runs — and says the setting in a
comment. Names that come from the user (a document's name, a question) are quoted for the
language (``repr`` for Python, ``shlex.quote`` for the shell), never pasted raw.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from scar_viz.chunking.config import ChunkingConfig
from scar_viz.evaluation.settings import ChosenSettings

SETTINGS_FILE = "scar-viz-settings.json"
"""The name the app's settings download has (the snippets load it under that name)."""

QUESTION = "What does the document say about this?"
"""The question the snippets ask when none is given."""


@dataclass(frozen=True)
class Snippet:
    """One snippet: its ``title`` (a tab's), ``language`` (``bash`` or ``python``) and
    ``code``."""

    title: str
    language: str
    code: str


def setting_words(chosen: ChosenSettings) -> str:
    """The setting in words, e.g. ``learned gate (p 0.061, r 1) on hybrid retrieval (k_rrf
    60), k = 4``."""
    expansion = {
        "topk": "top-k",
        "window1": "window ±1",
        "scar": "SCAR",
        "learned": "learned gate",
    }[chosen.policy]
    p = chosen.params
    if chosen.policy == "scar":
        mu = f", μ {p.mu:g}" if p.mu else ""
        expansion += f" (λ {p.lam:g}, τ {p.tau:g}{mu}, r {p.radius})"
    elif chosen.policy == "learned":
        expansion += f" (p {chosen.p:g}, r {p.radius})"
    retriever = chosen.retriever_setting
    rrf = f" (k_rrf {retriever.k_rrf:g})" if retriever.name == "hybrid" else ""
    return f"{expansion} on {retriever.name} retrieval{rrf}, k = {chosen.k}"


def code_snippets(
    chosen: ChosenSettings,
    *,
    document: str,
    model: str,
    chunking: ChunkingConfig,
    prepend: bool = False,
    question: str = QUESTION,
    queries: str = "queries.jsonl",
    settings_file: str = SETTINGS_FILE,
) -> tuple[Snippet, ...]:
    """The command line's, LangChain's and LlamaIndex's snippets for ``chosen``.

    Args:
        document: the document's (or corpus folder's) path as the snippets open it.
        model: the ``--model`` spec the chunks were embedded with.
        chunking: the chunking they were cut with (the CLI's options, the splitters' args).
        prepend: whether the chunks were embedded with their section path first (the
            command line's ``--prepend``; the integrations embed the chunk text, and the
            Python snippets say so).
        question: the question the snippets ask.
        queries: the labelled query file ``eval`` reads.
        settings_file: where the settings file lies.
    """
    words = f"# {setting_words(chosen)}"
    cut = ["--chunker", chunking.chunker, "--chunk-size", str(chunking.size)]
    cut += ["--overlap", str(chunking.overlap)]
    if chunking.chunker == "semantic":
        cut += ["--chunk-percentile", f"{chunking.percentile:g}"]
    common = ["--model", model, *cut, *(["--prepend"] if prepend else [])]
    q = shlex.quote
    options = " ".join(q(a) for a in common) + f" \\\n    --settings {q(settings_file)}"
    cli = (
        f"{words}\n"
        f"scar-viz select {q(document)} --query {q(question)} \\\n    {options}\n"
        f"scar-viz eval {q(document)} {q(queries)} \\\n    {options}"
    )
    split = f"{document!r}, chunker={chunking.chunker!r}, size={chunking.size}, "
    split += f"overlap={chunking.overlap}, model=embed"
    note = (
        "\n# the app embedded each chunk with its section path first; these embed the chunk text"
        if prepend
        else ""
    )
    head = f"{words}{note}\nMODEL = {model!r}\nQUESTION = {question!r}\n"
    langchain = (
        "from langchain_core.vectorstores import InMemoryVectorStore\n\n"
        "from scar_viz.integrations.langchain import ScarEmbeddings, ScarRetriever, "
        "split_document\n\n"
        f"{head}\n"
        "embed = ScarEmbeddings(MODEL)\n"
        "store = InMemoryVectorStore(embed)\n"
        f"store.add_documents(split_document(\n    {split}\n))\n"
        f"retriever = ScarRetriever.from_settings({settings_file!r}, vectorstore=store)\n"
        "for doc in retriever.invoke(QUESTION):\n"
        '    print(doc.metadata["source"], doc.metadata["chunk"], doc.metadata["scar_role"])\n'
    )
    llamaindex = (
        "from llama_index.core import VectorStoreIndex\n\n"
        "from scar_viz.integrations.llamaindex import ScarEmbedding, ScarRetriever, "
        "split_nodes\n\n"
        f"{head}\n"
        "embed = ScarEmbedding(MODEL)\n"
        f"nodes = split_nodes(\n    {split}\n)\n"
        "index = VectorStoreIndex(nodes, embed_model=embed)\n"
        f"retriever = ScarRetriever.from_settings({settings_file!r}, index=index)\n"
        "for hit in retriever.retrieve(QUESTION):  # or in RetrieverQueryEngine(retriever, ...)\n"
        "    m = hit.node.metadata\n"
        '    print(m["source"], m["chunk"], m["scar_role"])\n'
    )
    return (
        Snippet("Command line", "bash", cli),
        Snippet("LangChain", "python", langchain),
        Snippet("LlamaIndex", "python", llamaindex),
    )
