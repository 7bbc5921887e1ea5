"""NumPy work on integer arrays and scalars that gives floats (PyTorch's test_unspec ``np_y[0][0] / 68``, a
NumPy int argument ``/ 2``): NumPy computes them in float64 whatever torch's default dtype, so the graph's
``torch._numpy`` calls run with float64 as the default dtype and the program gets eager's float64 in one
graph; before, torch's float32 default made the checked result differ, a graph break."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import loom


def index_of_int_view_divided(x, y):
    np_y = y.numpy()
    return x + 1, np_y[0] / 68, np_y / 2


def int_argument_divided(x, y):
    return x + 1, y / 2


def sqrt_and_mean_of_ints(x, y):
    a = y.numpy()
    return x * 2, np.sqrt(a), a.mean()


@pytest.mark.parametrize("fn", [index_of_int_view_divided, int_argument_divided, sqrt_and_mean_of_ints])
def test_numpy_int_work_gives_float64_in_one_graph(fn):
    args = (torch.arange(3.0), torch.arange(1, 4) if fn is not int_argument_divided else np.int64(7))
    expected = fn(*args)
    loom.reset()
    actual = loom.compile(fn, backend="eager", options={"strict": True})(*args)
    assert (loom.stats()["graphs"], loom.stats()["graph_breaks"]) == (1, 0), loom.stats()
    for a, e in zip(actual, expected):
        assert type(a) is type(e)
        if isinstance(e, torch.Tensor):
            assert torch.equal(a, e)
        else:
            assert a.dtype == e.dtype == np.dtype(np.float64)
            np.testing.assert_array_max_ulp(a, e, maxulp=2)  # torch's sqrt may round otherwise


def test_default_dtype_is_left_as_it_was():
    def fn(x, y):
        return x + 1, y.numpy() / 3, torch.tensor(1.5)

    loom.reset()
    out = loom.compile(fn, backend="eager", options={"strict": True})(torch.arange(3.0), torch.arange(3))
    assert torch.get_default_dtype() == torch.float32 and out[2].dtype == torch.float32
    assert out[1].dtype == np.float64


def _int_arithmetic(x, a, n):
    return x + 1, a / 3, n / 2, (a * 2) / a.sum(), np.where(a > 1, a, 0.5), np.sqrt(a), a.mean()


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "default"])
def test_integer_promotions_are_float64_under_every_backend(backend):
    """AOTAutograd retraces the graph into ATen ops whose int->float promotion follows the default dtype when
    they run: each such promotion is made an explicit cast to float64 while the NumPy target runs."""
    a, n = np.arange(4), np.int64(7)
    expected = _int_arithmetic(torch.ones(1), a, n)
    loom.reset()
    actual = loom.compile(_int_arithmetic, backend=backend, options={"strict": True})(torch.ones(1), a, n)
    for got, want in zip(actual[1:], expected[1:]):
        assert type(got) is type(want) and got.dtype == want.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-12)  # float32 would be off by ~1e-8
