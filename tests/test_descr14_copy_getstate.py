"""``copy.copy`` / ``copy.deepcopy`` of an instance whose class writes ``__getstate__`` (and maybe
``__setstate__``) in Python: ``cls.__new__(cls)``, then the state (deep-copied for deepcopy) through
``__setstate__`` or into the ``__dict__``, as ``copy._reconstruct`` does. It used to be a graph break at
``object.__reduce_ex__``."""

from __future__ import annotations

import copy

import torch

import loom


class _Scaled:
    def __init__(self, v):
        self.v = v

    def __getstate__(self):
        return {"v": self.v * 10}

    def __setstate__(self, state):
        self.v = state["v"] + 1


class _Shared:
    def __init__(self, t):
        self.t = t
        self.items = [t]

    def __getstate__(self):
        return {"t": self.t, "items": self.items}


class _Empty:
    def __init__(self):
        self.v = 1

    def __getstate__(self):
        return None


def test_copies_through_getstate_and_setstate_are_one_graph():
    def fn(x):
        a = _Scaled(3)
        shallow, deep = copy.copy(a), copy.deepcopy(a)
        s = _Shared(x)
        s_shallow, s_deep = copy.copy(s), copy.deepcopy(s)
        empty = copy.copy(_Empty())
        return (x + shallow.v + deep.v, a.v, s_shallow.items is s.items, s_deep.items is s.items,
                s_shallow.t is x, s_deep.t is x, s_deep.t + 1, vars(empty), type(deep).__name__)

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    torch.testing.assert_close(got[6], expected[6])
    assert got[1:6] + got[7:] == expected[1:6] + expected[7:] == (3, True, False, True, False, {}, "_Scaled")
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
