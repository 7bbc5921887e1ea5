"""A set's iteration order follows its history, not only its members: of two members wanting one slot the
one added first comes first, and a table that grew keeps its size when members leave. A trace that iterated
a set from the frame baked its order in, so another set with the same members in another order recompiles,
and the trace iterates a set in the order eager does (or does not model it)."""

from __future__ import annotations

import torch

import loom

X = torch.arange(3.0)


def listed(x, s):
    return x + len(s), list(s), [m for m in s]


def _grown_and_shrunk() -> set:
    # only 2 and 17 are left of a set that grew to 32 slots: it iterates 2 first; a fresh {2, 17} puts 17 in
    # slot 1 of its 8 slots, first
    grown = set(range(20))
    for i in range(20):
        if i not in (2, 17):
            grown.discard(i)
    return grown


def _same(a, b) -> bool:
    return torch.equal(a[0], b[0]) and a[1:] == b[1:]


def test_the_same_constants_in_another_order_recompile_and_iterate_as_in_eager():
    # 1 and 9 both start at slot 1: the one added first takes it
    first, reordered = {1, 9}, {9, 1}
    assert list(first) == [1, 9] and list(reordered) == [9, 1]
    loom.reset()
    compiled = loom.compile(listed, backend="eager")
    assert _same(compiled(X, first), listed(X, first))
    assert _same(compiled(X, reordered), listed(X, reordered))
    assert loom.stats()["recompiles"] == 1
    assert _same(compiled(X, {1, 9}), listed(X, {1, 9}))
    assert loom.stats()["recompiles"] == 1


def test_a_frozenset_constant_in_another_order_recompiles():
    loom.reset()
    compiled = loom.compile(listed, backend="eager")
    for s in [frozenset({1, 9}), frozenset({9, 1}), frozenset({1, 9})]:
        assert _same(compiled(X, s), listed(X, s))
    assert loom.stats()["recompiles"] == 1


def test_a_set_whose_table_grew_and_shrank_iterates_as_in_eager():
    grown = _grown_and_shrunk()
    assert list(grown) == [2, 17] and list({2, 17}) == [17, 2]
    loom.reset()
    compiled = loom.compile(listed, backend="eager")
    assert _same(compiled(X, grown), listed(X, grown))
    assert _same(compiled(X, {2, 17}), listed(X, {2, 17}))
    assert _same(compiled(X, grown), listed(X, grown))


def _objects_in_slots(n: int) -> list:
    """``n`` functions all wanting slot 0 of an 8-slot table (their hash follows their address)."""
    found = []
    keep = []
    while len(found) < n:
        def fn():
            return None
        keep.append(fn)
        if hash(fn) % 8 == 0:
            found.append(fn)
    return found


def test_colliding_objects_added_in_either_order_iterate_as_in_eager():
    a, b = _objects_in_slots(2)
    ab, ba = {a, "_"}, {b, "_"}
    ab.add(b)
    ba.add(a)
    assert set(ab) == set(ba) and list(ab) != list(ba)

    def which(x, s):
        return x + 1, [m is a for m in s]

    loom.reset()
    compiled = loom.compile(which, backend="eager")
    for s in [ab, ba, ab, ba]:
        got, want = compiled(X, s), which(X, s)
        assert torch.equal(got[0], want[0]) and got[1] == want[1]
    assert loom.stats()["graph_breaks"] == 0
    assert loom.stats()["recompiles"] == 1
