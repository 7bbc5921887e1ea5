"""Queries of a constant frozenset or set (a module-level table) called with a value known only while the
frame runs: ``DIGITS.issuperset(text)``, ``KNOWN.isdisjoint(gen)``, ``ALLOWED.union(names)``. They broke the
graph (``frozenset.issuperset with non-constant arguments``); the set's own model now reads the argument item
by item, as CPython does (a generator runs no further than in eager)."""

import torch

import loom

_DIGITS = frozenset("0123456789.")
_NAMES = {"a", "b"}


def _explain(fn, *args):
    loom.reset()
    return loom.explain(fn)(*args)


def _issuperset_of_made_text(x):
    text = ".".join([str(x.shape[0]), str(x.dim())])
    return x + 1, _DIGITS.issuperset(c for c in text), _DIGITS.issubset(c for c in text + "0123456789")


def _isdisjoint_stops_early(x):
    gen = (c for c in "ab1cd")
    return x * 2, _DIGITS.isdisjoint(gen), list(gen)


def _algebra(x):
    extra = [str(x.dim()), "z", "a"]
    return (x - 1, sorted(_NAMES.union(e for e in extra)), sorted(_DIGITS.intersection(iter(extra))),
            sorted(_NAMES.difference(e for e in extra)), sorted(_NAMES.symmetric_difference(e for e in extra)))


def test_issuperset_of_a_string_made_in_the_frame():
    x = torch.arange(3.0)
    report = _explain(_issuperset_of_made_text, x)
    expected = _issuperset_of_made_text(x)
    assert torch.equal(report.result[0], expected[0]) and report.result[1:] == expected[1:] == (True, True)
    assert report.graph_count == 1 and report.break_count == 0


def test_isdisjoint_reads_a_generator_as_far_as_eager():
    x = torch.arange(3.0)
    report = _explain(_isdisjoint_stops_early, x)
    assert report.result[1:] == _isdisjoint_stops_early(x)[1:] == (False, ["c", "d"])
    assert report.graph_count == 1 and report.break_count == 0


def test_set_algebra_with_a_list_made_in_the_frame():
    x = torch.arange(3.0)
    report = _explain(_algebra, x)
    assert report.result[1:] == _algebra(x)[1:]
    assert report.graph_count == 1 and report.break_count == 0
    assert _NAMES == {"a", "b"}
