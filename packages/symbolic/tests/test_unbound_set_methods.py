"""``set.add(s, x)``, ``frozenset.union(f, ...)``: set methods read unbound from the builtin class and called
with the set first are the set's own builtin methods, traced like ``dict.pop(d, k)`` and
``list.append(l, x)`` already were (the read was a graph break no resume function could follow)."""

import torch
from harness import check


class _Audited(set):
    def add(self, item):  # overridden: set.add(s, x) must bypass it, as in C
        super().add(item * 10)


def unbound_set_methods(x):
    s = set()
    set.add(s, 5)
    set.update(s, [1, 2])
    set.discard(s, 2)
    audited = _Audited()
    set.add(audited, 3)
    audited.add(4)
    merged = frozenset.union(frozenset({1}), {9})
    return x + len(s), sorted(s), sorted(audited), sorted(merged), set.issubset({1}, s)


def test_unbound_set_methods_are_traced():
    check(unbound_set_methods, torch.ones(3))
