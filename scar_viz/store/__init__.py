"""A store of a chunked, embedded corpus (LanceDB) and the engines that fill it (in process or
Ray Data): index once, evaluate from the store (docs/scale.md).

LanceDB and Ray are optional extras (``requirements-scale.txt``), imported inside functions
only (:mod:`scar_viz.store.extras`): importing this package loads neither.
"""

from __future__ import annotations

from scar_viz.store.engines import ENGINES, EmbedderSpec, EngineOptions
from scar_viz.store.extras import INSTALL, ExtrasMissing
from scar_viz.store.index import IndexReport, index_corpus
from scar_viz.store.meta import StoreError, StoreMeta
from scar_viz.store.reading import open_store, store_meta, store_version

__all__ = [
    "ENGINES",
    "INSTALL",
    "EmbedderSpec",
    "EngineOptions",
    "ExtrasMissing",
    "IndexReport",
    "StoreError",
    "StoreMeta",
    "index_corpus",
    "open_store",
    "store_meta",
    "store_version",
]
