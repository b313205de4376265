"""Stage 6: labelled queries, read against a document and labelled against its chunks.

- :mod:`~scar_viz.queries.reading`: a query file (JSON Lines) parsed and validated line by
  line (:class:`QuerySet` of :class:`LabelledQuery`, every issue with its line);
- :mod:`~scar_viz.queries.evidence`: where each evidence span lies in the document, or in
  which file of a corpus (``doc``), with stale offsets relocated;
- :mod:`~scar_viz.queries.references`: the reference answer a line may carry;
- :mod:`~scar_viz.queries.gold`: gold chunks and query types under one chunking
  (:class:`GoldQuery`), and a content digest of a set;
- :mod:`~scar_viz.queries.labelling`: the format explained in the app, and a set built while
  exploring.

It needs documents (stage 1) and chunks (stage 2) and nothing later; the evaluation (stage 7),
the LLM's query generation, the views and the command line read queries through it.
"""
