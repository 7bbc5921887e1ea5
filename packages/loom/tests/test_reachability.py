"""The verdict taken before translating a frame: compile it, skip it, or skip it and all it calls."""

from __future__ import annotations

import functools
import math
import types

import pytest
import torch

from loom.reachability import Verdict, frame_verdict

W = torch.ones(3)
MODEL = torch.nn.Linear(2, 2)
TABLE = {"a": 1, "b": (2, 3)}
TENSORS = [torch.zeros(1)]


def verdict(fn, *args):
    code = fn.__code__
    names = code.co_varnames[: code.co_argcount]
    return frame_verdict(code, dict(zip(names, args)), fn.__globals__, fn.__builtins__, fn.__closure__)


def fib(k):
    return k if k < 2 else fib(k - 1) + fib(k - 2)


def plain_data(a, b, c):
    return a, b, c


def uses_math(x):
    return math.sqrt(x) + len(TABLE) + sum(TABLE["b"])


def reads_global_tensor(n):
    return W * n


def reads_global_module(n):
    return MODEL


def makes_a_tensor(n):
    return torch.ones(n)


def calls_a_tensor_helper(n):
    return makes_a_tensor(n) + 1


def calls_a_pure_helper(n):
    return fib(n) + uses_math(n)


def lambdas_inside(n):
    return sorted(range(n), key=lambda i: -i)


def reads_global_list_of_tensors(n):
    return TENSORS[0] * n


class Holder:
    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value


class Slotted:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


Pair = __import__("collections").namedtuple("Pair", "a b")


class TensorMaker:
    def make(self):
        return torch.zeros(2)


def method_of(obj):
    return obj.get()


def closure_over(value):
    def inner(n):
        return value, n

    return inner


@pytest.mark.parametrize(
    ("fn", "args", "expected"),
    [
        (fib, (10,), Verdict.SKIP_RECURSIVE),
        (uses_math, (4.0,), Verdict.SKIP_RECURSIVE),
        (calls_a_pure_helper, (3,), Verdict.SKIP_RECURSIVE),
        (lambdas_inside, (3,), Verdict.SKIP_RECURSIVE),
        (plain_data, ("text", [1, 2], {"k": (None, 1.5)}), Verdict.SKIP_RECURSIVE),
        (reads_global_tensor, (2,), Verdict.COMPILE),
        (reads_global_module, (2,), Verdict.COMPILE),
        (reads_global_list_of_tensors, (2,), Verdict.COMPILE),
        (makes_a_tensor, (2,), Verdict.COMPILE),
        (calls_a_tensor_helper, (2,), Verdict.COMPILE),
        (fib, (torch.ones(2),), Verdict.COMPILE),
        (fib, ([1, torch.ones(2)],), Verdict.COMPILE),
        (fib, ({"x": torch.ones(2)},), Verdict.COMPILE),
        (fib, (MODEL,), Verdict.COMPILE),
        (fib, (torch.float32,), Verdict.COMPILE),
        (fib, (makes_a_tensor,), Verdict.COMPILE),
        (fib, (functools.partial(makes_a_tensor, 2),), Verdict.COMPILE),
        (method_of, (Holder(torch.ones(1)),), Verdict.COMPILE),
        (method_of, (Holder(3),), Verdict.SKIP),
        (method_of, (TensorMaker(),), Verdict.COMPILE),
        (fib, (Pair(torch.ones(1), 2),), Verdict.COMPILE),  # a tuple subclass: its items are looked at
        (fib, (Pair(1, 2),), Verdict.SKIP),
        (fib, (Slotted(torch.ones(1)),), Verdict.COMPILE),
        (fib, (Slotted(1),), Verdict.SKIP),
        (fib, (list(range(5000)),), Verdict.COMPILE),  # too long to look through: the translator decides
    ],
)
def test_verdicts(fn, args, expected):
    assert verdict(fn, *args) is expected


def test_closure_cells_are_looked_at():
    assert verdict(closure_over(torch.ones(1)), 1) is Verdict.COMPILE
    assert verdict(closure_over(3), 1) is Verdict.SKIP_RECURSIVE


def test_a_compiled_function_reached_from_a_helper_compiles():
    import loom

    compiled = loom.compile(makes_a_tensor, backend="eager")
    scope = {"compiled": compiled}
    helper = types.FunctionType(compile("def helper(n):\n    return compiled(n)\n", "<t>", "exec").co_consts[0], scope)
    assert frame_verdict(helper.__code__, {"n": 1}, scope, __builtins__, None) is Verdict.COMPILE


def test_an_import_of_torch_inside_compiles():
    def imports(n):
        import torch as t

        return t.ones(n)

    assert verdict(imports, 1) is Verdict.COMPILE


def test_an_argument_that_breaks_on_inspection_compiles():
    class Hostile:
        @property
        def __dict__(self):
            raise RuntimeError("no")

    assert verdict(method_of, Hostile()) is Verdict.COMPILE
