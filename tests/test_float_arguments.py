"""A float argument that changed between compiles becomes a SymFloat graph input (``loom/dynamic.py``,
``shapes.ShapeContext.symbolic_float``), as torch.compile's automatic dynamic makes it: a function called
with a new float each time, or a loop over floats with a graph break in its body (its resume functions
receive each item as an argument), compiles a bounded number of entries, where it compiled once per value
up to the recompile limit. No relation guard can say a decision on a float, so any decision the trace takes
on one (a branch, ``math.sqrt``, ``int()``, a format) pins its exact value with a constant guard; a value
that is not finite, or a zero, compiled with stays a constant; a graph the backend cannot compile with a float input
(AOTAutograd and ``x % 0.7``) is compiled again with its floats constants.
"""

from __future__ import annotations

import math
import warnings

import pytest
import torch
from breaks_harness import assert_same, compare

import loom

VALUES = [0.5, 1.5, 2.25, 3.0, 4.5, 5.75, 6.125, 7.5, 8.0, 9.5, 10.25, 11.0]


def _same_or_both_nan(actual, expected):
    """``assert_same``, where a float is compared by its text (NaN equals NaN, the sign of a zero counts)."""
    if type(expected) is tuple:
        assert type(actual) is tuple and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _same_or_both_nan(a, e)
    elif type(expected) is float:
        assert type(actual) is float and repr(actual) == repr(expected), (actual, expected)
    else:
        assert_same(actual, expected)


def _calls(fn, values, *, backend="eager", extra=()):
    """Call ``fn`` compiled once per value, each answer checked against eager; loom's counters after."""
    loom.reset()
    compiled = loom.compile(fn, backend=backend)
    for s in values:
        x = torch.linspace(-1.0, 1.0, 5)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # a backend failing would warn
            _same_or_both_nan(compiled(x.clone(), s, *extra), fn(x.clone(), s, *extra))
    return loom.stats()


def scaled(x, s):
    return x * s + s * s, s * s + 1.0, s / 3, -s, s // 0.25


def python_only(x, s):
    return x + 1, s * 2.0 - 0.5


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("fn", [scaled, python_only])
def test_a_new_float_each_call_compiles_twice(fn, backend):
    stats = _calls(fn, VALUES, backend=backend)
    assert (stats["frames_compiled"], stats["recompiles"]) == (2, 1), stats


def mixed(x, s, n):
    return x * s * n + n, s * n


def test_a_float_and_an_int_both_changing():
    loom.reset()
    compiled = loom.compile(mixed, backend="eager")
    for s, n in [(0.5, 2), (1.5, 3), (2.5, 4), (3.5, 5), (4.5, 6)]:
        assert_same(compiled(torch.ones(3), s, n), mixed(torch.ones(3), s, n))
    assert loom.stats()["frames_compiled"] == 2


def looped(x, values):
    for v in values:
        x = x * v
        print("pass")
        x = x + v * 2.0
    return x


@pytest.mark.parametrize("n", [12, 40])
def test_a_loop_over_floats_with_a_break_compiles_a_bounded_number_of_entries(n):
    values = [0.5 + i / 64 for i in range(n)]
    stats = compare(looped, torch.randn(4), values)  # eager's values and prints, twice
    assert stats["frames_compiled"] <= 6 and stats["recompiles"] <= 2, stats


# -- a decision on a float pins it: eager's answers, one compile per value ------------------------------
def branch(x, s):
    return x + 1 if s > 3.0 else x - 1


def square_root(x, s):
    return x * math.sqrt(s)


def to_int(x, s):
    return x * int(s), round(s), int(s * 10)


def text(x, s):
    return x * s, f"{s:.3f}", str(s), "%.2f" % s


def float_methods(x, s):
    return x * s, s.is_integer(), s.hex(), s.as_integer_ratio()


@pytest.mark.parametrize("fn", [branch, square_root, to_int, text, float_methods])
def test_a_decision_on_a_float_pins_its_value(fn):
    stats = _calls(fn, VALUES[:6])
    assert stats["graph_breaks"] == 0, stats
    assert stats["frames_compiled"] == 6, stats  # each value guarded: eager's answer for every one


def torch_ops(x, s):
    return torch.full((3,), s), x.add(s), torch.clamp(x, max=s), x ** s, x.mul(2.0) * s


def test_torch_ops_take_the_float_as_an_input():
    stats = _calls(torch_ops, VALUES)
    assert stats["frames_compiled"] == 2, stats


# -- what stays a constant --------------------------------------------------------------------------------
def reciprocal(x, s):
    return x / s, s * 1.0


def test_zeros_and_values_that_are_not_finite_run_the_symbolic_entry():
    # no decision was taken on the float: the graph computes with whatever value it is given
    stats = _calls(reciprocal, [0.5, 1.5, 0.0, -0.0, math.inf, -math.inf, math.nan, 2.5])
    assert stats["frames_compiled"] == 2, stats


def test_a_zero_or_a_value_that_is_not_finite_compiled_with_stays_a_constant():
    # the values seen when the float would become a symbol are each a guarded constant (sign and NaN kept)
    stats = _calls(reciprocal, [0.5, 0.0, -0.0, math.inf, math.nan, 1.5, 2.5, 3.5, -0.0, math.nan])
    assert stats["frames_compiled"] == 6, stats


def remainder(x, s):
    return x * s, s % 0.7


def test_a_graph_the_backend_refuses_with_a_float_input_is_compiled_with_constants():
    stats = _calls(remainder, VALUES[:4], backend="aot_eager")  # a RuntimeWarning would fail
    assert stats["frames_compiled"] == 4, stats


def test_dynamic_false_keeps_floats_constant():
    loom.reset()
    compiled = loom.compile(scaled, backend="eager", dynamic=False)
    for s in VALUES[:4]:
        assert_same(compiled(torch.ones(2), s), scaled(torch.ones(2), s))
    assert loom.stats()["frames_compiled"] == 4
