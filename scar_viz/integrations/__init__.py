"""Leaving the app: the gate as LangChain and LlamaIndex components (docs/integrations.md).

- :mod:`~scar_viz.integrations.langchain`: ``ScarEmbeddings``, ``split_document``,
  ``ScarRetriever``;
- :mod:`~scar_viz.integrations.llamaindex`: ``ScarEmbedding``, ``split_nodes``,
  ``source_documents``, ``ScarPostprocessor``.

Both are thin adapters: chunks are cut by :mod:`~scar_viz.integrations.split` (scar-viz's own
chunking), the models are scar-viz's (:mod:`~scar_viz.integrations.models`), and every decision
is the gate of :mod:`scar_viz.scoring.scar` run on the chunks the adapter fetched from the
store (:mod:`~scar_viz.integrations.local`). The two framework modules import their framework
(the ``integrations`` extra, ``pip install 'scar-viz[integrations]'``); nothing else in
scar-viz imports them, and this package's own modules import neither framework.
"""


def needs(module: str, package: str) -> ImportError:
    """The error a framework module raises when its framework is not installed: one sentence
    naming ``package`` and the extra that installs it."""
    return ImportError(f"{module} needs {package}: pip install 'scar-viz[integrations]'.")
