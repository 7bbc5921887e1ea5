"""Autocast and ``record_function`` regions (issue 29): a manager torch made outside the trace (an
``@torch.autocast(...)`` decorator's) is entered as a region of the graph, and a break inside a region
costs one break: the resume function enters a fresh manager itself and its graph records the region."""

from __future__ import annotations

import io

import torch

import loom

_SINK = io.StringIO()


@torch.autocast(device_type="cpu", dtype=torch.bfloat16)
def _mm_in_bf16(a, b):
    return torch.mm(a, b)


def autocast_decorated(x):
    a = torch.outer(x, x + 2)
    return _mm_in_bf16(a, a), torch.mm(a, a)


def autocast_break_inside(x):
    a = torch.outer(x, x + 1)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        b = torch.mm(a, a)
        print("break", file=_SINK)
        c = torch.mm(b.float(), a)
        enabled = torch.is_autocast_enabled("cpu")
    return b, c, enabled, torch.mm(a, a)


def record_function_break_inside(x):
    with torch.profiler.record_function("block"):
        z = x**3
        print("break", file=_SINK)
        z = z + 1
    return z


_W = torch.ones(3, requires_grad=True)


def autocast_break_inside_no_grad(x):
    w = _W
    with torch.no_grad():
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            print("break", file=_SINK)
            y = torch.mm(torch.outer(x, x), torch.outer(x, w))
        z = x * w
    return y, z, torch.is_grad_enabled(), x * w


def _run(fn, graphs, breaks):
    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    for _ in range(2):
        actual, expected = compiled(x), fn(x)
        assert not torch.is_autocast_enabled("cpu")
        for a, e in zip(actual if isinstance(actual, tuple) else (actual,),
                        expected if isinstance(expected, tuple) else (expected,)):
            if isinstance(e, torch.Tensor):
                assert a.dtype == e.dtype and a.requires_grad == e.requires_grad
                torch.testing.assert_close(a, e)
            else:
                assert a == e
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["recompiles"]) == (graphs, breaks, 0), stats


def test_an_autocast_decorator_made_outside_is_a_region_of_the_graph():
    _run(autocast_decorated, 1, 0)


def test_a_break_inside_autocast_is_one_break_and_the_resumed_graph_records_the_region():
    _run(autocast_break_inside, 2, 1)


def test_a_break_inside_autocast_inside_no_grad_keeps_both_modes():
    _run(autocast_break_inside_no_grad, 2, 1)


def test_a_break_inside_record_function_is_one_break():
    _run(record_function_break_inside, 2, 1)


def profiler_block_break_inside(x):
    with torch.profiler.profile():
        y = x + 2
        with torch.autograd.profiler.record_function("inner"):
            z = y**3
            print("break", file=_SINK)
            z = z + 1
    return z


def profiler_object_kept_across_a_break(x):
    with torch.autograd.profiler.profile() as prof:
        y = x * 2
    print("break", file=_SINK)
    return y + 1, type(prof).__name__


def test_a_profiler_block_is_a_null_region_as_under_torch_compile():
    _run(profiler_block_break_inside, 2, 1)


def test_a_profiler_object_kept_across_a_break_is_never_rebuilt_as_something_else():
    x = torch.arange(3.0)
    loom.reset()
    out, name = loom.compile(profiler_object_kept_across_a_break, backend="eager")(x)
    assert name == "profile"
    torch.testing.assert_close(out, x * 2 + 1)
