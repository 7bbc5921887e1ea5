"""Entry(code, guard, callback=..., globals=...): the hook compares the thread's callback and the frame's
globals with the entry's, in C, before it calls the guard."""

from __future__ import annotations

import gc
import sys
import types

import pytest

import loom_framehook as fh


def add(a, b=2):
    return a + b


def mul(a, b=2):
    return a * b


class Maker:
    """A callback that stores one entry for `add` (made under itself), counting calls and guard calls."""

    def __init__(self, f_globals=None):
        self.calls = 0
        self.guard_calls = 0
        self.f_globals = f_globals

    def guard(self, frame):
        self.guard_calls += 1
        return True

    def __call__(self, frame):
        if frame.f_code is not add.__code__:
            return fh.SKIP
        self.calls += 1
        f_globals = frame.f_globals if self.f_globals == "frame" else self.f_globals
        return fh.Entry(mul.__code__, self.guard, callback=self, globals=f_globals)


def test_entry_of_another_callback_is_not_served_and_its_guard_not_called():
    one, two = Maker(), Maker()
    with fh.callback(one):
        assert add(3) == 6 and add(4) == 8
    assert (one.calls, one.guard_calls) == (1, 1)
    with fh.callback(two):
        assert add(3) == 6  # one's entry is skipped without calling its guard: two compiles its own
        assert add(5) == 10
    assert (one.calls, one.guard_calls) == (1, 1)
    assert (two.calls, two.guard_calls) == (1, 1)
    entries = fh.entries(add.__code__)
    assert [e.callback for e in entries] == [two, one]
    with fh.callback(one):
        assert add(6) == 12  # served by one's own entry (second in the list), two's guard not called
    assert (one.calls, one.guard_calls, two.guard_calls) == (1, 2, 1)
    assert fh.stats()["cache_hits"] == 3


def test_entry_for_other_globals_is_not_served():
    other_globals = {"__builtins__": __builtins__}
    add_elsewhere = types.FunctionType(add.__code__, other_globals, "add", add.__defaults__)
    maker = Maker(f_globals="frame")
    with fh.callback(maker):
        assert add(3) == 6
        assert add_elsewhere(3) == 6  # globals differ: no guard call, the callback makes another entry
        assert maker.calls == 2 and maker.guard_calls == 0
        assert add(4) == 8 and add_elsewhere(5) == 10  # each served by its own entry
    assert maker.calls == 2 and maker.guard_calls == 2
    assert [e.globals is other_globals for e in fh.entries(add.__code__)] == [True, False]  # most recent first


def test_entry_without_preconditions_serves_every_callback():
    def guard(frame):
        return True

    def make(frame):
        return fh.Entry(mul.__code__, guard) if frame.f_code is add.__code__ else fh.SKIP

    def other(frame):
        raise AssertionError("never called: the stored entry serves")

    with fh.callback(make):
        assert add(3) == 6
    with fh.callback(other):
        assert add(3) == 6
    (entry,) = fh.entries(add.__code__)
    assert entry.callback is None and entry.globals is None and entry.hits == 1


def test_entry_preconditions_arguments():
    e = fh.Entry(mul.__code__, bool, callback=len, globals=globals())
    assert e.callback is len and e.globals is globals()
    e = fh.Entry(mul.__code__, bool, callback=None, globals=None)
    assert e.callback is None and e.globals is None
    with pytest.raises(TypeError, match="'globals' must be a dict or None, not list"):
        fh.Entry(mul.__code__, bool, globals=[])
    with pytest.raises(TypeError):
        fh.Entry(mul.__code__, bool, len)  # keyword-only


def test_entry_preconditions_references_are_released():
    maker = Maker(f_globals={"x": 1})
    held = maker.f_globals
    before = (sys.getrefcount(maker), sys.getrefcount(held))
    entry = fh.Entry(mul.__code__, maker.guard, callback=maker, globals=held)
    assert (sys.getrefcount(maker), sys.getrefcount(held)) == (before[0] + 2, before[1] + 1)  # + the bound guard
    del entry
    assert (sys.getrefcount(maker), sys.getrefcount(held)) == before
    # a cycle through the callback (entry -> callback -> entry) is collected
    maker.entry = fh.Entry(mul.__code__, bool, callback=maker)
    probe = [maker.entry]
    del probe
    ref_count = sys.getrefcount(held)
    del maker
    gc.collect()
    assert sys.getrefcount(held) == ref_count - 1  # the maker (which held `held`) is gone


def test_guard_error_still_reported_behind_preconditions():
    class Failing(Maker):
        def guard(self, frame):
            raise KeyError("boom")

    maker = Failing()
    with fh.callback(maker):
        assert add(1) == 2  # the callback's own entry runs at once
        with pytest.raises(KeyError, match="boom"):
            add(1)
    assert fh.stats()["errors"] == 1
