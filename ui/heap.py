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
import time

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


def _libc():
    """glibc's C library, or None elsewhere (macOS, musl: nothing to trim there)."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        lib = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return lib if lib is not None and hasattr(lib, "malloc_trim") else None


def return_freed_memory() -> bool:
    """Ask glibc to hand the freed parts of every arena back to the system
    (``malloc_trim(0)``): glibc keeps freed heap pages for reuse otherwise. True when
    something was returned."""
    lib = _libc()
    return bool(lib.malloc_trim(0)) if lib is not None else False


def release_closed_sessions() -> None:
    """Free what closed sessions held and give it back to the system: a session's objects
    live in reference cycles (its callbacks), so only a collection frees them, and those alive
    at a :func:`freeze_long_lived` (the first visitor's, whoever was there when a model
    loaded) were frozen, which no collection touches. So: unfreeze, collect, freeze again
    (what is still alive: the libraries, the open sessions), then return the freed pages.
    One full collection (about 0.2 s with the default model loaded) per closed session."""
    with _lock:
        gc.unfreeze()
        gc.collect()
        gc.freeze()
    return_freed_memory()


REAP_EVERY_S = 10.0
"""How often the server's closed sessions past their time are let go (see :func:`reap`)."""
_reaper: list[threading.Thread] = []
_closed_seen = [0]
"""Closed sessions the server kept at the last count."""
_dropped = threading.Event()
"""Set when a count found fewer closed sessions than the one before."""


def _count_closed(closed) -> None:
    count = len(closed)  # asking the length reaps the expired
    if count < _closed_seen[0]:
        _dropped.set()
    _closed_seen[0] = count


def reap() -> bool:
    """Let go of the closed sessions kept past ``server.disconnectedSessionTTL``: Streamlit
    keeps them in a TTL cache that drops an expired entry only when the cache is written or
    its length asked for, so on a quiet server a closed tab's session (its uploads, text and
    query files) stayed for good (benchmarks/upload_memory.py: RSS unchanged 150 s after a
    close). The length is asked on the server's event loop, the thread that writes the cache
    (Streamlit 1.67's private names; nothing is done where they differ); fewer than last time
    sets :data:`_dropped`. True when asked."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return False
    runtime = Runtime.instance()
    storage = getattr(getattr(runtime, "_session_mgr", None), "_session_storage", None)
    closed = getattr(storage, "_cache", None)
    loop = getattr(getattr(runtime, "_async_objs", None), "eventloop", None)
    if not hasattr(closed, "__len__") or loop is None or loop.is_closed():
        return False
    loop.call_soon_threadsafe(_count_closed, closed)
    return True


def _reap_forever() -> None:
    while True:
        time.sleep(REAP_EVERY_S)
        if _dropped.is_set():
            _dropped.clear()
            release_closed_sessions()
        reap()


def start_reaping() -> None:
    """Start (once a process) the thread that lets closed sessions go and frees what they
    held (:func:`reap`, :func:`release_closed_sessions`)."""
    with _lock:
        if not _reaper:
            _reaper.append(threading.Thread(target=_reap_forever, name="reap", daemon=True))
            _reaper[0].start()
