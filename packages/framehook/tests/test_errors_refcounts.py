"""Errors from callbacks and guards propagate to the frame's caller; no reference is leaked or lost."""

from __future__ import annotations

import gc
import sys

import pytest

import loom_framehook as fh


def target(a, b=None, *args, key=None, **kwargs):
    return (a, b, args, key, kwargs)


def target_copy(a, b=None, *args, key=None, **kwargs):
    return ("copy", a, b, args, key, kwargs)


def target_raises(a, b=None, *args, key=None, **kwargs):
    raise OSError("replacement failed")


def gen_target(a, b=None, *args, key=None, **kwargs):
    yield a


class Boom(Exception):
    pass


def test_callback_exception_propagates_to_caller():
    def cb(frame):
        if frame.f_code is target.__code__:
            raise Boom("from callback")
        return fh.SKIP

    with fh.callback(cb):
        with pytest.raises(Boom, match="from callback"):
            target(1)
        try:
            target(1)
        except Boom as exc:
            # The traceback runs from this frame into the callback, never through the unstarted frame.
            names = []
            tb = exc.__traceback__
            while tb is not None:
                names.append(tb.tb_frame.f_code.co_name)
                tb = tb.tb_next
            assert names[0] == "test_callback_exception_propagates_to_caller"
            assert names[-1] == "cb"
            assert "target" not in names
        assert fh.get_callback() is cb
        assert fh.is_installed()
    assert fh.stats()["errors"] == 2


def test_guard_exception_propagates_and_cache_stays():
    def guard(frame):
        if frame.f_locals["a"] == "bad":
            raise Boom("from guard")
        return True

    def cb(frame):
        if frame.f_code is target.__code__:
            return fh.Entry(target_copy.__code__, guard)
        return fh.SKIP

    with fh.callback(cb):
        assert target(1)[0] == "copy"
        with pytest.raises(Boom, match="from guard"):
            target("bad")
        assert target(2)[0] == "copy"
    assert len(fh.entries(target.__code__)) == 1


def test_guard_truth_error_propagates():
    class NoBool:
        def __bool__(self):
            raise Boom("bool")

    def cb(frame):
        if frame.f_code is target.__code__:
            return fh.Entry(target_copy.__code__, lambda frame: NoBool())
        return fh.SKIP

    with fh.callback(cb):
        target(1)  # miss: stored and run
        with pytest.raises(Boom, match="bool"):
            target(1)


@pytest.mark.parametrize("bad", [42, "code", target, object()])
def test_invalid_callback_result_is_type_error(bad):
    def cb(frame):
        if frame.f_code is target.__code__:
            return bad
        return fh.SKIP

    with fh.callback(cb):
        with pytest.raises(TypeError, match="must return None, SKIP, a code object or an Entry"):
            target(1)
        assert fh.is_installed()
    assert target(1) == (1, None, (), None, {})


def test_incompatible_replacement_is_value_error_naming_difference():
    def other(a, c=None, *args, key=None, **kwargs):
        return a

    def fewer(a):
        return a

    cases = {
        other.__code__: "parameter 1 is 'b' in the original, 'c' in the replacement",
        fewer.__code__: "co_argcount 2 != 1",
    }
    for replacement, message in cases.items():
        def cb(frame, replacement=replacement):
            if frame.f_code is target.__code__:
                return fh.Entry(replacement, lambda frame: True)
            return fh.SKIP

        with fh.callback(cb):
            with pytest.raises(ValueError, match=message.replace("(", r"\(")):
                target(1)
        assert fh.entries(target.__code__) == []


def test_check_replacement_public():
    def k(a, b=None, *args, key=None, **kwargs):
        return a

    fh.check_replacement(target.__code__, k.__code__)
    fh.check_replacement(target.__code__, target.__code__.replace())

    def posonly(a, /, b=None, *args, key=None, **kwargs):
        return a

    with pytest.raises(ValueError, match="co_posonlyargcount 0 != 1"):
        fh.check_replacement(target.__code__, posonly.__code__)

    def no_kwargs(a, b=None, *args, key=None):
        return a

    with pytest.raises(ValueError, match=r"CO_VARKEYWORDS \(\*\*kwargs\) set in the original, not set"):
        fh.check_replacement(target.__code__, no_kwargs.__code__)

    x = 1

    def closes(a, b=None, *args, key=None, **kwargs):
        return x

    with pytest.raises(ValueError, match=r"co_freevars \(\) != \('x',\)"):
        fh.check_replacement(target.__code__, closes.__code__)


