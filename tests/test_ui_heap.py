"""ui.heap: the end of a run freezes the heap once many modules were imported, and not again
until many more are."""

from __future__ import annotations

import gc
import sys
import types
import weakref

import pytest

from ui import heap


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(heap, "_frozen_at", [len(sys.modules)])
    yield
    gc.unfreeze()  # give the test process's objects back to the collector


def test_freezes_only_after_many_new_modules(fresh, monkeypatch):
    before = gc.get_freeze_count()
    assert not heap.freeze_long_lived()  # nothing new imported
    assert gc.get_freeze_count() == before
    for i in range(heap.NEW_MODULES):
        monkeypatch.setitem(sys.modules, f"_heap_test_{i}", types.ModuleType(f"_heap_test_{i}"))
    assert heap.freeze_long_lived()
    assert gc.get_freeze_count() > before
    assert not heap.freeze_long_lived()  # once per wave of imports


def test_garbage_is_collected_before_the_freeze(fresh, monkeypatch):
    class Cycle:
        pass

    a, b = Cycle(), Cycle()
    a.other, b.other = b, a
    probe = [0]
    ref = weakref.ref(a, lambda _: probe.__setitem__(0, 1))
    del a, b
    for i in range(heap.NEW_MODULES):
        monkeypatch.setitem(sys.modules, f"_heap_test_{i}", types.ModuleType(f"_heap_test_{i}"))
    assert heap.freeze_long_lived()
    assert ref() is None and probe[0] == 1  # the cycle was freed, not frozen


def test_a_closed_sessions_frozen_cycle_is_freed_by_the_release(fresh, monkeypatch):
    class Session:
        pass

    session = Session()
    session.callback = session  # a session's objects live in cycles
    ref = weakref.ref(session)
    for i in range(heap.NEW_MODULES):
        monkeypatch.setitem(sys.modules, f"_heap_test_{i}", types.ModuleType(f"_heap_test_{i}"))
    assert heap.freeze_long_lived()  # the session was open at the freeze
    del session
    gc.collect()
    assert ref() is not None  # frozen: no collection frees it
    trimmed = []
    monkeypatch.setattr(heap, "return_freed_memory", lambda: trimmed.append(1))
    heap.release_closed_sessions()
    assert ref() is None and trimmed == [1]
    assert gc.get_freeze_count() > 0  # what is still alive is frozen again


def test_fewer_closed_sessions_than_at_the_last_count_mark_a_drop(monkeypatch):
    monkeypatch.setattr(heap, "_closed_seen", [0])
    heap._dropped.clear()
    heap._count_closed([1, 2])
    assert not heap._dropped.is_set()
    heap._count_closed([1])
    assert heap._dropped.is_set()
    heap._dropped.clear()


def test_returning_freed_memory_asks_glibc_where_there_is_one():
    from ui import heap

    assert heap.return_freed_memory() in (True, False)  # never raises, on any C library
    if heap._libc() is not None:
        assert heap._libc().malloc_trim(0) in (0, 1)


def test_streamlits_store_of_closed_sessions_lets_an_expired_one_go_when_listed():
    """What :func:`ui.heap.reap` relies on: listing the store reaps what outlived its TTL."""
    import time

    from streamlit.runtime.memory_session_storage import MemorySessionStorage
    from streamlit.runtime.session_manager import SessionInfo

    class Session:
        id = "closed-tab"

    store = MemorySessionStorage(ttl_seconds=0.05)
    session = Session()
    store.save(SessionInfo(client=None, session=session, script_run_count=1))
    gone = weakref.ref(session)
    del session
    time.sleep(0.1)
    assert store.list() == [] and gone() is not None  # expired, but kept: a list is a copy
    assert len(store._cache) == 0 and gone() is None  # asking the length lets it go


def test_reaping_asks_the_length_of_the_closed_sessions_on_the_servers_event_loop(monkeypatch):
    import asyncio

    from streamlit import runtime

    listed = []

    class Closed:
        def __len__(self) -> int:
            listed.append(1)
            return 0

    loop = asyncio.new_event_loop()
    storage = types.SimpleNamespace(_cache=Closed())
    fake = types.SimpleNamespace(
        _session_mgr=types.SimpleNamespace(_session_storage=storage),
        _async_objs=types.SimpleNamespace(eventloop=loop),
    )
    monkeypatch.setattr(runtime.Runtime, "exists", staticmethod(lambda: True))
    monkeypatch.setattr(runtime.Runtime, "instance", staticmethod(lambda: fake))
    try:
        assert heap.reap() and listed == []  # queued on the loop, not run on this thread
        loop.run_until_complete(asyncio.sleep(0))
        assert listed == [1]
    finally:
        loop.close()
    assert not heap.reap()  # a closed loop: nothing is asked
    monkeypatch.setattr(runtime.Runtime, "exists", staticmethod(lambda: False))
    assert not heap.reap()
