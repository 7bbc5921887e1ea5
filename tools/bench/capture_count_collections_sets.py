"""The sets of ``capture_count_collections.py``'s area, for ``capture_count.py --only collections``: set and
frozenset methods and algebra, subsets and supersets, comprehensions and set subclasses with overridden
methods; also nested containers and dict keys with tensor values."""

from __future__ import annotations

import torch


def c_set_methods(x):
    s = {1, 2, 3}
    s.add(4)
    s.discard(10)
    s.remove(1)
    p = s.pop()
    t = s.copy()
    t.clear()
    return x * len(s), p, sorted(s), len(t)


def c_set_algebra_operators(x):
    a, b = {1, 2, 3}, {2, 3, 4}
    u, i, d, s = a | b, a & b, a - b, a ^ b
    return x * len(u) + len(i), sorted(u), sorted(i), sorted(d), sorted(s)


def c_set_inplace_operators(x):
    a = {1, 2, 3}
    a |= {9}
    a &= {1, 2, 9}
    a -= {2}
    a ^= {1, 7}
    return x + len(a), sorted(a)


def c_set_update_methods(x):
    a = {1, 2, 3, 4}
    a.difference_update({1})
    a.intersection_update({2, 3, 4, 5})
    a.symmetric_difference_update({4, 6})
    a.update([10], (11,))
    return x * len(a), sorted(a)


def c_set_subset_superset(x):
    a, b = {1, 2}, {1, 2, 3}
    checks = [a.issubset(b), b.issuperset(a), a <= b, a < b, b > a, b >= b, a.isdisjoint({5}), a == {2, 1}]
    return x + sum(checks), checks


def c_frozenset_ops(x):
    f = frozenset([1, 2, 3])
    g = f | {4}
    d = {f: x}
    return d[frozenset({3, 2, 1})] + len(g), type(g).__name__, f.union([7]) >= f


def c_set_of_tensors(x, w):
    s = {x, w}
    s.add(x)
    return len(s), x in s, sum(t.sum() for t in s if t is w)


c_set_of_tensors.extra_args = lambda: (torch.ones(3),)


def c_sorted_set(x):
    s = {5, 3, 9, 1}
    return x * sorted(s)[0], sorted(s, reverse=True), max(s), min(s)


def c_set_comprehension(x):
    s = {i % 3 for i in range(10)}
    return x + len(s), sorted(s)


def c_set_argument_mutated(x, s):
    s.add(7)
    s.discard(1)
    return x + len(s), s


c_set_argument_mutated.extra_args = lambda: ({1, 2},)


def c_set_iterate_mutate_raises(x):
    s = {1, 2}
    try:
        for v in s:
            s.add(v + 10)
    except RuntimeError as e:
        return x + 1, str(e)
    return x


def c_set_remove_missing(x):
    s = {1}
    try:
        s.remove(2)
    except KeyError as e:
        return x + 1, e.args
    return x


class _TrackedSet(set):
    def add(self, v):
        super().add(v * 2)


def c_set_subclass(x):
    s = _TrackedSet()
    s.add(3)
    s.update([1])
    return x + sum(s), sorted(s)


def c_nested_containers(x):
    d = {"ls": [x, x + 1], "st": {1, 2}, "dd": {"in": (x, 2)}}
    d["ls"].append(x * 3)
    d["st"].add(3)
    return sum(d["ls"]) + d["dd"]["in"][0] * d["dd"]["in"][1], len(d["st"])


def c_dict_keys_list_tensor_values(x):
    params = {"w": x, "b": x + 1}
    out = 0
    for name in list(params.keys()):
        params[name + "_sq"] = params[name] ** 2
    for _name, val in params.items():
        out = out + val
    return out, list(params)


CONSTRUCTS = [c_set_methods, c_set_algebra_operators, c_set_inplace_operators, c_set_update_methods,
              c_set_subset_superset, c_frozenset_ops, c_set_of_tensors, c_sorted_set, c_set_comprehension,
              c_set_argument_mutated, c_set_iterate_mutate_raises, c_set_remove_missing, c_set_subclass,
              c_nested_containers, c_dict_keys_list_tensor_values]
