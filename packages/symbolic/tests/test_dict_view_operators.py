"""Set operators on dict views (``keys() & other``, ``items() - other``, reflected forms) give CPython's
new set, members in its order, in one graph; a values view's operator raises Python's own TypeError; ``isdisjoint`` of keys and items views answers in the graph too."""

import pytest
import torch
from harness import check

X = torch.arange(3.0)


def keys_views_combined(x):
    a = {"a": 1, "b": 2, "c": 3}
    b = {"b": 5, "d": 6}
    either = a.keys() | b.keys()
    return (x * len(either), list(a.keys() & b.keys()), list(a.keys() - b.keys()), list(a.keys() ^ b.keys()),
            list(either), {"c", "z"} & a.keys(), a.keys() - ["a"], type(either).__name__)


def items_view_with_constant_values(x):
    a = {"a": 1, "b": 2}
    return x + 1, a.items() & {("a", 1), ("b", 9)}, sorted(a.items() | {("z", 0)})


def values_view_operator_raises(x):
    d = {"a": x}
    try:
        d.values() | {1}
    except TypeError as e:
        return x + 1, str(e)
    return x


def set_operators_keep_tables(x):
    a = set(range(20))
    a -= set(range(1, 19))
    b = frozenset({40, 2})
    return x + 2, list(a | b), list(b | a), list(a ^ {19}), type(b - a).__name__, list(a & {0, 19, 7})


def views_compared(x):
    d = {"a": 1, "b": 2}
    return (x + (d.keys() == {"a", "b"}), d.keys() <= {"a", "b", "c"}, d.items() == {("a", 1), ("b", 2)},
            d.keys() != ["a", "b"], d.keys() > {"a"}, d.items() >= set())


def bound_c_method_as_key(x):
    d = {"b": 2, "a": 3, "c": 1}
    return x * d[max(d, key=d.get)], min(d, key=d.get), sorted(d, key=d.__getitem__), d.get is not None


def views_isdisjoint(x):
    d = {"a": 1, "b": 2}
    k, it = d.keys(), d.items()
    found = d.keys().isdisjoint
    return (x * k.isdisjoint(["c", "d"]), k.isdisjoint({"b"}), k.isdisjoint(iter(["z", "a"])), found(()),
            it.isdisjoint([("a", 1)]), it.isdisjoint({("a", 2)}), k.isdisjoint(c for c in "xyz"),
            k.isdisjoint({"z": 0}.keys()))


def items_view_with_tensor_values_isdisjoint(x):
    d = {"a": x, "b": 2}
    return x + 1, d.items().isdisjoint([("b", 2)]), d.items().isdisjoint([("c", 2), "not a pair"])


def views_of_tensor_values_truth(x):
    d = {"a": x, "b": x * 2}
    empty = {}
    vs = d.values()
    return sum(vs) * len(vs) + bool(d.items()), bool(vs), not empty.keys(), bool(empty.items())


@pytest.mark.parametrize("fn", [keys_views_combined, items_view_with_constant_values, values_view_operator_raises,
                                set_operators_keep_tables, views_compared, bound_c_method_as_key,
                                views_isdisjoint, items_view_with_tensor_values_isdisjoint,
                                views_of_tensor_values_truth])
def test_view_and_set_operators(fn):
    check(fn, X)
