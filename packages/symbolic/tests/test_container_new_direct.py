"""``list.__new__(cls, ...)``, ``dict.__new__(cls)``, ``set.__new__(cls)``, ``frozenset.__new__(cls, items)``
and ``tuple.__new__(tuple, items)`` called directly (read from the builtin class or found on a subclass):
an empty instance of ``cls`` (dict, list and set ignore further arguments; no ``__init__`` runs). Reading
``list.__new__`` was a graph break, and calling it on a subclass another."""

import torch
from harness import check


class _Row(list):
    pass


class _GrandRow(_Row):
    pass


class _Record(dict):
    pass


class _Bag(set):
    pass


class _Tags(frozenset):
    pass


def direct_new_calls(x):
    a = list.__new__(list, [1, 2], extra="ignored")
    a.append(3)
    b = tuple.__new__(tuple, [1, 2])
    c = _GrandRow.__new__(_GrandRow, [1, 2])
    c.append(5)
    r = dict.__new__(_Record)
    r["x"] = x * 2
    r.tag = 3
    s = set.__new__(_Bag)
    s.add(1)
    t = frozenset.__new__(_Tags, "ab")
    return x + len(a) + len(b), a, b, c, type(c) is _GrandRow, r, r.tag, s, t, set.__new__(set)


def test_builtin_container_new_makes_empty_instances():
    check(direct_new_calls, torch.ones(2))
