"""The public API: callbacks, SKIP, code replacement, Entry with guards, entries, clear, stats."""

from __future__ import annotations

import sys
import types

import pytest

import loom_framehook as fh


def add(a, b=2):
    return a + b


def mul(a, b=2):
    return a * b


def only(code):
    """A callback factory: report frames of `code` to a list, let every other frame run unhooked."""
    seen = []

    def cb(frame):
        if frame.f_code is code:
            seen.append(dict(frame.f_locals))
            return None
        return fh.SKIP

    return cb, seen


def test_extension_is_built_for_this_python():
    assert fh.COMPAT_FAMILY == f"{sys.version_info.major}.{sys.version_info.minor}"
    assert fh._framehook.__file__.endswith(".so")


def test_set_callback_returns_previous_and_installs_only_while_set():
    def a(frame):
        return None

    def b(frame):
        return None

    assert not fh.is_installed()
    assert fh.set_callback(a) is None
    assert fh.is_installed()
    assert fh.get_callback() is a
    assert fh.set_callback(b) is a
    assert fh.set_callback(None) is b
    assert not fh.is_installed()
    assert fh.get_callback() is None
    assert fh.set_callback(None) is None


def test_callback_context_restores_previous_even_on_error():
    def a(frame):
        return None

    def b(frame):
        return None

    with fh.callback(a) as got:
        assert got is a
        with pytest.raises(ZeroDivisionError):
            with fh.callback(b):
                assert fh.get_callback() is b
                1 / 0
        assert fh.get_callback() is a
    assert fh.get_callback() is None
    assert not fh.is_installed()


def test_callback_sees_first_entry_with_arguments():
    cb, seen = only(add.__code__)
    with fh.callback(cb):
        assert add(1) == 3
        assert add(1, b=5) == 6
    assert seen == [{"a": 1, "b": 2}, {"a": 1, "b": 5}]


def test_frame_view_fields():
    captured = {}

    def outer():
        k = 7

        def inner(x, *rest, key=1, **kw):
            return x + k

        return inner

    inner = outer()

    def cb(frame):
        if frame.f_code is inner.__code__:
            captured["code"] = frame.f_code
            captured["globals"] = frame.f_globals
            captured["builtins"] = frame.f_builtins
            captured["locals"] = frame.f_locals
            captured["same_locals"] = frame.f_locals is frame.f_locals  # built once, cached
            captured["closure"] = frame.closure
            captured["valid"] = frame.valid
            captured["repr"] = repr(frame)
            captured["view"] = frame
        return None

    with fh.callback(cb):
        assert inner(1, 2, 3, key=4, z=5) == 8
    assert captured["code"] is inner.__code__
    assert captured["globals"] is globals()
    assert captured["builtins"]["len"] is len
    assert captured["locals"] == {"x": 1, "rest": (2, 3), "key": 4, "kw": {"z": 5}}
    assert captured["same_locals"]
    assert captured["closure"] is inner.__closure__
    assert captured["closure"][0].cell_contents == 7
    assert captured["valid"]
    assert "inner" in captured["repr"]
    view = captured["view"]
    assert not view.valid
    for name in ("f_code", "f_globals", "f_builtins", "f_locals", "closure"):
        with pytest.raises(RuntimeError, match="no longer valid"):
            getattr(view, name)
    assert "expired" in repr(view)


def test_frame_view_cannot_be_made_by_hand():
    with pytest.raises(TypeError):
        fh.FrameView()


def test_none_asks_again_every_time():
    cb, seen = only(add.__code__)
    with fh.callback(cb):
        for i in range(5):
            add(i)
    assert len(seen) == 5
    assert fh.stats()["callback_calls"] >= 5


def test_skip_stops_callbacks_until_cleared():
    calls = []

    def cb(frame):
        calls.append(frame.f_code)
        return fh.SKIP

    with fh.callback(cb):
        for i in range(10):
            add(i)
    assert calls.count(add.__code__) == 1
    assert fh.is_skipped(add.__code__)
    stats = fh.stats()
    assert stats["skipped"] >= 9
    fh.clear(add.__code__)
    assert not fh.is_skipped(add.__code__)
    with fh.callback(cb):
        add(1)
    assert calls.count(add.__code__) == 2


def test_skip_function_marks_code():
    calls = []
    fh.skip(add.__code__)
    with fh.callback(lambda frame: calls.append(frame.f_code)):
        add(1)
    assert add.__code__ not in calls


def test_code_replacement_runs_once():
    calls = []

    def cb(frame):
        if frame.f_code is add.__code__:
            calls.append(1)
            return mul.__code__
        return fh.SKIP

    with fh.callback(cb):
        assert add(3) == 6
        assert add(3, b=4) == 12
    assert len(calls) == 2  # a bare code object is not cached
    assert fh.entries(add.__code__) == []
    assert add(3) == 5  # hook off: the original again


