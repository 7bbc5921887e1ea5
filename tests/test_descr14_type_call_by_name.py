"""``type.__call__(cls, *args)`` called by name in a metaclass's ``__call__`` (test_class's
testMetaclassCallOptimization): the instance made as ``type`` makes it, in the graph; it was a graph break."""

from __future__ import annotations

import torch

import loom

_CALLS = [0]


class _CountingMeta(type):
    def __call__(cls, *args, **kwargs):
        _CALLS[0] += 1
        return type.__call__(cls, *args, **kwargs)


class _Counted(metaclass=_CountingMeta):
    def __init__(self, obj, scale=1):
        self.obj = obj * scale


def test_type_call_by_name_in_a_metaclass_call_is_one_graph():
    def fn(x):
        before = _CALLS[0]
        made = [_Counted(x + i, scale=2) for i in range(3)]
        return made[-1].obj, _CALLS[0] - before, type(made[0]).__name__

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:] == (3, "_Counted")
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
