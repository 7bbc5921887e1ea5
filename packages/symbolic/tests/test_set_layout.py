"""Sets iterate (and ``pop``) in the order of their real table, which depends on their history: a set
that grew and shrank keeps its larger table. The trace follows a real set of the members' keys that went
through the same operations, so ``list(s)``, loops and ``pop()`` give eager's order, in one graph."""

import pytest
import torch
from harness import check

X = torch.arange(3.0)


def shrunk_after_growing(x):
    s = set(range(10))
    for i in range(2, 8):
        s.discard(i)
    s.discard(0)
    s.remove(9)
    return x + 1, list(s)


def grown_by_update_then_removed(x):
    s = {8}
    s.add(1)
    s.update(range(20, 40))
    for i in range(20, 40):
        s.remove(i)
    out = x
    for v in s:
        out = out * 2 + v
    return out, [v for v in s]


def pops_in_table_order(x):
    s = set(range(16))
    s.difference_update(range(3, 15))
    popped = [s.pop(), s.pop()]
    s.add(40)
    return x + popped[0], popped, list(s), s.pop()


def algebra_results_keep_their_tables(x):
    a = set(range(12))
    a -= set(range(1, 11))
    b = {33, 1}
    c = a | b
    d = c & {0, 11, 33, 64}
    e = c ^ {11}
    f = a.union([17, 9])
    g = frozenset(range(12)) - frozenset(range(2, 12))
    return x * len(c), list(c), list(d), list(e), list(f), list(g)


def equal_member_keeps_the_first(x):
    s = {1, 2}
    s.add(1.0)
    s.update([2.0])
    return x + 1, [(v, type(v).__name__) for v in s]


def empty_pop_raises(x):
    s = {1}
    s.pop()
    try:
        s.pop()
    except KeyError as e:
        return x - 1, e.args
    return x


@pytest.mark.parametrize("fn", [shrunk_after_growing, grown_by_update_then_removed, pops_in_table_order,
                                algebra_results_keep_their_tables, equal_member_keeps_the_first,
                                empty_pop_raises])
def test_set_order_follows_its_history(fn):
    check(fn, X)
