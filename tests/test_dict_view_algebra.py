"""Dict items views whose values are tensors or objects, compared and combined in the compiled frame
(``variables/dict_view_algebra.py``), tuples and frozensets holding tensors as keys (``variables/tuple_keys.py``) and
``view.isdisjoint(view)`` (``variables/dict_methods.py``).

Before, ``d.items() == e.items()`` of dicts holding a tensor, ``d.items() <= e.items()``, ``d.items() & e.items()``
were graph breaks ("the translator does not model this combination"), as were ``{("a", x)}`` and ``{(k, x): 1}``
("a dict key known only at run time"); torch.compile captures all of them in one graph.
"""

import contextlib
import io

import pytest
import torch

import loom


class _Boom(Exception):
    pass


class _RaisingEq:
    def __eq__(self, other):
        raise _Boom

    def __hash__(self):
        return 3


class _ByValue:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, _ByValue) and self.v == other.v

    __hash__ = None


def _compare_tensor_values(x):
    d, e, small = {"a": x, "b": 1}, {"b": 1, "a": x}, {"a": x}
    return (x + 1, d.items() == e.items(), d.items() != e.items(), small.items() <= d.items(), small.items() < d.items(),
            d.items() > small.items(), d.items() < small.items(), d.items() == {"a": x + 0}.items())


def _compare_user_values(x):
    d, e, f = {"a": _ByValue(1)}, {"a": _ByValue(1)}, {"a": _ByValue(2)}
    return x * 2, d.items() == e.items(), d.items() == f.items(), d.items() != f.items()


def _value_eq_raises(x):
    d1, d2, d3 = {1: _RaisingEq()}, {1: _RaisingEq()}, {1: _RaisingEq(), 2: 0}
    out = []
    for op in (lambda: d1.items() == d2.items(), lambda: d1.items() <= d3.items(), lambda: d1.items() < d2.items()):
        try:
            out.append(op())
        except _Boom:
            out.append("boom")
    return x - 1, out


def _algebra(x):
    d, e = {"a": x, "b": 2}, {"b": 2, "c": x}
    both = d.items() & e.items()
    only = d.items() - e.items()
    return (x * len(both), sorted(k for k, _ in both), len(d.items() | e.items()), ("a", x) in only,
            len(d.items() ^ e.items()), d.items() == {("a", x), ("b", 2)}, d.items().isdisjoint(e.keys()))


def _tuple_keys(x):
    y = x + 1
    d = {("w", x): 1}
    d[("w", x)] += 1
    d[("w", y)] = 5
    s = {("a", x), ("a", x), (x, y)}
    return x + d[("w", x)], len(d), ("w", x + 2) in d, len(s), (x, y) in s, ("a", y) in s


def _frozenset_key(x):
    y = x * 2
    d = {frozenset([x, y]): 1}
    d[frozenset((y, x))] += 10
    return x + d[frozenset([x, y])], len(d), frozenset([y]) in d


def _items_to_set(x):
    d = {"a": x, "b": x + 1}
    s = set(d.items())
    return x * len(s), ("a", x) in s, ("b", x) in s


def _same(got, want):
    assert type(got) is type(want)
    if isinstance(want, torch.Tensor):
        torch.testing.assert_close(got, want)
    elif isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    else:
        assert got == want


@pytest.mark.parametrize("program", [_compare_tensor_values, _compare_user_values, _value_eq_raises, _algebra,
                                     _tuple_keys, _items_to_set, _frozenset_key])
def test_captured_in_one_graph_as_eager(program):
    x = torch.randn(3)
    want = program(x)
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        report = loom.explain(program)(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    _same(loom.compile(program, backend="eager")(x), want)


def test_unhashable_member_is_still_the_programs_type_error():
    def program(x):
        try:
            {("a", [x]): 1}
        except TypeError as e:
            return x + 1, str(e)
        return x, None

    x = torch.randn(2)
    loom.reset()
    got = loom.compile(program, backend="eager")(x)
    assert got[1] == program(x)[1] == "unhashable type: 'list'"
