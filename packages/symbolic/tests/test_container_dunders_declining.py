"""A builtin container's special method called by name with an operand it does not take gives what CPython's
gives: NotImplemented from a comparison, set algebra or ``dict.__or__``, the TypeError of a repeat count with no
``__index__``; a slice assigned a non-iterable raises this interpreter's own TypeError; dict views report their
class (``odict_keys`` for an OrderedDict's) and leave the trace as views of their dict, in one graph."""

from collections import OrderedDict

import pytest
import torch
from harness import check

X = torch.arange(3.0)


def dunders_decline_foreign_operands(x):
    p, lst, s = (1, 2), [1], {1}
    out = [
        p.__eq__([1, 2]),
        p.__lt__([3]),
        lst.__eq__((1,)),
        lst.__ge__("a"),
        s.__or__([1]),
        s.__ior__([2]),
        frozenset(s).__and__([1]),
        {}.__or__([(1, 2)]),
        s.__eq__({1: 2}),
        {1: 2}.__ne__([]),
        s,
    ]
    for call in (lambda: p.__mul__(2.2), lambda: lst.__imul__("s"), lambda: lst.__rmul__(None)):
        try:
            call()
        except TypeError as e:
            out.append(str(e))
    return x + len(out), out, p.__mul__(True)


def slice_assigned_non_iterable(x):
    p = list("abcdef")
    msgs = []
    for key in (slice(1, 3), slice(1, 5, 2)):
        try:
            p[key] = 1
        except TypeError as e:
            msgs.append(str(e))
    p[1:3] = ["x", "y"]
    return x + len(msgs), msgs, p


def views_class_and_rebuilt(x):
    d = {"a": 1, "b": "2"}
    od = OrderedDict(a=x)
    k = d.keys()
    d["c"] = 3  # a view rebuilt after the graph sees the dict as it ends
    return (
        x + 1,
        k,
        d.items(),
        d.values().__class__.__name__,
        type(od.keys()).__name__,
        od.items().__class__,
        list(od.values()),
    )


def view_of_argument_returned(x, d):
    v = d.items()
    d["z"] = 5
    return x, v, d


@pytest.mark.parametrize(
    "fn", [dunders_decline_foreign_operands, slice_assigned_non_iterable, views_class_and_rebuilt]
)
def test_container_dunders_declining(fn):
    check(fn, X)


def test_view_of_argument_returned():
    check(view_of_argument_returned, X, {"q": 1}, graphs=0)
