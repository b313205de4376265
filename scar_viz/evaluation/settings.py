"""What a run over a labelled query set ran on: one record for ``eval`` and ``answer``.

The document, its chunking, the embedder and the gate parameters travel together from the
prepared document into an :class:`~scar_viz.evaluation.run.Evaluation`, an answer check and
the JSON both commands write (:mod:`scar_viz.evaluation.run_json`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scar_viz.pipeline import PreparedDoc
from scar_viz.retrieval import DENSE, Retriever
from scar_viz.scoring.params import GateParams


@dataclass(frozen=True)
class RunSettings:
    """The setting of a run: document name, chunking label and chunk count, whether chunk
    texts were prepended with their heading, the embedder (``model`` its stable id,
    ``embedder`` its readable label), the gate parameters and the retriever
    (:mod:`scar_viz.retrieval`); for a corpus, ``documents`` lists its files' paths in corpus
    order (empty for a single document)."""

    document: str
    chunking: str
    n_chunks: int
    prepend: bool
    model: str
    embedder: str
    params: GateParams
    documents: tuple[str, ...] = ()
    retriever: Retriever = DENSE

    @classmethod
    def of(cls, prep: PreparedDoc, params: GateParams, retriever: Retriever = DENSE) -> RunSettings:
        """The setting of a run on ``prep`` with ``params`` (numbers made plain int/float)."""
        return cls(
            prep.document.name,
            prep.config.label,
            len(prep.chunks),
            prep.prepend,
            prep.embedder_id,
            prep.embedder_label,
            GateParams(
                int(params.k),
                float(params.lam),
                float(params.tau),
                int(params.radius),
                float(params.mu),
            ),
            tuple(p.path for p in prep.document.parts),
            retriever,
        )

    def params_json(self, prepend: bool = False) -> dict[str, object]:
        """``{"k", "lam", "tau", "radius"}`` (and ``"mu"`` when μ > 0), with ``"prepend"`` when
        asked."""
        p = self.params
        out: dict[str, object] = {"k": p.k, "lam": p.lam, "tau": p.tau, "radius": p.radius}
        if p.mu:
            out["mu"] = p.mu
        return {**out, "prepend": self.prepend} if prepend else out

    def as_json(
        self, keys: Sequence[str], *, prepend: bool = False, **extra: object
    ) -> dict[str, object]:
        """The settings named by ``keys``, in that order, as JSON values.

        ``keys`` are field names (``params`` as :meth:`params_json`) or names given in ``extra``
        (a command's own settings, such as the answer model), so a command lists its header
        once, in the order it writes it. A retriever other than dense follows as
        ``"retriever"`` (:meth:`~scar_viz.retrieval.Retriever.as_json`); a dense run's header
        is as it always was.

        Raises:
            KeyError: for a key that is neither a setting nor in ``extra``.
        """
        values = {
            "document": self.document,
            "chunking": self.chunking,
            "n_chunks": self.n_chunks,
            "model": self.model,
            "embedder": self.embedder,
            "params": self.params_json(prepend),
            "documents": list(self.documents),
            **extra,
        }
        out = {key: values[key] for key in keys}
        if not self.retriever.dense:
            out["retriever"] = self.retriever.as_json()
        return out
