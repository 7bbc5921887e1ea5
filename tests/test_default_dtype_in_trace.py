"""``torch.set_default_dtype`` of a constant dtype inside a compiled function is traced, not a graph break.

The graph runs under the default the frame was entered with: factories that take the default get an
explicit ``dtype=``, other ops whose result dtype depends on the default break (named), and the rewritten
code replays ``torch.set_default_dtype`` after the graph, so the default left behind is eager's.
"""

from __future__ import annotations

import contextlib

import pytest
import torch

import loom


@pytest.fixture(autouse=True)
def float32_default():
    """Every test starts and ends with torch's own default."""
    torch.set_default_dtype(torch.float32)
    yield
    torch.set_default_dtype(torch.float32)


def _run(fn, *args):
    """``fn(*args)`` and the default dtype it leaves; the default set back to float32 after."""
    try:
        return fn(*args), torch.get_default_dtype()
    finally:
        torch.set_default_dtype(torch.float32)


def _same(actual, expected):
    actual, expected = torch.utils._pytree.tree_leaves(actual), torch.utils._pytree.tree_leaves(expected)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        if isinstance(e, torch.Tensor):
            assert a.dtype == e.dtype, (a.dtype, e.dtype)
            torch.testing.assert_close(a, e)
        else:
            assert a == e


def _check(fn, *args, backend="eager", graphs=1, breaks=0, calls=2):
    compiled = loom.compile(fn, backend=backend)
    for _ in range(calls):
        torch.manual_seed(0)
        expected, expected_default = _run(fn, *args)
        torch.manual_seed(0)
        actual, actual_default = _run(compiled, *args)
        _same(actual, expected)
        assert actual_default == expected_default
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats
    return compiled


FACTORIES = {
    "ones": lambda: torch.ones(3),
    "zeros": lambda: torch.zeros(2, 2),
    "empty": lambda: torch.empty(4).shape,
    "full": lambda: torch.full((2,), 1.5),
    "arange": lambda: torch.arange(0.5, 3.0),
    "tensor": lambda: torch.tensor([1.0, 2.5]),
    "randn": lambda: torch.randn(3),
    "rand": lambda: torch.rand(3),
    "linspace": lambda: torch.linspace(0, 1, 5),
    "eye": lambda: torch.eye(2),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_each_factory_takes_the_default_set_in_the_trace(name, backend):
    make = FACTORIES[name]

    def fn(x):
        torch.set_default_dtype(torch.float64)
        made = make()
        dtype = torch.empty(1).dtype
        torch.set_default_dtype(torch.float32)
        return x + 1, made, dtype

    _check(fn, torch.ones(3), backend=backend)


def restore_in_finally(x):
    old = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float64)
        y = torch.ones(3) + x
    finally:
        torch.set_default_dtype(old)
    return y, torch.zeros(1)


def test_restore_in_finally():
    _check(restore_in_finally, torch.ones(3), backend="aot_eager")


def leave_set(x):
    torch.set_default_dtype(torch.float64)
    return x + torch.ones(3), torch.get_default_dtype()


def test_default_left_set_after_the_call_as_in_eager_cache_hit_too():
    _check(leave_set, torch.ones(3), calls=3)
    assert loom.stats()["recompiles"] == 0


def test_guard_recompiles_when_the_default_differs_at_call_time():
    compiled = _check(restore_in_finally, torch.ones(3))
    torch.set_default_dtype(torch.float64)
    try:
        expected = restore_in_finally(torch.ones(3))
        actual = compiled(torch.ones(3))
        assert torch.get_default_dtype() == torch.float64
    finally:
        torch.set_default_dtype(torch.float32)
    _same(actual, expected)
    assert loom.stats()["graphs"] == 2 and loom.stats()["graph_breaks"] == 0


def explicit_and_integer_dtypes(x):
    torch.set_default_dtype(torch.float64)
    out = torch.ones(2, dtype=torch.float16), torch.full((2,), 3), torch.arange(4), x.new_ones(2), x * 0.5
    torch.set_default_dtype(torch.float32)
    return out


def test_explicit_and_integer_dtypes_kept():
    _check(explicit_and_integer_dtypes, torch.ones(3))


def promotes_by_default(x):
    torch.set_default_dtype(torch.float64)
    y = torch.arange(3) / 2  # an integer tensor divided: a float tensor of the default dtype
    torch.set_default_dtype(torch.float32)
    return x + 1, y


def test_op_whose_dtype_depends_on_the_default_breaks_with_a_reason():
    _check(promotes_by_default, torch.ones(3), graphs=2, breaks=1)
    loom.reset()
    report = str(loom.explain(promotes_by_default)(torch.ones(3)))
    torch.set_default_dtype(torch.float32)
    assert "after torch.set_default_dtype(torch.float64)" in report and "depends on the default dtype" in report, report


def break_after_set(x):
    torch.set_default_dtype(torch.float64)
    print("break", end="")
    return x + torch.ones(3), torch.get_default_dtype()


def test_break_after_the_set_runs_the_rest_under_the_new_default(capsys):
    _check(break_after_set, torch.ones(3), graphs=1, breaks=1)


def raises_after_set(x):
    torch.set_default_dtype(torch.float64)
    y = torch.ones(3) + x
    raise ValueError(str(y.dtype))


def test_exception_after_the_set_leaves_the_default_eager_leaves():
    compiled = loom.compile(raises_after_set, backend="eager")
    for fn in (raises_after_set, compiled, compiled):
        with pytest.raises(ValueError, match=r"torch\.float64"):
            fn(torch.ones(3))
        assert torch.get_default_dtype() == torch.float64
        torch.set_default_dtype(torch.float32)


def _sets_double():
    torch.set_default_dtype(torch.float64)
    return torch.zeros(2)


def inlined_helper(x):
    z = _sets_double()
    torch.set_default_dtype(torch.float32)
    return z, x + 1


def test_set_in_an_inlined_helper():
    _check(inlined_helper, torch.ones(2))


@contextlib.contextmanager
def default_dtype(dtype):
    old = torch.get_default_dtype()
    try:
        torch.set_default_dtype(dtype)
        yield
    finally:
        torch.set_default_dtype(old)


def contextmanager_sets_and_restores(x):
    with default_dtype(torch.float64):
        y = torch.ones(3) + x.double()
    return y, y.dtype, torch.get_default_dtype(), torch.ones(1)


def test_contextmanager_that_sets_and_restores():
    _check(contextmanager_sets_and_restores, torch.ones(3), backend="aot_eager")


def test_trace_failure_leaves_the_default_alone():
    def fn(x):
        torch.set_default_dtype(torch.float64)
        return torch.ones(3).nonzero_static_does_not_exist(x)

    compiled = loom.compile(fn, backend="eager")
    with pytest.raises(AttributeError):
        compiled(torch.ones(3))
    assert torch.get_default_dtype() == torch.float64  # eager sets it before the failing line


def finfo_of_the_default(x):
    torch.set_default_dtype(torch.float64)
    eps = torch.finfo().eps
    torch.set_default_dtype(torch.float32)
    return x + eps, eps


def test_finfo_without_arguments_reads_the_default_set_in_the_trace():
    _check(finfo_of_the_default, torch.ones(3))