def test_entry_is_stored_and_served_by_its_guard():
    guard_seen = []
    callback_calls = []

    def small(frame):
        guard_seen.append(("small", frame.f_locals["a"]))
        return frame.f_locals["a"] < 100

    def big(frame):
        guard_seen.append(("big", frame.f_locals["a"]))
        return frame.f_locals["a"] >= 100

    def cb(frame):
        if frame.f_code is add.__code__:
            a = frame.f_locals["a"]
            callback_calls.append(a)
            return fh.Entry(mul.__code__, small if a < 100 else big)
        return fh.SKIP

    with fh.callback(cb):
        assert [add(i) for i in (1, 2, 3)] == [2, 4, 6]
        assert callback_calls == [1]
        assert guard_seen == [("small", 2), ("small", 3)]
        assert add(1000) == 2000  # guard fails: callback again, a second entry, stored first
        assert callback_calls == [1, 1000]
        assert [e.guard for e in fh.entries(add.__code__)] == [big, small]
        guard_seen.clear()
        assert add(4) == 8  # newest first: big fails, small hits and moves first
        assert guard_seen == [("big", 4), ("small", 4)]
        assert callback_calls == [1, 1000]
    (first, second) = fh.entries(add.__code__)
    assert first.guard is small and first.code is mul.__code__ and first.hits == 3
    assert second.guard is big and second.hits == 0
    stats = fh.stats()
    assert stats["cache_hits"] == 3
    assert stats["cache_misses"] == 1
    assert stats["entries"] == 2
    assert stats["replaced"] == 5


def test_entries_most_recently_used_first():
    def when(n):
        return lambda frame: frame.f_locals["a"] == n

    def cb(frame):
        if frame.f_code is add.__code__:
            return fh.Entry(mul.__code__, when(frame.f_locals["a"]))
        return fh.SKIP

    with fh.callback(cb):
        add(1)
        add(2)
        add(3)
        order = [e.guard(types.SimpleNamespace(f_locals={"a": 3})) for e in fh.entries(add.__code__)]
        assert order == [True, False, False]
        add(1)  # a hit on the oldest moves it first
    first = fh.entries(add.__code__)[0]
    assert first.guard(types.SimpleNamespace(f_locals={"a": 1}))
    assert first.hits == 1


def test_clear_all_and_one():
    def cb(frame):
        if frame.f_code in (add.__code__, mul.__code__):
            return fh.Entry(frame.f_code.replace(), lambda frame: True)
        return fh.SKIP

    with fh.callback(cb):
        add(1)
        mul(1)
    assert len(fh.entries(add.__code__)) == 1
    assert len(fh.entries(mul.__code__)) == 1
    fh.clear(add.__code__)
    assert fh.entries(add.__code__) == []
    assert len(fh.entries(mul.__code__)) == 1
    fh.clear()
    assert fh.entries(mul.__code__) == []
    assert fh.stats()["entries"] == 0


def test_stats_and_reset():
    cb, _ = only(add.__code__)
    with fh.callback(cb):
        add(1)
    stats = fh.stats()
    for key in ("frames", "skipped", "cache_hits", "cache_misses", "callback_calls", "guard_calls", "replaced",
                "refused", "errors", "codes", "entries", "skipped_codes", "threads", "installed"):
        assert key in stats
    assert stats["frames"] >= 1 and stats["callback_calls"] >= 1
    fh.reset_stats()
    assert fh.stats()["frames"] == 0


def test_hook_off_without_callback():
    cb, seen = only(add.__code__)
    fh.set_callback(cb)
    fh.set_callback(None)
    add(1)
    assert seen == []


def test_skip_is_a_singleton_that_survives_copy_and_pickle():
    import copy
    import pickle

    assert repr(fh.SKIP) == "loom_framehook.SKIP"
    assert copy.copy(fh.SKIP) is fh.SKIP
    assert copy.deepcopy(fh.SKIP) is fh.SKIP
    assert pickle.loads(pickle.dumps(fh.SKIP)) is fh.SKIP
    with pytest.raises(TypeError):
        type(fh.SKIP)()


def test_entry_subclass_carries_data():
    class TaggedEntry(fh.Entry):
        pass

    def cb(frame):
        if frame.f_code is add.__code__:
            e = TaggedEntry(mul.__code__, lambda frame: True)
            e.tag = "compiled-v1"
            return e
        return fh.SKIP

    with fh.callback(cb):
        assert add(2, b=5) == 10
        assert add(3) == 6
    (entry,) = fh.entries(add.__code__)
    assert isinstance(entry, TaggedEntry) and entry.tag == "compiled-v1" and entry.hits == 1
    assert "mul" in repr(entry)


def helper_called_by_replacement(x):
    return x + 100


def calls_helper(a, b=2):
    return helper_called_by_replacement(a * b)


def test_replacement_frame_never_reaches_callback_but_its_callees_do():
    seen = []

    def cb(frame):
        seen.append(frame.f_code)
        if frame.f_code is add.__code__:
            return fh.Entry(calls_helper.__code__, lambda frame: True)
        return None  # never SKIP: every frame that reaches the callback is recorded

    with fh.callback(cb):
        assert add(3) == 106  # miss: the callback stores the entry, the replacement runs
        assert add(4) == 108  # hit
    assert calls_helper.__code__ not in seen
    assert seen.count(add.__code__) == 1
    assert seen.count(helper_called_by_replacement.__code__) == 2


def test_frame_counters_add_up():
    def cb(frame):
        if frame.f_code is add.__code__:
            return fh.Entry(mul.__code__, lambda frame: frame.f_locals["a"] < 5)
        return fh.SKIP

    with fh.callback(cb):
        for i in range(10):
            add(i)
    s = fh.stats()
    assert s["frames"] == s["skipped"] + s["cache_hits"] + s["callback_calls"]
    assert s["cache_hits"] == 4  # a = 1..4; every a >= 5 fails all guards: the callback again
    assert s["cache_misses"] == 5
    assert len(fh.entries(add.__code__)) == 6
