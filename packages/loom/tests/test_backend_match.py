"""Entries live on the code object, shared by every wrapper: each backend gets its own, never another's."""

import types

import torch

import loom
import loom_framehook as framehook


def f(x):
    return torch.sin(x) * 3


def recording(log, name):
    def backend(gm, example_inputs):
        def run(*args):
            log.append(name)
            return gm.forward(*args)

        return run

    backend.__qualname__ = name
    return backend


def test_a_function_compiled_with_two_backends_uses_each_ones_entry():
    log = []
    a = loom.compile(f, backend=recording(log, "a"))
    b = loom.compile(f, backend=recording(log, "b"))
    x = torch.randn(4)
    for fn in (a, b, a, b, b, a):
        torch.testing.assert_close(fn(x), torch.sin(x) * 3)
    assert log == ["a", "b", "a", "b", "b", "a"]
    entries = framehook.entries(f.__code__)
    assert len(entries) == 2
    assert {e.compiler for e in entries} == {a._loom_compiler, b._loom_compiler}
    # a second backend is a first compile for it, not a recompile
    assert loom.stats()["recompiles"] == 0 and loom.stats()["frames_compiled"] == 2


def test_same_settings_share_one_compiler_and_its_entries():
    first = loom.compile(f, backend="eager")
    second = loom.compile(f, backend="eager")
    assert first._loom_compiler is second._loom_compiler
    first(torch.randn(4))
    second(torch.randn(4))
    assert loom.stats()["frames_compiled"] == 1 and loom.stats()["cache_hits"] == 1
    other = loom.compile(f, options={"recompile_limit": 3}, backend="eager")  # other settings: another compiler
    assert other._loom_compiler is not first._loom_compiler
    other(torch.randn(4))
    assert loom.stats()["frames_compiled"] == 2


def test_a_compiled_function_calling_one_compiled_with_another_backend():
    log = []
    inner = loom.compile(f, backend=recording(log, "inner"))

    def outer_fn(x):
        return inner(x) + 1  # the call into a loom wrapper is not inlined: it runs as its own frame

    outer = loom.compile(outer_fn, backend=recording(log, "outer"))
    x = torch.randn(4)
    torch.testing.assert_close(outer(x), torch.sin(x) * 3 + 1)
    torch.testing.assert_close(outer(x), torch.sin(x) * 3 + 1)
    assert "inner" in log
    assert framehook.get_callback() is None


def test_the_entry_is_not_used_without_its_compiler():
    compiled = loom.compile(f, backend="eager")
    x = torch.randn(4)
    compiled(x)
    hits = loom.stats()["cache_hits"]
    seen = []
    with framehook.callback(lambda frame: seen.append(frame.f_code)):  # another hook user, same code
        f(x)
    assert loom.stats()["cache_hits"] == hits
    assert f.__code__ in seen  # the hook asked that callback: loom's entry did not serve the call
    compiled(x)
    assert loom.stats()["cache_hits"] == hits + 1  # and the entry still serves loom's calls


def test_what_a_custom_backend_returns_runs_with_the_hook_off():
    log = []
    compiled = loom.compile(f, backend=recording(log, "mine"))
    for _ in range(3):
        compiled(torch.randn(4))
    assert log == ["mine"] * 3
    # the backend's own Python function (user code here) was never compiled by loom
    assert loom.stats()["frames_compiled"] == 1


def test_functions_sharing_a_code_object_with_other_globals_get_their_own_entries():
    # The rewritten code loads its graph from the globals it was compiled in (`__loom_graph_N`): served
    # to a function with other globals, it raised NameError.
    first_globals = {"K": 2}
    exec("def scaled(x):\n    return x * K + 1\n", first_globals)
    first = first_globals["scaled"]
    second = types.FunctionType(first.__code__, {"K": 2}, "scaled")
    third = types.FunctionType(first.__code__, {"K": 5}, "scaled")
    x = torch.ones(2)
    for fn, expected in ((first, 3.0), (second, 3.0), (third, 6.0), (first, 3.0)):
        torch.testing.assert_close(loom.compile(fn, backend="eager")(x), torch.full((2,), expected))
    assert loom.stats()["frames_compiled"] == 3


def test_a_miss_while_the_entry_is_not_stored_yet_reuses_it():
    # The hook stores a returned entry only after the callback returns, outside the compile lock: a
    # thread that waited on the lock meanwhile must find the entry, not compile a duplicate.
    compiled = loom.compile(f, backend="eager")
    compiler = compiled._loom_compiler
    handed = []

    def miss_twice(frame):
        if frame.f_code is not f.__code__:
            return None
        handed.append(compiler(frame))
        handed.append(compiler(frame))  # as if another thread missed before the hook stored the entry
        return handed[0]

    x = torch.randn(4)
    with framehook.callback(miss_twice):
        out = f(x)
    torch.testing.assert_close(out, torch.sin(x) * 3)
    first, second = handed
    assert isinstance(first, framehook.Entry)
    assert second is first.code
    assert loom.stats()["frames_compiled"] == 1
    assert framehook.entries(f.__code__) == [first]
    torch.testing.assert_close(compiled(x), torch.sin(x) * 3)  # stored: served without a compile
    assert loom.stats()["frames_compiled"] == 1


def test_the_hook_compares_compiler_and_globals_before_the_guard():
    # The entry carries its compiler and globals for the hook to compare in C; its guard is the compiled
    # guard function itself (no Python closure in front of it), so another backend's call never runs it.
    a = loom.compile(f, backend="eager")
    x = torch.randn(4)
    a(x)
    (entry,) = framehook.entries(f.__code__)
    assert entry.callback is a._loom_compiler and entry.globals is f.__globals__
    assert entry.guard is entry.guard_fn
    calls = []
    real = entry.guard_fn
    b = loom.compile(f, backend=recording(calls, "b"))
    b(x)
    assert calls == ["b"] and len(framehook.entries(f.__code__)) == 2 and entry.guard is real
