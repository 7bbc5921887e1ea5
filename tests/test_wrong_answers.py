"""Regression tests for wrong answers and errors a differential suite found (issue 16): each program
must behave exactly as eager — result, raised exception type and message, mutations."""

from __future__ import annotations

from collections import namedtuple

import pytest
import torch
from breaks_harness import compare

import loom


def zip_strict_unequal(x):
    out = x
    for p, q in zip([1, 2, 3], [1, 2], strict=True):
        out = out + p * q
    return out


def zip_strict_longer_later(x):
    out = x
    for p, q, r in zip([1], [1], [1, 2], strict=True):
        out = out + p * q * r
    return out


def zip_strict_equal(x):
    return [x * p * q for p, q in zip([1, 2], [3, 4], strict=True)]


def isinstance_with_a_keyword(x):
    return isinstance(x, torch.Tensor, bogus=True)


def len_with_two_arguments(x):
    return len(x, x)


def range_iterator_by_dunder(x):
    it = range(3).__iter__()
    next(it)
    next(it)
    return x + next(it)


def range_iterator_rest(x):
    it = range(4).__iter__()
    a = next(it)
    b = next(it)
    return x * a + b, list(it)


def matmul_in_place(x, y):
    x @= y
    return x


def add_in_place(x, y):
    z = x
    z += y
    return x, z


class SetOnly:
    """A data descriptor with __set__ and no __get__: reads go to the instance dict."""

    def __set__(self, obj, value):
        obj.__dict__["f"] += value * 2


class Holder:
    f = SetOnly()

    def __init__(self):
        self.__dict__["f"] = 0


def set_only_descriptor(x):
    h = Holder()
    h.f = 10
    return x + h.f


class Pair(namedtuple("Pair", "a b")):
    def __getitem__(self, i):
        return 42


def namedtuple_subclass_overriding_getitem(x):
    t = Pair(x, 2)
    return t.a + 1, t[0], t.b


def namedtuple_subclass_argument(t):
    return t.a + 1, t[1]


#: Programs that raise: the same exception type and message as eager (the frame itself then runs
#: natively: an exception leaving the compiled frame is a graph break, as in torch.compile).
RAISING = [
    (zip_strict_unequal, (torch.ones(2),)),
    (zip_strict_longer_later, (torch.ones(2),)),
    (isinstance_with_a_keyword, (torch.ones(2),)),
    (len_with_two_arguments, (torch.ones(2),)),
]

CASES = [
    (zip_strict_equal, (torch.ones(2),)),
    (range_iterator_by_dunder, (torch.ones(2),)),
    (range_iterator_rest, (torch.ones(2),)),
    (matmul_in_place, (torch.ones(3, 3), torch.ones(3, 2))),
    (add_in_place, (torch.ones(3), torch.ones(3))),
    (set_only_descriptor, (torch.ones(2),)),
    (namedtuple_subclass_overriding_getitem, (torch.ones(2),)),
    (namedtuple_subclass_argument, (Pair(torch.ones(2), 3),)),
]


@pytest.mark.parametrize(("fn", "args"), [pytest.param(fn, args, id=fn.__name__) for fn, args in CASES])
def test_same_behaviour_as_eager_in_one_graph(fn, args):
    stats = compare(fn, *args)
    assert stats["graph_breaks"] == 0 and stats["graphs"] == 1, stats


@pytest.mark.parametrize(("fn", "args"), [pytest.param(fn, args, id=fn.__name__) for fn, args in RAISING])
def test_the_same_exception_as_eager(fn, args):
    compare(fn, *args)


def branch_on_attribute(x):
    return x + 1 if hasattr(x, "tag") else x - 1


def test_hasattr_on_a_tensor_is_guarded():
    compiled = loom.compile(branch_on_attribute, backend="eager")
    plain, tagged = torch.ones(2), torch.ones(2)
    tagged.tag = "t"
    assert torch.equal(compiled(plain), plain - 1)
    assert torch.equal(compiled(tagged), tagged + 1), "a tensor that has the attribute takes the other branch"
    assert torch.equal(compiled(plain), plain - 1)
