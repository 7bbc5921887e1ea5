"""Module and class bodies, tracing, profiling, coverage, and other PEP 523 users."""

from __future__ import annotations

import sys
import textwrap

import pytest

import loom_framehook as fh
from loom_framehook import _framehook


def f(x):
    y = x + 1
    return y * 2


def f_replacement(x):
    y = x - 1
    return y * 3


def replace_f(frame):
    if frame.f_code is f.__code__:
        return fh.Entry(f_replacement.__code__, lambda frame: True)
    return None


def test_module_and_class_bodies_are_never_replaced():
    source = textwrap.dedent(
        """
        class K:
            attr = 1
            def method(self):
                return "method"
        result = K().method()
        """
    )
    module_code = compile(source, "<module-body>", "exec")
    class_code = next(c for c in module_code.co_consts if hasattr(c, "co_name") and c.co_name == "K")
    replacement = compile("result = 'replaced'", "<replacement>", "exec")
    seen = []

    def cb(frame):
        seen.append(frame.f_code.co_name)
        if frame.f_code.co_name in ("<module>", "K"):
            assert frame.f_locals == {}  # bodies take no arguments
        if frame.f_code is module_code:
            return replacement
        if frame.f_code.co_name == "K":
            return fh.Entry(replacement, lambda frame: True)
        return None

    namespace = {}
    with fh.callback(cb):
        exec(module_code, namespace)
    assert namespace["result"] == "method"
    assert namespace["K"].attr == 1
    assert "<module>" in seen and "K" in seen and "method" in seen
    assert fh.entries(class_code) == []
    assert fh.stats()["refused"] == 2


def test_exec_of_function_code_with_locals_is_not_replaced():
    def no_args():
        return "original"

    def no_args_replacement():
        return "replaced"

    def cb(frame):
        if frame.f_code is no_args.__code__:
            return no_args_replacement.__code__
        return None

    with fh.callback(cb):
        assert no_args() == "replaced"
        exec(no_args.__code__, {}, {})  # a function's code run with a locals mapping: left alone
    assert fh.stats()["refused"] == 1


def _trace_run(tracer_events, call):
    def tracer(frame, event, arg):
        if frame.f_code.co_name in ("f", "f_replacement"):
            tracer_events.append((frame.f_code.co_name, event, frame.f_lineno - frame.f_code.co_firstlineno))
        return tracer

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        return call()
    finally:
        sys.settrace(old)


def test_settrace_sees_hooked_frames_and_replacements():
    events = []
    with fh.callback(lambda frame: None):
        assert _trace_run(events, lambda: f(1)) == 4
    assert ("f", "call", 0) in events and ("f", "line", 1) in events and ("f", "line", 2) in events
    assert ("f", "return", 2) in events

    events.clear()
    with fh.callback(replace_f):
        assert _trace_run(events, lambda: f(1)) == 0  # miss: callback, stored, replacement runs
        assert _trace_run(events, lambda: f(5)) == 12  # hit
    assert [e for e in events if e[1] == "call"] == [("f_replacement", "call", 0)] * 2
    assert ("f_replacement", "line", 1) in events
    assert not [e for e in events if e[0] == "f"]


def test_settrace_installed_inside_hooked_region_and_removed():
    events = []
    with fh.callback(replace_f):
        f(1)
        _trace_run(events, lambda: [f(i) for i in range(3)])
        assert f(2) == 3
    assert len([e for e in events if e[1] == "call"]) == 3
    assert sys.gettrace() is None or "coverage" in type(sys.gettrace()).__module__


def test_setprofile_sees_calls_and_returns():
    events = []

    def profiler(frame, event, arg):
        if event in ("call", "return") and frame.f_code.co_name in ("f", "f_replacement"):
            events.append((frame.f_code.co_name, event, arg if event == "return" else None))

    with fh.callback(replace_f):
        sys.setprofile(profiler)
        try:
            f(1)
            f(2)
        finally:
            sys.setprofile(None)
    assert events == [("f_replacement", "call", None), ("f_replacement", "return", 0)] * 1 + [
        ("f_replacement", "call", None),
        ("f_replacement", "return", 3),
    ]
    events.clear()
    fh.clear()
    with fh.callback(lambda frame: None):
        sys.setprofile(profiler)
        try:
            f(1)
        finally:
            sys.setprofile(None)
    assert events == [("f", "call", None), ("f", "return", 4)]


