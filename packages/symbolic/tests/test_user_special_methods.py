"""Special methods a user class writes in Python, met the way CPython's test_class meets them: ``-obj``,
``+obj``, ``~obj`` and ``abs(obj)`` call the class's ``__neg__``/``__pos__``/``__invert__``/``__abs__``
(each broke the graph before). An operator that no operand's class supports raises Python's TypeError
(``obj + 1``, ``1 - obj``, ``obj < obj``, ``obj += 1``, ``-obj``), which the program may catch; it was a graph
break before. A class's ``__index__`` serves subscripts and slices of lists, ``bin``/``hex``/``oct`` and
``operator.index`` (a graph break before)."""

import operator

import pytest
import torch
from harness import assert_same, check


class Num:
    def __init__(self, v):
        self.v = v

    def __mul__(self, k):
        return Num(self.v * k)

    def __neg__(self):
        return Num(-self.v)

    def __pos__(self):
        return Num(self.v + 0.5)

    def __invert__(self):
        return Num(~int(self.v))

    def __abs__(self):
        return Num(abs(self.v))


def unary_special_methods(x):
    y = x * 2
    a = -(Num(2) * 3)
    b = +Num(1)
    c = ~Num(4)
    d = abs(a)
    return y + a.v + b.v + c.v + d.v


def unary_special_method_of_tensor_attribute(x):
    n = Num(x * 2)
    return (-n).v + abs(-n).v


def test_unary_special_methods_are_traced():
    check(unary_special_methods, torch.arange(3.0))
    check(unary_special_method_of_tensor_attribute, torch.arange(3.0))


class NoNeg:
    pass


def unary_without_special_method(x):
    y = x + 1
    try:
        -NoNeg()
    except TypeError as e:
        y = y + len(str(e))
    return y


def test_unary_without_special_method_raises_type_error():
    check(unary_without_special_method, torch.arange(3.0))


def binary_without_special_methods(x):
    y = x + 1
    messages = []
    for attempt in (lambda: NoNeg() + 1, lambda: 1.5 - NoNeg(), lambda: NoNeg() < NoNeg(), lambda: NoNeg() @ Num(1)):
        try:
            attempt()
        except TypeError as e:
            messages.append(str(e))
    obj = NoNeg()
    try:
        obj += 1
    except TypeError as e:
        messages.append(str(e))
    return y * len(messages), messages


def test_binary_without_special_methods_raises_type_error():
    check(binary_without_special_methods, torch.arange(3.0))


class Reflected:
    def __radd__(self, other):
        return other * 10


def reflected_only(x):
    y = x + 1
    try:
        Reflected() + 1
        left = 0
    except TypeError:
        left = 1
    return y + (2 + Reflected()) + left


def test_reflected_method_answers_and_its_absence_raises():
    check(reflected_only, torch.arange(3.0))


class Two:
    def __index__(self):
        return 2


TWO = Two()


def index_special_method(x):
    y = x * 2
    seq = [10, 20, 30, 40]
    made = Two()
    return y + seq[made] + seq[TWO] + seq[made:][0] + seq[:TWO][-1] + len(bin(made) + hex(made) + oct(TWO)), \
        operator.index(made)


def test_index_special_method_subscripts_and_formats():
    check(index_special_method, torch.arange(3.0))


def stand_in_operand_errors(x):
    import collections

    d = collections.deque([1])
    messages = []
    for attempt in (lambda: d + 1, lambda: -d):
        try:
            attempt()
        except TypeError as e:
            messages.append(str(e))
    return x + len(messages), messages


def test_errors_of_a_c_class_stand_in_are_its_own():
    """A deque made in the trace is a Python stand-in; the TypeError of ``d + 1`` is deque's own message,
    not the one a Python class without ``__add__`` gets (the C class decides; it may break the graph)."""
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")
    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(stand_in_operand_errors, backend="eager", options={"strict": True})
    assert_same(compiled(x), stand_in_operand_errors(x))
