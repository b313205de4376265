"""Stage 2: a document cut into chunks that keep their character offsets (``chunkers``), their
token counts (``tokens``), how much a chunking fragments the text (``fragmentation``), and
QASC's query-adaptive chunks formed from sentences (``qasc``).
"""
