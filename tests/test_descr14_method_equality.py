"""``obj.f == obj.f`` and ``!=`` of two bound methods the trace holds: CPython compares ``__self__`` by identity
and ``__func__`` by equality (identity for Python functions). It used to be a graph break."""

from __future__ import annotations

import torch

import loom


class _Net:
    def fwd(self, t):
        return t + 1

    def other(self, t):
        return t - 1


def _one_graph(fn, *args):
    loom.reset()
    expected = fn(*args)
    got = loom.compile(fn, backend="eager", options={"strict": True})(*args)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:]
    loom.reset()
    report = loom.explain(fn)(*args)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
    return got


def test_methods_of_objects_made_while_tracing():
    def fn(x):
        a, b = _Net(), _Net()
        return x + 1, a.fwd == a.fwd, a.fwd != b.fwd, a.fwd == a.other, a.fwd != a.fwd

    assert _one_graph(fn, torch.arange(3.0))[1:] == (True, True, False, False)


def test_methods_of_arguments_follow_identity_across_calls():
    def fn(x, a, b):
        return x * 2, a.fwd == b.fwd

    one, two = _Net(), _Net()
    assert _one_graph(fn, torch.arange(3.0), one, two)[1] is False
    compiled = loom.compile(fn, backend="eager", options={"strict": True})
    assert compiled(torch.arange(3.0), one, two)[1] is False
    assert compiled(torch.arange(3.0), one, one)[1] is True  # the same object twice: guarded, recompiled


class _EqHashRaises:
    def f(self):
        pass

    def g(self):
        pass

    def __eq__(self, other):
        return True

    def __hash__(self):
        raise TypeError


def test_methods_of_objects_hashing_and_comparing_oddly():
    """CPython compares and hashes a method by its object's identity, not the object's ``__eq__``/``__hash__``;
    a method is unequal to a plain function, and methods are not ordered."""

    def fn(x):
        a1, a2 = _EqHashRaises(), _EqHashRaises()
        try:
            _ = a1.f < a1.f
            ordered = True
        except TypeError as e:
            ordered = str(e)
        return (x + 1, a1.f == a1.f, a1.f == a2.f, a1.f != a1.g, hash(a1.f) == hash(a1.f), _EqHashRaises.f == a1.f,
                a1.f != _EqHashRaises.f, ordered)

    assert _one_graph(fn, torch.arange(3.0))[1:] == (
        True, False, True, True, False, True, "'<' not supported between instances of 'method' and 'method'")
