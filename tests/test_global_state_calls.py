"""torch functions that change global state, called inside a compiled function, take effect when it runs.

Traced as graph ops they ran once, while tracing, and left no node (they return None): the compiled code
then ran without them. They are graph breaks (each call runs them for real, between compiled graphs), or
tracked by the translator and replayed by the rewritten code (``torch.set_default_dtype`` of a constant dtype).
"""

from __future__ import annotations

import pytest
import torch

import loom


def autocast_matmul(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = torch.mm(x, x)
    return y


def default_dtype_ones(x):
    torch.set_default_dtype(torch.float64)
    y = torch.ones(2)
    torch.set_default_dtype(torch.float32)
    return x + 1, y


def leave_default_dtype(x):
    torch.set_default_dtype(torch.float64)
    return x + 1


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_autocast_inside_a_compiled_function_casts(backend):
    compiled = loom.compile(autocast_matmul, backend=backend)
    x = torch.eye(3) + 0.25
    for _ in range(2):
        actual, expected = compiled(x), autocast_matmul(x)
        assert actual.dtype == expected.dtype == torch.bfloat16
        torch.testing.assert_close(actual, expected)
        assert not torch.is_autocast_enabled("cpu")


def test_default_dtype_set_inside_a_compiled_function_applies_at_every_call():
    compiled = loom.compile(default_dtype_ones, backend="eager")
    for _ in range(2):
        _, ones = compiled(torch.zeros(2))
        assert ones.dtype == torch.float64
        assert torch.get_default_dtype() == torch.float32


def test_default_dtype_left_set_by_a_compiled_function():
    compiled = loom.compile(leave_default_dtype, backend="eager")
    try:
        for _ in range(2):
            compiled(torch.zeros(2))
            assert torch.get_default_dtype() == torch.float64  # a cache hit sets it too
            torch.set_default_dtype(torch.float32)
        assert loom.stats()["recompiles"] == 0
    finally:
        torch.set_default_dtype(torch.float32)


def forward_ad_tangent(x):
    with torch.autograd.forward_ad.dual_level():
        dual = torch.autograd.forward_ad.make_dual(x, torch.ones(3))
        return torch.autograd.forward_ad.unpack_dual(dual * dual).tangent


def test_forward_ad_level_inside_a_compiled_function():
    compiled = loom.compile(forward_ad_tangent, backend="eager")
    x = torch.arange(1.0, 4.0)
    for _ in range(2):
        torch.testing.assert_close(compiled(x), forward_ad_tangent(x))


def default_dtype_around_work(x):
    old = torch.get_default_dtype()
    y = x * 2
    torch.set_default_dtype(torch.float64)
    z = torch.ones(3) + y + 0.5
    torch.set_default_dtype(old)
    return z, y


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_set_default_dtype_of_a_constant_is_traced_into_one_graph(backend):
    loom.reset()
    compiled = loom.compile(default_dtype_around_work, backend=backend)
    for _ in range(2):
        actual, expected = compiled(torch.arange(3.0)), default_dtype_around_work(torch.arange(3.0))
        for a, e in zip(actual, expected):
            assert a.dtype == e.dtype
            torch.testing.assert_close(a, e)
        assert torch.get_default_dtype() == torch.float32
    stats = loom.stats()
    assert stats["graph_breaks"] == 0 and stats["graphs"] == 1, stats


def default_dtype_not_floating(x):
    y = x * 2
    torch.set_default_dtype(torch.int64)
    return y + torch.ones(3)


def test_set_default_dtype_eager_refuses_raises_as_in_eager():
    compiled = loom.compile(default_dtype_not_floating, backend="eager")
    with pytest.raises(TypeError) as expected:
        default_dtype_not_floating(torch.arange(3.0))
    with pytest.raises(TypeError) as actual:
        compiled(torch.arange(3.0))
    assert str(actual.value) == str(expected.value)
    assert torch.get_default_dtype() == torch.float32