def test_coverage_records_lines_with_hook_installed():
    coverage = pytest.importorskip("coverage")
    if sys.gettrace() is not None:
        pytest.skip("already running under a tracer")

    def covered(x):
        if x > 0:
            return "positive"
        return "other"

    first = covered.__code__.co_firstlineno
    cov = coverage.Coverage(data_file=None, branch=False)
    with fh.callback(lambda frame: None):
        cov.start()
        try:
            covered(1)
        finally:
            cov.stop()
    lines = set(cov.get_data().lines(__file__) or ())
    assert {first + 1, first + 2} <= lines
    assert first + 3 not in lines


def test_foreign_eval_function_installed_first_is_chained_not_overwritten():
    _framehook._install_test_hook("foreign")
    try:
        seen = []
        with fh.callback(lambda frame: seen.append(frame.f_code.co_name)):
            assert _framehook._current_eval_name() == "loom_framehook"
            before = _framehook._test_hook_frames()
            f(1)
            f(2)
            assert _framehook._test_hook_frames() - before >= 2  # the foreign function still runs
        assert seen.count("f") == 2
        assert _framehook._current_eval_name() == "test-foreign"  # put back, not removed
    finally:
        _framehook._install_test_hook("off")


def test_foreign_eval_function_installed_on_top_chains_to_us():
    seen = []
    fh.set_callback(lambda frame: seen.append(frame.f_code.co_name))
    _framehook._install_test_hook("foreign")  # like torch.compile: remembers ours, calls it
    try:
        f(1)
        assert seen.count("f") == 1
        fh.set_callback(None)  # ours is not on top: it must leave the foreign function in place
        assert _framehook._current_eval_name() == "test-foreign"
        f(1)
        assert seen.count("f") == 1
    finally:
        _framehook._install_test_hook("off")  # puts ours back (it chained to it), with no callback
    assert _framehook._current_eval_name() == "loom_framehook"
    f(1)
    assert seen.count("f") == 1
    fh.set_callback(lambda frame: None)
    fh.set_callback(None)  # removes ours for good


def test_chain_loop_is_broken():
    """ours -> foreign -> ours: each frame reaches the callback once, and nothing recurses forever."""
    seen = []
    fh.set_callback(lambda frame: None)
    _framehook._install_test_hook("foreign")  # foreign chains to ours
    fh.set_callback(None)  # ours stays in the foreign chain
    try:
        fh.set_callback(lambda frame: seen.append(frame.f_code.co_name))  # ours on top, chaining to foreign
        assert _framehook._current_eval_name() == "loom_framehook"
        before = _framehook._test_hook_frames()
        assert f(3) == 8
        assert seen.count("f") == 1
        assert _framehook._test_hook_frames() > before
        fh.set_callback(None)
        assert _framehook._current_eval_name() == "test-foreign"
    finally:
        _framehook._install_test_hook("off")
    fh.set_callback(lambda frame: None)
    fh.set_callback(None)


def test_noop_test_hook_refuses_to_overwrite():
    fh.set_callback(lambda frame: None)
    with pytest.raises(RuntimeError, match="needs the default evaluator"):
        _framehook._install_test_hook("noop")
    fh.set_callback(None)


def test_callbacks_and_guards_hidden_from_tracers_unless_asked():
    def my_callback(frame):
        helper_called_by_callback()
        if frame.f_code is f.__code__:
            return fh.Entry(f_replacement.__code__, my_guard)
        return None

    def my_guard(frame):
        return True

    def helper_called_by_callback():
        return 1

    machinery = {"my_callback", "my_guard", "helper_called_by_callback"}

    def traced_names(trace_callbacks):
        names = []

        def tracer(frame, event, arg):
            if event == "call":
                names.append(frame.f_code.co_name)
            return tracer

        previous = fh.set_trace_callbacks(trace_callbacks)
        fh.clear()
        try:
            with fh.callback(my_callback):
                sys.settrace(tracer)
                try:
                    f(1)  # the callback runs
                    f(2)  # the guard runs
                finally:
                    sys.settrace(None)
        finally:
            fh.set_trace_callbacks(previous)
        return names

    hidden = traced_names(False)
    assert hidden.count("f_replacement") == 2
    assert not machinery & set(hidden)
    shown = traced_names(True)
    assert machinery <= set(shown)
    assert fh.set_trace_callbacks(False) is False
