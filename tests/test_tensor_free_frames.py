"""Frames that cannot give a graph cost the hook's SKIP path: decided once per code object, before any
translation, and a tensor-free recursive helper runs with no hook at all (as deep as without loom)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import torch

import loom
import loom_framehook as framehook


def fib(k):
    return k if k < 2 else fib(k - 1) + fib(k - 2)


@loom.compile(backend="eager")
def outer(x, k):
    y = torch.sin(x)
    loom.graph_break()
    return y + fib(k)


def test_a_pure_python_helper_after_a_graph_break_is_never_translated():
    # fib(24) is too large to inline into the resume function: its call runs as a frame of its own
    x = torch.randn(4)
    for k in (1, 24, 24, 23):
        assert torch.allclose(outer(x, k), torch.sin(x) + fib(k))
    assert framehook.strategy(fib.__code__) is framehook.SKIP_RECURSIVE
    assert framehook.entries(fib.__code__) == []
    stats = loom.stats()
    # outer, its resume function (static k, then dynamic k, which breaks at the call of fib) and the
    # resume function after that call: nothing for fib's frames (before: 11 recompiles of fib)
    assert stats["graphs"] <= 4, stats
    assert stats["frames_compiled"] <= 5, stats


def test_a_tensor_free_function_compiled_directly_runs_natively():
    compiled = loom.compile(fib, backend="eager")
    assert compiled(15) == fib(15)
    assert compiled(3) == 2
    assert loom.stats()["frames_compiled"] == 0
    assert framehook.strategy(fib.__code__) is framehook.SKIP_RECURSIVE


W = torch.ones(3)


def scale_global(n):
    return W * n


def test_a_function_reading_a_global_tensor_still_compiles():
    compiled = loom.compile(scale_global, backend="eager")
    assert torch.equal(compiled(2), W * 2)
    assert loom.stats()["graphs"] == 1
    assert framehook.entries(scale_global.__code__)


def sum_list(xs):
    return xs[0] + xs[1]


def call_module(m, n):
    return m(torch.ones(n, 2))


def test_lists_of_tensors_and_modules_still_compile():
    assert torch.equal(loom.compile(sum_list, backend="eager")([torch.ones(2), torch.ones(2)]), torch.full((2,), 2.0))
    m = torch.nn.Linear(2, 2)
    assert torch.allclose(loom.compile(call_module, backend="eager")(m, 3), m(torch.ones(3, 2)))
    assert framehook.entries(sum_list.__code__) and framehook.entries(call_module.__code__)


def shift(x, n):
    return x + n * n


def test_past_the_recompile_limit_old_entries_serve_and_new_inputs_cost_the_skip_path():
    compiled = loom.compile(shift, dynamic=False, options={"recompile_limit": 2}, backend="eager")
    x = torch.zeros(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(6):
            assert torch.equal(compiled(x, n), x + n * n)
    assert sum(issubclass(w.category, loom.RecompileLimitWarning) for w in caught) == 1
    code = shift.__code__
    assert framehook.strategy(code) is framehook.RUN_ONLY
    hits = loom.stats()["cache_hits"]
    calls = framehook.stats()["callback_calls"]
    assert torch.equal(compiled(x, 1), x + 1)  # an old entry serves its own inputs
    assert loom.stats()["cache_hits"] == hits + 1
    for n in range(10, 50):  # new inputs: no callback, and after 32 misses not even the guards
        assert torch.equal(compiled(x, n), x + n * n)
    assert framehook.stats()["callback_calls"] == calls
    assert framehook.strategy(code) is framehook.SKIP


DEEP = textwrap.dedent(
    """
    import sys, torch, loom
    sys.setrecursionlimit(10**6)

    def depth(n):
        return 0 if n == 0 else 1 + depth(n - 1)

    class Box:
        def __init__(self, n):
            self.n = n

    def opaque_depth(box, n):
        return 0 if n == 0 else 1 + opaque_depth(box, n - 1)

    @loom.compile(backend="eager")
    def f(x, n, which):
        y = x + 1
        loom.graph_break()
        if which == "pure":
            return y, depth(n)
        return y, opaque_depth(Box(n), n)

    x = torch.zeros(2)
    y, d = f(x, N, "pure")
    print("pure", d, bool((y == 1).all()))
    try:
        y, d = f(x, N, "opaque")
        print("opaque", d)
    except RecursionError:
        print("opaque RecursionError")
    print("after", f(x, 10, "pure")[1])
    """
)


def run_deep(n):
    proc = subprocess.run([sys.executable, "-c", f"N = {n}\n" + DEEP], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"rc={proc.returncode}\n{proc.stdout}\n{proc.stderr[-3000:]}"
    return proc.stdout.splitlines()


def test_deep_pure_recursion_below_a_compiled_frame_gives_eager_answers():
    lines = run_deep(20_000)
    assert lines[0] == "pure 20000 True"
    assert lines[1] in ("opaque 20000", "opaque RecursionError")  # the hook stays on for opaque callees
    assert lines[2] == "after 10"


def test_recursion_past_the_c_stack_raises_instead_of_crashing():
    lines = run_deep(300_000)
    assert lines[0] == "pure 300000 True", "no hook under a SKIP_RECURSIVE frame: as deep as eager"
    assert lines[1] == "opaque RecursionError"
    assert lines[2] == "after 10"
