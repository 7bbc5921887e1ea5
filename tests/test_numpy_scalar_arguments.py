"""NumPy scalars handed in as arguments and read as Python values (PyTorch's test_unspec: a NumPy float in
a branch, ``max`` of a NumPy int and an int, ``float(s)``, ``math.sqrt(s)``, an ``np.int64`` as a size or an
index), and values computed from them and numbers (``min(a - 4, b)``): the argument is specialised there,
its value a guard, as torch.compile does, so the frame is one graph; a new value recompiles rather than
reuse the old answer. Arithmetic on the argument still runs in the graph unspecialised (one compile for
every value), and a NumPy scalar a resume function receives is never specialised (the read stays a break)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import loom


def branch_on_float32(x, y):
    if y > 1.0:
        return x + 1
    return x - 1


def float_of_float64(x, s):
    return x * s + 1, float(s) * 2


def math_of_float64(x, s):
    r = math.sqrt(s)
    return x * math.exp(s) + r, r


def int64_as_size_and_index(x, n):
    y = x.repeat(2) + 1
    return torch.ones(n) + x.sum(), y[n], y[n:] * 2


def truth_of_int64(x, n):
    return x + 1 if n else x - 1


def max_min_of_computed_int64(x, a):
    return x + 1, max(a, 10), min(a - 4, 10), int(a * 2 + 1)


CASES = [(branch_on_float32, np.float32(1.23), np.float32(0.5)), (float_of_float64, np.float64(1.5), np.float64(-2.0)),
         (math_of_float64, np.float64(0.25), np.float64(0.5)), (int64_as_size_and_index, np.int64(4), np.int64(5)),
         (truth_of_int64, np.int64(0), np.int64(3)), (max_min_of_computed_int64, np.int64(12), np.int64(5))]


def _same(actual, expected):
    assert type(actual) is type(expected)
    if isinstance(expected, tuple):
        for a, e in zip(actual, expected):
            _same(a, e)
    elif isinstance(expected, torch.Tensor):
        assert torch.equal(actual, expected)
    else:
        assert actual == expected


@pytest.mark.parametrize(("fn", "first", "second"), CASES, ids=[c[0].__name__ for c in CASES])
def test_numpy_scalar_argument_read_as_a_value_is_specialised(fn, first, second):
    loom.reset()
    compiled = loom.compile(fn, backend="eager", options={"strict": True})
    _same(compiled(torch.arange(3.0), first), fn(torch.arange(3.0), first))
    assert (loom.stats()["graphs"], loom.stats()["graph_breaks"]) == (1, 0), loom.stats()
    _same(compiled(torch.arange(3.0), second), fn(torch.arange(3.0), second))  # the guard sees the new value
    assert loom.stats()["graphs"] == 2 and loom.stats()["graph_breaks"] == 0, loom.stats()


def divided(x, y):
    return x + y / 2


def test_arithmetic_on_a_numpy_scalar_argument_stays_unspecialised():
    loom.reset()
    compiled = loom.compile(divided, backend="eager", options={"strict": True})
    for value in (np.float64(1.5), np.float64(3.0), np.float64(-1.0)):
        _same(compiled(torch.arange(3.0), value), divided(torch.arange(3.0), value))
    assert loom.stats()["graphs"] == 1, loom.stats()
