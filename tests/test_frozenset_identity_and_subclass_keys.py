"""``frozenset(f)`` of an exact frozenset is ``f`` itself (CPython returns it unchanged), and an instance of a
frozenset subclass made while tracing, whose class keeps frozenset's ``__hash__``/``__eq__``, is a dict key or
set member found by an equal plain frozenset and the reverse (it used to be a graph break: "a dict key known
only at run time"); a subclass with its own ``__hash__`` is left to its own rules."""

from __future__ import annotations

import torch

import loom


class _FS(frozenset):
    pass


class _OwnHash(frozenset):
    def __hash__(self):
        return 7


def test_frozenset_of_exact_frozenset_is_the_same_object():
    def fn(x):
        p = frozenset("abc")
        q = frozenset(p)
        return x + 1, q is p, frozenset(set(p)) is p, frozenset(_FS(p)) is p, type(frozenset(_FS(p))) is frozenset

    x = torch.arange(3.0)
    expected = fn(x)
    got = loom.compile(fn)(x)
    assert torch.equal(got[0], expected[0]) and got[1:] == expected[1:]
    assert expected[1:] == (True, False, False, True)


def test_frozenset_subclass_key_finds_plain_entries_in_one_graph():
    def fn(x):
        outer = frozenset([frozenset("abc")])
        d = {frozenset("ab"): 1}
        d[_FS("ab")] = 5
        e = {_FS("cd"): 2}
        s = {_FS("ab"), frozenset("ab"), _FS("b")}
        return (x + (_FS("abc") in outer) + d[_FS("ab")] + e[frozenset("cd")], [type(k).__name__ for k in d],
                sorted(type(k).__name__ for k in s), len(s), _FS("zz") in d)

    x = torch.arange(3.0)
    expected = fn(x)
    report = loom.explain(fn)(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    got = loom.compile(fn)(x)
    assert torch.equal(got[0], expected[0]) and got[1:] == expected[1:]


def test_frozenset_subclass_with_own_hash_still_matches_eager():
    def fn(x):
        d = {_OwnHash("ab"): 1}
        return x + d[_OwnHash("ab")], len(d)

    x = torch.arange(3.0)
    expected = fn(x)
    got = loom.compile(fn)(x)
    assert torch.equal(got[0], expected[0]) and got[1] == expected[1]
