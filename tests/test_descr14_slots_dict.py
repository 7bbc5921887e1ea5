"""``vars(obj)`` / ``obj.__dict__`` of an object made while tracing whose class has ``__slots__`` next to a
``__dict__`` (a ``"__dict__"`` slot, or a subclass without ``__slots__``): the slots' values are not in the real
``__dict__``. The trace used to show them there (a wrong answer); it is a graph break now, with eager's answer."""

from __future__ import annotations

import torch

import loom


class _SlotDict:
    __slots__ = ("__dict__", "a")


class _SlotBase:
    __slots__ = ("w",)


class _Open(_SlotBase):
    pass


def _check(fn):
    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:]
    return expected


def test_vars_of_a_slotted_instance_leaves_the_slots_out():
    def fn(x):
        s = _SlotDict()
        s.a = x
        s.k = 2
        return s.a + s.k, sorted(vars(s)), sorted(s.__dict__)

    assert _check(fn)[1] == ["k"]


def test_dict_of_a_subclass_of_a_slotted_class_leaves_the_slots_out():
    def fn(x):
        o = _Open()
        o.w = x
        o.bias = 1
        return o.w + o.bias, list(o.__dict__), "w" in vars(o)

    assert _check(fn)[1:] == (["bias"], False)


def test_vars_of_a_plain_instance_is_still_one_graph():
    class Plain:
        pass

    def fn(x):
        p = Plain()
        p.k = 2
        return x + p.k, sorted(vars(p))

    _check(fn)
    loom.reset()
    report = loom.explain(fn)(torch.arange(3.0))
    assert report.graph_count == 1 and report.break_count == 0
