"""Class protocols after CPython's test_class.py whose answers the translator got wrong or broke on: ``in``
makes a Python ``__contains__``'s answer a bool; a ``__bool__`` answering an int raises CPython's TypeError;
a right operand whose class subclasses the left's is asked first (always for comparisons, for arithmetic
when it writes its own reflection); ``iter(obj) is obj`` for an ``__iter__`` returning self (all wrong
answers before). An object of the user's on the left of a tensor asks its own ``__iadd__``/``__add__``, and
objects with ``__index__`` index tensors, as slice bounds too, and an AttributeError from ``__getattribute__``
hands the read to ``__getattr__``, and ``__contains__ = None`` makes ``in`` raise CPython's TypeError (graph breaks
before)."""

import pytest
import torch
from harness import check

from loom_symbolic import translate_function


class Halves:
    def __contains__(self, item):
        return item * 2  # not a bool: ``in`` takes its truth


def contains_answer_is_a_bool(x):
    h = Halves()
    return x + (3 in h), 0 in h, 3 not in h


def test_contains_answer_made_a_bool():
    check(contains_answer_is_a_bool, torch.arange(3.0))


class IntTruth:
    def __bool__(self):
        return 1


class NegativeLength:
    def __len__(self):
        return -2


def truth_errors(x):
    caught = []
    for obj in (IntTruth(), NegativeLength()):
        try:
            bool(obj)
        except (TypeError, ValueError) as e:
            caught.append(type(e).__name__)
        if not caught or len(caught) < 2:
            try:
                if obj:
                    caught.append("truthy")
            except (TypeError, ValueError) as e:
                caught.append(type(e).__name__)
    return x + len(caught), caught


def test_bool_answering_an_int_raises():
    check(truth_errors, torch.arange(3.0))


class Base:
    def __init__(self, t):
        self.t = t

    def __eq__(self, other):
        return "base"

    def __lt__(self, other):
        return "base lt"

    def __add__(self, other):
        return "base add"

    def __radd__(self, other):
        return "base radd"


class Derived(Base):
    def __eq__(self, other):
        return "derived"

    def __gt__(self, other):
        return "derived gt"

    def __radd__(self, other):
        return "derived radd"


class Inherits(Base):
    pass


def subclass_asked_first(x):
    b, d, i = Base(x), Derived(x), Inherits(x)
    return x + 1, b == d, d == b, b < d, b + d, b + i, i + b, b == i


def test_subclass_operand_asked_first():
    check(subclass_asked_first, torch.arange(3.0))


class Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n == 0:
            raise StopIteration
        self.n -= 1
        return self.n


def iter_of_self_iterator_is_it(x):
    c = Countdown(2)
    return x + next(iter(c)), iter(c) is c, c is iter(c), iter(c) is not c


def test_iter_returning_self_is_the_object():
    check(iter_of_self_iterator_is_it, torch.arange(3.0))


class Accumulator:
    def __init__(self, t):
        self.t = t

    def __iadd__(self, other):
        self.t = self.t + other
        return self

    def __mul__(self, other):
        return Accumulator(self.t * other)


def object_on_the_left_of_a_tensor(x):
    a = Accumulator(x)
    same = a
    a += x
    b = a * x
    return a.t, b.t, a is same


def test_object_left_of_a_tensor_asks_its_method():
    check(object_on_the_left_of_a_tensor, torch.arange(3.0))


class Declines:
    def __add__(self, other):
        return NotImplemented


def declined_left_of_a_tensor(x):
    return Declines() + x


def test_declined_left_of_a_tensor_breaks():
    with pytest.raises(TypeError):
        declined_left_of_a_tensor(torch.arange(3.0))
    translation = translate_function(declined_left_of_a_tensor, torch.arange(3.0))
    assert translation.breaks and "NotImplemented" in translation.dump(), translation.dump()


class Position:
    def __init__(self, i):
        self.i = i

    def __index__(self):
        return self.i


def tensor_indexed_through_index(x):
    m = x.reshape(2, 3)
    return x[Position(1)], x[Position(0):Position(2)], m[Position(1), Position(2)], m[:, Position(1):]


def test_tensor_subscripts_read_index():
    check(tensor_indexed_through_index, torch.arange(6.0))


class Hidden:
    def __init__(self, t):
        self.t = t

    def __getattribute__(self, name):
        if name.startswith("hidden"):
            raise AttributeError(name)
        return object.__getattribute__(self, name)

    def __getattr__(self, name):
        return object.__getattribute__(self, "t") * len(name)


def getattribute_error_falls_to_getattr(x):
    h = Hidden(x)
    return h.hidden, h.t, h.missing, getattr(h, "hidden_too", None), hasattr(h, "hidden")


def test_getattribute_attribute_error_asks_getattr():
    check(getattribute_error_falls_to_getattr, torch.arange(3.0))


class OptsOut:
    __contains__ = None

    def __iter__(self):
        return iter([1, 2])


class DictOptsOut(dict):
    __contains__ = None


def contains_set_to_none(x):
    caught = []
    for container in (OptsOut(), DictOptsOut(a=1)):
        try:
            _ = "a" in container
        except TypeError as e:
            caught.append(str(e))
    return x + len(caught), caught


def test_contains_none_is_not_a_container():
    check(contains_set_to_none, torch.arange(3.0))
