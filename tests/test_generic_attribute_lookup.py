"""``object.__getattribute__`` reached from a class's own ``__getattribute__``, and the AttributeError of
Python's generic lookup (its message, ``name`` and ``obj``), captured without a break."""

from __future__ import annotations

import torch

import loom


class _Proxy:
    def __init__(self) -> None:
        self.a = 2

    def __getattribute__(self, name):
        if name == "b":
            return 5
        return object.__getattribute__(self, name)


class _ProxySub(_Proxy):
    def __getattribute__(self, name):
        return super().__getattribute__(name)


class _Plain:
    pass


def _explain(fn, *args):
    loom.reset()
    return loom.explain(fn)(*args)


def test_getattribute_falling_back_to_object_on_an_argument():
    def fn(x, obj):
        return x + obj.a + obj.b

    obj, x = _Proxy(), torch.ones(2)
    report = _explain(fn, x, obj)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    compiled = loom.compile(fn)
    assert torch.equal(compiled(x, obj), fn(x, obj))
    obj.a = 7  # read through object.__getattribute__, and guarded
    assert torch.equal(compiled(x, obj), torch.full((2,), 13.0))


def test_getattribute_through_super_on_an_object_made_in_the_frame():
    def fn(x):
        obj = _ProxySub()
        return x + obj.a + obj.b, object.__getattribute__(obj, "a")

    x = torch.ones(2)
    report = _explain(fn, x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    got, want = loom.compile(fn)(x), fn(x)
    assert torch.equal(got[0], want[0]) and got[1] == want[1] == 2


def test_missing_attribute_error_carries_message_name_and_obj():
    def fn(x, given):
        made = _Plain()
        out = []
        for obj in (made, given):
            try:
                obj.nothing
            except AttributeError as e:
                out.append((str(e), e.args, e.name, e.obj is obj))
        return x + 1, out

    x, given = torch.ones(2), _Plain()
    report = _explain(fn, x, given)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    got, want = loom.compile(fn)(x, given), fn(x, given)
    assert torch.equal(got[0], want[0])
    assert got[1] == want[1]
    assert want[1][0][0] == "'_Plain' object has no attribute 'nothing'" and want[1][0][2:] == ("nothing", True)
