"""SKIP_RECURSIVE and RUN_ONLY: the per-code strategies beside SKIP."""

from __future__ import annotations

import sys
import threading

import pytest

import loom_framehook as fh


def leaf(n):
    return n + 1


def middle(n):
    return leaf(n) * 2


def outer(n):
    return middle(n) + 1


def record(seen, answer=None):
    def cb(frame):
        seen.append(frame.f_code.co_name)
        return answer(frame) if answer else None

    return cb


def test_strategy_and_is_skipped_report_each_mark():
    code = leaf.__code__
    assert fh.strategy(code) is None and not fh.is_skipped(code)
    fh.skip(code)
    assert fh.strategy(code) is fh.SKIP and fh.is_skipped(code)
    fh.skip(code, recursive=True)
    assert fh.strategy(code) is fh.SKIP_RECURSIVE and fh.is_skipped(code)
    fh.clear(code)
    fh.run_only(code)
    assert fh.strategy(code) is fh.RUN_ONLY and not fh.is_skipped(code)
    fh.clear(code)
    assert fh.strategy(code) is None
    assert repr(fh.SKIP_RECURSIVE) == "loom_framehook.SKIP_RECURSIVE"
    assert repr(fh.RUN_ONLY) == "loom_framehook.RUN_ONLY"


def test_bad_arguments_say_what_was_expected():
    with pytest.raises(TypeError, match="code object"):
        fh.skip(leaf, recursive=True)
    with pytest.raises(TypeError, match="code object"):
        fh.run_only("leaf")
    with pytest.raises(TypeError, match="code object"):
        fh.strategy(None)
    with pytest.raises(TypeError):
        fh.skip(leaf.__code__, True)  # recursive is keyword-only


def test_skip_recursive_keeps_every_callee_away_from_the_callback():
    seen = []
    cb = record(seen, lambda frame: fh.SKIP_RECURSIVE if frame.f_code is outer.__code__ else None)
    with fh.callback(cb):
        assert outer(1) == 5
        assert outer(2) == 7
    assert seen == ["outer"], "middle and leaf run with the callback off; the mark is kept for outer"
    assert fh.strategy(outer.__code__) is fh.SKIP_RECURSIVE
    stats = fh.stats()
    assert stats["unhooked"] == 2 and stats["skipped"] == 2


def test_the_only_hooked_thread_removes_the_eval_function_meanwhile():
    inside = {}

    def probe(n):
        inside["installed"] = fh.is_installed()
        inside["callback"] = fh.get_callback()
        return n

    def cb(frame):
        return fh.SKIP_RECURSIVE if frame.f_code is probe.__code__ else fh.SKIP

    with fh.callback(cb):
        refs = sys.getrefcount(cb)
        probe(1)
        assert fh.is_installed() and fh.get_callback() is cb, "restored on return"
        assert sys.getrefcount(cb) == refs
    assert inside == {"installed": False, "callback": None}


def test_a_callback_set_inside_is_used_and_restored():
    inner_seen = []

    def region(n):
        with fh.callback(record(inner_seen)):
            return middle(n)

    def cb(frame):
        return fh.SKIP_RECURSIVE if frame.f_code is region.__code__ else None

    with fh.callback(cb):
        assert region(3) == 8
        assert fh.get_callback() is cb
    assert inner_seen == ["middle", "leaf"]


def test_an_exception_in_the_region_restores_the_callback():
    def boom(n):
        raise ValueError(n)

    def cb(frame):
        return fh.SKIP_RECURSIVE

    with fh.callback(cb):
        with pytest.raises(ValueError):
            boom(1)
        assert fh.get_callback() is cb and fh.is_installed()


def test_another_hooked_thread_keeps_the_eval_function_installed():
    started, release = threading.Event(), threading.Event()
    other_seen = []

    def other():
        with fh.callback(record(other_seen)):
            started.set()
            release.wait(10)
            leaf(1)

    thread = threading.Thread(target=other)
    thread.start()
    started.wait(10)
    inside = {}

    def probe(n):
        inside["installed"] = fh.is_installed()
        return leaf(n)

    seen = []
    with fh.callback(record(seen, lambda frame: fh.SKIP_RECURSIVE if frame.f_code is probe.__code__ else None)):
        probe(1)
    release.set()
    thread.join(10)
    assert inside == {"installed": True}, "the other thread still has a callback"
    assert seen == ["probe"]
    assert "leaf" in other_seen, "the other thread stayed hooked"


def test_run_only_serves_entries_and_runs_misses_without_the_callback():
    calls = []
    replacement = (lambda n: n + 100).__code__

    def cb(frame):
        calls.append(frame.f_locals["n"])
        if frame.f_locals["n"] == 0:
            return fh.Entry(replacement, lambda view: view.f_locals["n"] == 0)
        return fh.RUN_ONLY

    with fh.callback(cb):
        assert leaf(0) == 100  # compiled
        assert leaf(1) == 2  # miss: the callback says RUN_ONLY, the frame runs normally
        assert leaf(2) == 3  # miss: run normally, no callback
        assert leaf(0) == 100  # the entry still serves
    assert calls == [0, 1]
    assert fh.strategy(leaf.__code__) is fh.RUN_ONLY
    stats = fh.stats()
    assert stats["run_only_misses"] == 1 and stats["cache_hits"] == 1
    assert stats["frames"] == stats["skipped"] + stats["cache_hits"] + stats["callback_calls"] + stats["run_only_misses"]


def test_run_only_with_entries_that_keep_missing_becomes_skip():
    replacement = (lambda n: n + 100).__code__

    def cb(frame):
        return fh.Entry(replacement, lambda view: view.f_locals["n"] == 0)

    with fh.callback(cb):
        assert leaf(0) == 100
    fh.run_only(leaf.__code__)
    fh.reset_stats()
    with fh.callback(cb):
        for n in range(1, 40):
            assert leaf(n) == n + 1
    stats = fh.stats()
    assert fh.strategy(leaf.__code__) is fh.SKIP, "32 misses in a row: the guards are no longer walked"
    assert stats["guard_calls"] == 32 and stats["run_only_misses"] == 32 and stats["skipped"] == 7
    assert stats["callback_calls"] == 0
    assert len(fh.entries(leaf.__code__)) == 1, "the entry stays stored until clear()"


def test_run_only_without_entries_never_calls_the_callback():
    fh.run_only(leaf.__code__)
    seen = []
    with fh.callback(record(seen)):
        assert leaf(1) == 2
    assert seen == [] and fh.stats()["run_only_misses"] == 1


def test_a_hit_resets_the_run_of_misses():
    replacement = (lambda n: n + 100).__code__
    with fh.callback(lambda frame: fh.Entry(replacement, lambda view: view.f_locals["n"] == 0)):
        leaf(0)
    fh.run_only(leaf.__code__)
    with fh.callback(lambda frame: None):
        for _ in range(3):
            for n in range(1, 31):
                leaf(n)
            assert leaf(0) == 100
    assert fh.strategy(leaf.__code__) is fh.RUN_ONLY
