"""Keep the garbage collector off the libraries' objects, so a slider's rerun is not paused
by a full collection of half a million objects it never touches.

Measured: with the embedding model loaded (torch, transformers, sentence-transformers) the
process holds about 510,000 objects the collector tracks, and one full collection takes about
0.21 s on this machine (0.06 s with Streamlit, plotly and pandas alone). A rerun allocates
enough to set one off every few reruns, at a varying point: the Explorer's λ step on the
built-in sample paused 100–300 ms between two websocket messages. ``gc.freeze()`` moves every
object alive at that moment into a permanent generation the collector skips; reference
counting still frees them as usual. It runs after a script run that imported many modules (the
first run, and the run that loaded a model), once a collection has freed the garbage.
"""

from __future__ import annotations

import gc
import sys
import threading

NEW_MODULES = 50
"""Modules imported since the last freeze that make the end of a run freeze again."""

_lock = threading.Lock()
_frozen_at = [0]
"""``len(sys.modules)`` at the last freeze (process-wide: every session shares the heap)."""


def freeze_long_lived() -> bool:
    """Collect, then freeze every live object, when at least :data:`NEW_MODULES` modules were
    imported since the last time; True when it froze."""
    with _lock:
        loaded = len(sys.modules)
        if loaded - _frozen_at[0] < NEW_MODULES:
            return False
        gc.collect()
        gc.freeze()
        _frozen_at[0] = loaded
        return True
