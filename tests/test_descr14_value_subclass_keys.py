"""An int, float or str subclass instance made while tracing, whose class keeps the builtin's ``__hash__`` and
``__eq__``, as a dict key or set member: found by an equal plain value and the reverse, the first object kept
(a NaN value finds only its own object). It used to be a graph break ("a dict key known only at run time")."""

from __future__ import annotations

import torch

import loom


class _Name(str):
    def shout(self):
        return self.upper()


class _Count(int):
    pass


class _Ratio(float):
    pass


def test_value_subclass_keys_are_one_graph_and_match_eager():
    def fn(x):
        s = _Name("ab")
        d = {s: 1, "cd": 2}
        e = {"ab": 0}
        e[s] = 5
        nan = _Ratio("nan")
        g = {nan: 1, _Count(1): 2}
        g[1.0] = 3
        members = {s, "ab", _Count(2), 2}
        return (x + d["ab"] + d[s], [type(k).__name__ for k in d], [type(k).__name__ for k in e], e, g[nan], len(g),
                g[True], len(members), d)

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:]
    assert [type(k) for k in got[-1]] == [_Name, str]
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks


def test_a_class_with_its_own_hash_is_not_keyed_by_value():
    class Odd(str):
        def __hash__(self):
            return 7

    def fn(x):
        d = {Odd("ab"): 1}
        return x + len(d), "ab" in d

    x = torch.arange(3.0)
    loom.reset()
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    expected = fn(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1] == expected[1]
