"""``python -m scar_viz``: the sub-commands over the same functions the pages use.

``main`` (the parser, ``select`` and ``eval``), ``common`` (options and setup every sub-command
shares), ``gate`` (``fit-gate``, ``--gate``/``--p``), ``llm`` (``make-queries``, ``answer``). The
policies' options come from their settings (:mod:`scar_viz.views.compare_settings`).
"""
