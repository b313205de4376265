"""``python -m scar_viz``: the sub-commands over the same functions the pages use.

``main`` (the parser, ``select`` and ``eval``), ``common`` (options and setup every sub-command
shares), ``gate`` (``fit-gate``, ``--gate``/``--p``), ``llm`` (``make-queries``, ``answer``),
``policy_options`` (the policies' own options).
"""
