"""Round 11's dict-view and tuple-key programs (a part of ``capture_count_gens11.py``): comparisons and set
algebra of ``items()`` views whose values are tensors or objects (test_dicts.py's items-view comparisons, whose
values' ``__eq__`` may raise), sets and dict keys that are tuples holding tensors. Each runs over one tensor.
"""

from __future__ import annotations


class _EqBoom(Exception):
    pass


class _RaisingEq:
    def __eq__(self, other):
        raise _EqBoom

    def __hash__(self):
        return 7


class _ByValue:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, _ByValue) and self.v == other.v

    __hash__ = None


def c_gens11_items_eq_tensor_values(x):
    d, e = {"a": x, "b": 1}, {"b": 1, "a": x}
    f = {"a": x + 0, "b": 1}
    return x + 1, d.items() == e.items(), d.items() != e.items(), d.items() == {"a": x}.items(), len(f)


def c_gens11_items_subset_tensor_values(x):
    small, big = {"k": x}, {"j": 0, "k": x}
    return (x * 2, small.items() <= big.items(), small.items() < big.items(), big.items() > small.items(),
            big.items() >= big.items(), big.items() < small.items())


def c_gens11_items_eq_user_values(x):
    d, e, f = {"a": _ByValue(1)}, {"a": _ByValue(1)}, {"a": _ByValue(2)}
    return x - 1, d.items() == e.items(), d.items() == f.items(), d.items() != f.items()


def c_gens11_items_eq_value_raises(x):
    d1, d2 = {1: _RaisingEq()}, {1: _RaisingEq()}
    d3 = {1: _RaisingEq(), 2: 0}
    out = []
    for op in (lambda: d1.items() == d2.items(), lambda: d1.items() != d2.items(),
               lambda: d1.items() <= d2.items(), lambda: d1.items() < d3.items(), lambda: d1.items() < d2.items()):
        try:
            out.append(op())
        except _EqBoom:
            out.append("boom")
    return x + len(out), out


def c_gens11_items_vs_set_of_pairs(x):
    d = {"a": 1, "b": x}
    return x + 1, d.items() == {("a", 1), ("b", x)}, d.items() >= {("a", 1)}, {("b", x)} < d.items()


def c_gens11_items_vs_keys_view(x):
    d = {"a": x}
    return x + 1, d.items() == d.keys(), d.keys() == {"a": x}.keys(), d.items().isdisjoint(d.keys())


def c_gens11_items_algebra_tensor_values(x):
    d, e = {"a": x, "b": 2}, {"b": 2, "c": x}
    both = d.items() & e.items()
    return (x * len(both), sorted(k for k, _ in both), len(d.items() | e.items()), ("a", x) in (d.items() - e.items()),
            len(d.items() ^ e.items()))


def c_gens11_items_and_set(x):
    d = {"a": x, "b": 2}
    s = {("b", 2), ("z", 0), ("q", 1)}
    r = d.items() & s
    return x + len(r), sorted(r), (s & d.items()) == r


def c_gens11_tuple_keys_with_tensors(x):
    y = x + 1
    d = {("w", x): 1}
    d[("w", x)] += 1
    d[("w", y)] = 5
    return x + d[("w", x)], d[("w", y)], len(d), ("w", y) in d, ("w", x + 2) in d


def c_gens11_set_of_tensor_pairs(x):
    s = {("a", x), ("a", x), ("b", 1)}
    s.discard(("b", 1))
    s.add((x, x))
    return x + len(s), ("a", x) in s, (x, x) in s, ("a", x * 1) in s


def c_gens11_items_to_set_membership(x):
    d = {"a": x, "b": x + 1}
    s = set(d.items())
    return x * len(s), ("a", x) in s, ("b", x) in s, frozenset(d.items()) == s


def c_gens11_tuple_key_unhashable_member(x):
    try:
        {("a", [x]): 1}  # noqa: B018
        err = None
    except TypeError as e:
        err = str(e)
    return x + 1, err


def c_gens11_frozenset_of_tensors_as_key(x):
    y = x * 2
    f = frozenset([x, y])
    d = {f: 1, frozenset([x]): 2}
    d[frozenset((y, x))] += 10
    return x + d[f], len(d), frozenset([y]) in d, {f, frozenset([y, x])} == {f}


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
