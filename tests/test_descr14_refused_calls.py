"""Calls CPython refuses that the trace used to accept (wrong answers): ``setattr(prop, "fget", f)`` on a real
property (a C type's read-only member: replayed after the graph, it raised where no handler was; now a graph
break, the store run by Python), ``dict({}, {})`` (it made a dict), ``super(C, obj)`` of an unrelated object (it
made a super object): each raises CPython's TypeError (AttributeError) for the program's handler."""

from __future__ import annotations

import torch

import loom


class _P:
    def getx(self):
        return 1

    x = property(getx)


class _A:
    def meth(self):
        return "A"


class _B(_A):
    def meth(self):
        return "B"


def _run(fn):
    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:]
    return got


def test_a_read_only_member_of_a_real_c_object_refuses_the_store():
    def fn(x):
        raw = _P.__dict__["x"]
        refused = []
        for attr in ("fget", "fset", "fdel"):
            try:
                setattr(raw, attr, 42)
                refused.append(False)
            except AttributeError:
                refused.append(True)
        return x + raw.fget(None), refused

    assert _run(fn)[1] == [True, True, True]


def test_dict_with_two_positional_arguments_raises():
    def fn(x):
        try:
            dict({}, {})
            message = None
        except TypeError as e:
            message = str(e)
        return x + 1, message

    assert _run(fn)[1] == "dict expected at most 1 argument, got 2"
    loom.reset()
    report = loom.explain(fn)(torch.arange(3.0))
    assert report.graph_count == 1 and report.break_count == 0, report.breaks


def test_super_of_an_unrelated_object_raises():
    def fn(x):
        refused = []
        for args in ((_B, 42), (_B, _A())):
            try:
                refused.append(super(*args).meth())
            except TypeError as e:
                refused.append(str(e))
        return x + 1, refused, super(_B, _B()).meth()

    got = _run(fn)
    assert all("super(type, obj)" in message for message in got[1]) and got[2] == "A"