def test_wrong_argument_types():
    with pytest.raises(TypeError, match="expects a callable or None, not int"):
        fh.set_callback(3)
    with pytest.raises(TypeError, match="expects a callable or None, not str"):
        fh.callback("x")
    with pytest.raises(TypeError, match=r"expects a code object, not function \(pass fn.__code__\)"):
        fh.skip(target)
    with pytest.raises(TypeError, match="expects a code object, not int"):
        fh.entries(1)
    with pytest.raises(TypeError, match="expects a code object"):
        fh.clear("x")
    with pytest.raises(TypeError, match="expects a code object"):
        fh.is_skipped(None)
    with pytest.raises(TypeError, match="expects a code object"):
        fh.check_replacement(target.__code__, 1)
    with pytest.raises(TypeError, match="'code' must be a code object, not function"):
        fh.Entry(target, lambda frame: True)
    with pytest.raises(TypeError, match="'guard' must be callable, not int"):
        fh.Entry(target.__code__, 1)
    with pytest.raises(TypeError):
        fh.Entry(target.__code__)
    assert not fh.is_installed()


def test_replacement_exception_propagates():
    def cb(frame):
        if frame.f_code is target.__code__:
            return fh.Entry(target_raises.__code__, lambda frame: True)
        return fh.SKIP

    with fh.callback(cb):
        for _ in range(3):
            with pytest.raises(OSError, match="replacement failed"):
                target(1)
    assert fh.stats()["cache_hits"] == 2


def test_callback_context_exit_with_callback_error():
    def cb(frame):
        raise Boom("every frame")

    with pytest.raises(Boom):
        with fh.callback(cb):
            target(1)
    assert not fh.is_installed()


def _exercise(sentinel, kw_sentinel, rounds):
    """Run `target` through every path of the hook, passing sentinels as arguments."""
    mode = {"value": None}

    def guard(frame):
        if mode["value"] == "guard-raises":
            raise Boom("guard")
        return frame.f_locals["b"] is not None

    def cb(frame):
        if frame.f_code is gen_target.__code__:
            return fh.Entry(gen_target.__code__.replace(), lambda frame: True)
        if frame.f_code is not target.__code__:
            return fh.SKIP
        m = mode["value"]
        if m == "raise":
            raise Boom("callback")
        if m == "bad":
            return 3
        if m == "incompatible":
            return fh.Entry(gen_target.__code__.replace(co_argcount=1), guard)
        if m == "code":
            return target_copy.__code__
        if m == "entry":
            return fh.Entry(target_copy.__code__, guard)
        if m == "replacement-raises":
            return target_raises.__code__
        return None

    with fh.callback(cb):
        for _ in range(rounds):
            for m in ("none", "raise", "bad", "incompatible", "code", "entry", "replacement-raises",
                      "guard-raises"):
                mode["value"] = m
                for args, kwargs in (
                    ((sentinel,), {}),
                    ((sentinel, sentinel, sentinel), {"key": sentinel, "z": kw_sentinel}),
                ):
                    try:
                        target(*args, **kwargs)
                    except (Boom, TypeError, ValueError, OSError):
                        pass
            g = gen_target(sentinel, sentinel, key=sentinel)
            assert next(g) is sentinel
            del g
        fh.clear(target.__code__)


def test_no_reference_drift_on_any_path():
    sentinel, kw_sentinel = object(), object()
    _exercise(sentinel, kw_sentinel, rounds=3)  # warm up: caches, interned names, view recycling
    fh.clear()
    gc.collect()
    before = (sys.getrefcount(sentinel), sys.getrefcount(kw_sentinel))
    _exercise(sentinel, kw_sentinel, rounds=200)
    fh.clear()
    gc.collect()
    assert (sys.getrefcount(sentinel), sys.getrefcount(kw_sentinel)) == before


def test_no_memory_growth_on_any_path():
    sentinel = object()
    _exercise(sentinel, sentinel, rounds=20)
    fh.clear()
    gc.collect()
    before = sys.getallocatedblocks()
    _exercise(sentinel, sentinel, rounds=300)
    fh.clear()
    gc.collect()
    assert sys.getallocatedblocks() - before < 100


def test_callback_and_guard_refcounts_stable():
    class Guard:
        def __call__(self, frame):
            return True

    guard = Guard()

    class Callback:
        def __call__(self, frame):
            if frame.f_code is target.__code__:
                return fh.Entry(target_copy.__code__, guard)
            return fh.SKIP

    cb = Callback()
    refs = (sys.getrefcount(cb), sys.getrefcount(guard), sys.getrefcount(target_copy.__code__))
    with fh.callback(cb):
        for i in range(100):
            target(i)
    fh.clear()
    gc.collect()
    assert (sys.getrefcount(cb), sys.getrefcount(guard), sys.getrefcount(target_copy.__code__)) == refs


def test_set_callback_inside_callback():
    seen = []

    def second(frame):
        seen.append(("second", frame.f_code.co_name))
        return None

    def first(frame):
        seen.append(("first", frame.f_code.co_name))
        fh.set_callback(second)  # takes effect for the next frame; this call still completes
        return None

    with fh.callback(first):
        target(1)
        target(2)
        assert fh.get_callback() is second
    assert seen[:2] == [("first", "target"), ("second", "target")]


