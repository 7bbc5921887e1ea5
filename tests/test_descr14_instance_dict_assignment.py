"""``obj.__dict__ = d`` on an object made while tracing, ``d`` a dict made in the trace: ``d`` becomes the object's
attribute storage (writes through either show in both, ``vars(obj) is d``), and the object rebuilt after the graph
has that very dict as its ``__dict__``. It was a graph break."""

from __future__ import annotations

import torch

import loom


class _Plain:
    pass


def test_an_assigned_instance_dict_is_the_attribute_storage():
    def fn(x):
        o = _Plain()
        o.old = 1
        d = {"w": x}
        o.__dict__ = d
        o.k = 2
        d["z"] = 3
        return o.w + o.k + o.z, vars(o) is d, o.__dict__ is d, hasattr(o, "old"), sorted(d), o, d

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:5] == expected[1:5] == (True, True, False, ["k", "w", "z"])
    assert got[5].__dict__ is got[6] and sorted(vars(got[5])) == ["k", "w", "z"]
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks


def test_an_assigned_instance_dict_across_a_graph_break():
    def fn(x):
        o = _Plain()
        d = {"w": 2}
        o.__dict__ = d
        print("", end="")
        d["k"] = 3
        return x * o.w + o.k, o.__dict__ is d

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1] is True
