"""An int or float subclass instance made while tracing, whose class writes some arithmetic in Python, in a torch
operation (``x * Count(2)``, ``torch.add(x, c)``, ``x - Meters(1.5)``): torch reads the value, and the class's
methods answer only where Python would ask them (the object on the left). It used to be a graph break."""

from __future__ import annotations

import torch

import loom


class _Count(int):
    def __add__(self, other):
        return _Count(int(self) + int(other) + 1) if isinstance(other, int) else NotImplemented

    def __mul__(self, other):
        return "mul"

    def __rmul__(self, other):
        return "rmul"


class _Meters(float):
    def __radd__(self, other):
        return "radd"

    def __sub__(self, other):
        return "sub"


def test_subclass_values_in_torch_operations_are_one_graph():
    def fn(x):
        c = _Count(2)
        m = _Meters(1.5)
        return (x * c, c * x, x + c, torch.add(x, c), x - m, m - x, x + m, m + x, torch.full((c,), m),
                type(c + 1).__name__)

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    assert len(got) == len(expected)
    for a, b in zip(expected, got):
        if isinstance(a, torch.Tensor):
            torch.testing.assert_close(b, a)
        else:
            assert a == b
    assert got[1] == "mul" and got[5] == "sub" and got[9] == "_Count"
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks


def test_a_left_method_declining_hands_over_to_the_tensor():
    def fn(x):
        return _Count(2) + x

    x = torch.arange(3.0)
    loom.reset()
    torch.testing.assert_close(loom.compile(fn, backend="eager", options={"strict": True})(x), fn(x))
