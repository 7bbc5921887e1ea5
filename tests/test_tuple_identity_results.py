"""``tuple(t)``, ``t + ()``, ``() + t``, ``t * 1``, ``1 * t`` and ``() * n`` of an exact tuple are ``t`` itself in
CPython; loom made a new tuple (``tuple(t) is t`` was False, or a graph break "identity is not known while
tracing"). A tuple subclass, a list, or a real repeat/concatenation still gives a new object."""

from __future__ import annotations

import collections

import torch

import loom

_T = (1, 2)
_P = collections.namedtuple("_P", "a b")


def _check(fn, x):
    expected = fn(x)
    report = loom.explain(fn)(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    got = loom.compile(fn)(x)
    assert torch.equal(got[0], expected[0]) and got[1:] == expected[1:]
    return expected


def test_tuple_identity_of_exact_tuples_matches_eager_in_one_graph():
    def fn(x):
        t = (x, 1)
        e = ()
        u = t
        u += ()
        return (x + 1, tuple(t) is t, () + t is t, t + () is t, t * 1 is t, True * t is t, e * 3 is e, u is t,
                tuple(_T) is _T, _T + () is _T, 1 * _T is _T)

    expected = _check(fn, torch.arange(3.0))
    assert all(expected[1:])


def test_new_tuples_stay_new():
    def fn(x):
        t = (x, 1)
        p = _P(x, 2)
        return x * 2, t * 2 is t, t + (3,) is t, list(t) is t, tuple(p) is p, type(tuple(p)) is tuple, tuple(p) == p

    expected = _check(fn, torch.arange(3.0))
    assert expected[1:] == (False, False, False, False, True, True)
