"""``vars(obj)`` / ``obj.__dict__`` of an object made while tracing whose class has ``__slots__`` next to a
``__dict__`` (a ``"__dict__"`` slot, or a subclass without ``__slots__``): the slots' values are not in the real
``__dict__``. The trace used to show them there (a wrong answer); the dict now holds the other attributes only,
read afresh from the object, with ``d[k] = v`` / ``del d[k]`` as attribute writes (other changes break)."""

from __future__ import annotations

import torch

import loom


class _SlotDict:
    __slots__ = ("__dict__", "a")


class _SlotBase:
    __slots__ = ("w",)


class _Open(_SlotBase):
    pass


def _check(fn, breaks=0):
    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:]
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count >= 1 and report.break_count == breaks, report.breaks
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
        d = o.__dict__
        o.bias = 1
        return o.w + o.bias, list(d), "w" in vars(o), len(d)

    assert _check(fn)[1:] == (["bias"], False, 1)


def test_item_writes_through_the_dict_are_attribute_writes():
    def fn(x):
        o = _Open()
        o.w = x
        d = vars(o)
        d["extra"] = 3
        d["gone"] = 1
        del d["gone"]
        return o.w * o.extra, sorted(d), hasattr(o, "gone"), sorted(vars(o))

    assert _check(fn)[1:] == (["extra"], False, ["extra"])

    def leaves(x):
        o = _Open()
        o.w = x
        vars(o)["extra"] = 3
        return o

    loom.reset()
    got = loom.compile(leaves, backend="eager", options={"strict": True})(torch.arange(3.0))
    assert type(got) is _Open and vars(got) == {"extra": 3} and got.w.shape == (3,)


def test_another_change_through_the_dict_breaks_with_eagers_answer():
    def fn(x):
        o = _Open()
        o.w = x
        vars(o).update(k=5)
        return o.w + o.k, sorted(vars(o))

    _check(fn, breaks=1)


def test_vars_of_a_plain_instance_is_still_one_graph():
    class Plain:
        pass

    def fn(x):
        p = Plain()
        p.k = 2
        return x + p.k, sorted(vars(p))

    _check(fn)
