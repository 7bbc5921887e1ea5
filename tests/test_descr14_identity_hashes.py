"""``hash(obj)`` of an object made while tracing that hashes by identity, and of a method bound to one: an int
known only at run time (rebuilt as ``hash(obj)`` after the graph), whose equality with another such hash is
decided as ``is`` decides (the same object; the same function bound to the same object). It used to be a
graph break."""

from __future__ import annotations

import torch

import loom


class _Plain:
    def m(self):
        return 1


class _EqByIdHash:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def test_identity_hashes_compare_in_one_graph():
    def fn(x):
        a, b = _Plain(), _Plain()
        e = _EqByIdHash()
        h = hash(a)
        return (x + 1, hash(a) == hash(a), hash(a) != hash(b), hash(a.m) == hash(a.m), h == hash(a),
                hash(e) == hash(e), hash(a) == hash(e))

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:] == (True, True, True, True, True, False)
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks


def test_a_returned_hash_is_the_returned_objects():
    def fn(x):
        a = _Plain()
        return x * 2, a, hash(a), hash(a.m), a.m

    loom.reset()
    _, obj, h, hm, method = loom.compile(fn, backend="eager", options={"strict": True})(torch.arange(3.0))
    assert h == hash(obj) and hm == hash(method)