def test_clear_from_a_guard_counts_as_miss():
    calls = []

    def guard(frame):
        fh.clear(target.__code__)  # changes the very list being scanned
        return False

    def cb(frame):
        if frame.f_code is target.__code__:
            calls.append(1)
            return fh.Entry(target_copy.__code__, guard)
        return fh.SKIP

    with fh.callback(cb):
        for _ in range(5):
            assert target(1)[0] == "copy"
    assert len(calls) == 5


def test_replacement_does_not_keep_closure_or_namespace_alive():
    """Nothing the hook stores outlives the call: closures and exec'd namespaces are freed."""
    import weakref

    class Big:
        pass

    def make(obj):
        def inner(x):
            return (x, obj)

        return inner

    def cb(frame):
        if frame.f_code.co_name == "inner":
            return fh.Entry(frame.f_code.replace(), lambda frame: True)
        if frame.f_code.co_name == "g" and frame.f_code.co_filename == "<ns>":
            return fh.Entry(frame.f_code.replace(), lambda frame: True)
        return fh.SKIP

    big = Big()
    ref = weakref.ref(big)
    fn = make(big)
    ns = {}
    exec(compile("class Marker: pass\nmarker = Marker()\ndef g(x):\n    return x\n", "<ns>", "exec"), ns)
    ns_ref = weakref.ref(ns["marker"])
    with fh.callback(cb):
        assert fn(1)[0] == 1 and fn(2)[0] == 2  # a miss, then a hit
        assert ns["g"](3) == 3 and ns["g"](4) == 4
    assert len(fh.entries(fn.__code__)) == 1
    del big, fn, ns
    gc.collect()
    assert ref() is None, "the closure cell outlived the call"
    assert ns_ref() is None, "the exec'd namespace outlived the call"


def many(a, b, c, d, e, f, g, h, i, j, *rest, k1=1, k2=2, k3=3, **extra):
    return ("original", a, j, rest, k1, k3, extra)


def many_copy(a, b, c, d, e, f, g, h, i, j, *rest, k1=1, k2=2, k3=3, **extra):
    return ("copy", a, j, rest, k1, k3, extra)


def test_replacement_with_many_arguments():
    """More arguments than the hook's on-stack array: positional, *args, keyword-only, **kwargs."""
    sentinel = object()

    def cb(frame):
        if frame.f_code is many.__code__:
            return fh.Entry(many_copy.__code__, lambda frame: True)
        return fh.SKIP

    before = sys.getrefcount(sentinel)
    with fh.callback(cb):
        for _ in range(3):
            got = many(sentinel, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, k3=sentinel, z=sentinel, y=1)
            assert got == ("copy", sentinel, 10, (11, 12), 1, sentinel, {"z": sentinel, "y": 1})
            assert many(*range(10)) == ("copy", 0, 9, (), 1, 3, {})
    del got
    fh.clear()
    gc.collect()
    assert sys.getrefcount(sentinel) == before


def test_posonly_name_in_kwargs_is_passed_through():
    def po(a, /, **kw):
        return ("original", a, kw)

    def po_copy(a, /, **kw):
        return ("copy", a, kw)

    def cb(frame):
        if frame.f_code is po.__code__:
            return po_copy.__code__
        return fh.SKIP

    with fh.callback(cb):
        assert po(1, a=2) == ("copy", 1, {"a": 2})


def test_argument_errors_of_the_api():
    with pytest.raises(TypeError):
        fh.clear(target.__code__, target.__code__)
    with pytest.raises(TypeError):
        fh.check_replacement(target.__code__)
    with pytest.raises(TypeError):
        fh.callback()

    class BadBool:
        def __bool__(self):
            raise Boom("bool")

    with pytest.raises(Boom):
        fh.set_trace_callbacks(BadBool())
    assert fh.set_trace_callbacks(False) is False


def test_callback_context_misuse():
    ctx = fh.callback(lambda frame: None)
    with pytest.raises(RuntimeError, match="was not entered"):
        ctx.__exit__(None, None, None)
    with ctx:
        with pytest.raises(RuntimeError, match="already entered"):
            ctx.__enter__()
    with ctx:  # reusable once exited
        assert fh.is_installed()
    assert not fh.is_installed()


def test_test_hook_misuse():
    from loom_framehook import _framehook

    with pytest.raises(ValueError, match="unknown test hook kind"):
        _framehook._install_test_hook("bogus")
    _framehook._install_test_hook("foreign")
    try:
        with pytest.raises(RuntimeError, match="already installed"):
            _framehook._install_test_hook("foreign")
    finally:
        _framehook._install_test_hook("off")


def test_allocation_failures_surface_as_memory_error():
    """Each allocation in turn fails during hooked calls (misses and hits): MemoryError, no crash, no leak."""
    import subprocess
    from pathlib import Path

    pytest.importorskip("_testcapi")
    program = Path(__file__).parent / "nomemory_program.py"
    proc = subprocess.run([sys.executable, "-X", "dev", str(program), "60"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "refs 2->2" in proc.stdout
