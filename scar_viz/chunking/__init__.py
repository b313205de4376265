"""Stage 2: a document cut into chunks that keep their character offsets.

:mod:`~scar_viz.chunking.base` holds the :class:`~scar_viz.chunking.base.Chunk` type and the
entry every chunker declares; one module per chunker (``recursive``, ``fixed``,
``token_windows``, ``sentence``, ``semantic``, ``section``; docs/method.md §6);
:mod:`~scar_viz.chunking.registry` lists them; :mod:`~scar_viz.chunking.config` chunks a
document under a :class:`~scar_viz.chunking.config.ChunkingConfig`. Beside them: token counts
(``tokens``), how much a chunking fragments the text (``fragmentation``), and QASC's
query-adaptive chunks formed from sentences (``qasc``).
"""
