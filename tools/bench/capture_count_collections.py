"""Dicts, lists and sets the way PyTorch's Dynamo tests use them (test_dicts, test_list, test_sets and
CPython's own dict/list/set tests adapted to Dynamo), one small program each, for ``capture_count.py``:
every method (rare ones too), comparisons, keys that are tensors, modules, types, functions and enum
members, OrderedDict/defaultdict/Counter/UserDict/UserList and subclasses with overridden methods, dict
views and their set algebra, mutation while iterating, containers passed in and mutated, ``hash`` of
unhashable keys. Each one does tensor work on ``x`` so there is a graph to capture.
"""

from __future__ import annotations

import collections
import enum
import operator

import torch


def c_dict_or_ior(x):
    a = {"a": 1, "b": 2}
    b = {"b": 3, "c": 4}
    merged = a | b
    a |= b
    return x * merged["b"] + a["c"], sorted(merged), list(a.items())


def c_dict_popitem_copy(x):
    d = {"a": x, "b": x + 1, "c": x + 2}
    k, v = d.popitem()
    e = d.copy()
    e["z"] = v
    return v * 2, k, list(d), list(e)


def c_dict_fromkeys_setdefault(x):
    d = dict.fromkeys(["a", "b"], 1)
    d.setdefault("c", 5)
    d.setdefault("a", 7)
    e = dict.fromkeys("xy")
    return x + d["a"] + d["c"], e


def c_dict_update_forms(x):
    d = {}
    d.update({"a": 1})
    d.update([("b", 2)])
    d.update(c=3)
    d.update(zip(["e", "f"], [5, 6]))
    return x * sum(d.values()), list(d)


def c_dict_pop_default_del(x):
    d = {"a": x, "b": 2}
    y = d.pop("a")
    z = d.pop("missing", 10)
    del d["b"]
    return y + z, len(d), bool(d)


def c_dict_get_in_len(x):
    d = {"w": x, 3: 4}
    out = d.get("w") * 2
    if "q" not in d and 3 in d:
        out = out + d.get("q", 1) + len(d)
    return out


def c_dict_comprehension_items(x):
    d = {f"k{i}": x + i for i in range(3)}
    inv = {k: v * 2 for k, v in d.items() if k != "k1"}
    return sum(inv.values()), list(inv)


def c_dict_eq_ne(x):
    a = {"a": 1, "b": 2}
    b = {"b": 2, "a": 1}
    c = collections.OrderedDict(a)
    return x + (a == b) + (a != {"a": 1}) + (c == a), a == b


def c_dict_tensor_keys(x, w):
    d = {x: 1, w: 2}
    d[w] = d[w] + 1
    return x * d[x] + w * d[w], x in d, len(d)


c_dict_tensor_keys.extra_args = lambda: (torch.ones(3),)


def c_dict_module_type_function_keys(x):
    lin = torch.nn.ReLU()
    d = {lin: 2, int: 3, torch.sin: 4, operator.add: 5}
    return lin(x) * d[lin] + d[int] + d[torch.sin] + d[operator.add]


class _Color(enum.Enum):
    RED = 1
    BLUE = 2


def c_dict_enum_keys(x):
    d = {_Color.RED: x, _Color.BLUE: x + 1}
    out = d[_Color.RED] * d[_Color.BLUE]
    return out, _Color.BLUE in d, [k.name for k in d]


def c_dict_argument_mutated(x, d):
    d["out"] = x * 2
    d.pop("drop")
    d.setdefault("n", 0)
    d["n"] += 1
    return d["out"] + d["keep"], d


c_dict_argument_mutated.extra_args = lambda: ({"keep": torch.ones(3), "drop": 1},)


def c_dict_iterate_mutate_raises(x):
    d = {"a": 1, "b": 2}
    try:
        for k in d:
            d[k + "!"] = 0
    except RuntimeError as e:
        return x + 1, str(e)
    return x


def c_dict_views_set_ops(x):
    a = {"a": 1, "b": 2, "c": 3}
    b = {"b": 5, "d": 6}
    both = a.keys() & b.keys()
    either = a.keys() | b.keys()
    only = a.keys() - b.keys()
    sym = a.keys() ^ b.keys()
    items = a.items() & {("a", 1), ("b", 9)}
    return x * len(either), sorted(both), sorted(only), sorted(sym), items


def c_dict_views_live(x):
    d = {"a": x}
    ks, vs = d.keys(), d.values()
    d["b"] = x + 1
    return sum(vs), len(ks), list(ks), "b" in ks


def c_dict_reversed_views(x):
    d = {"a": 1, "b": 2, "c": 3}
    order = list(reversed(d))
    vals = list(reversed(d.values()))
    return x + vals[0], order


def c_ordereddict_ops(x):
    d = collections.OrderedDict([("a", 1), ("b", 2), ("c", 3)])
    d.move_to_end("a")
    d.move_to_end("c", last=False)
    k, v = d.popitem(last=False)
    return x * v, list(d), k


def c_defaultdict_list(x):
    d = collections.defaultdict(list)
    for i in range(3):
        d[i % 2].append(x * i)
    return sum(d[0]) + sum(d[1]), len(d), d.get(5) is None


def c_counter_ops(x):
    c = collections.Counter("abca")
    c.update("bb")
    d = c + collections.Counter("a")
    return x * c["b"] + d["a"], c.most_common(1), sorted(c.elements())


class _LoggedDict(dict):
    def __setitem__(self, key, value):
        super().__setitem__(key, value * 2)

    def __getitem__(self, key):
        return super().__getitem__(key) + 1


def c_dict_subclass_overrides(x):
    d = _LoggedDict()
    d["a"] = x
    return d["a"], list(d.keys()), isinstance(d, dict)


class _MissingDict(dict):
    def __missing__(self, key):
        return len(key)


def c_dict_subclass_missing(x):
    d = _MissingDict(a=x)
    return d["a"] + d["long"], "long" in d


def c_userdict(x):
    d = collections.UserDict({"a": x})
    d["b"] = x + 1
    return d["a"] * d["b"], len(d), "b" in d, list(d)


def c_hash_unhashable_key(x):
    d = {}
    try:
        d[[1, 2]] = x
    except TypeError as e:
        return x + 1, str(e)
    return x


def c_dict_keyerror(x):
    d = {"a": 1}
    try:
        return d["b"]
    except KeyError as e:
        return x + 2, e.args


def c_list_methods(x):
    lst = [x, x + 1, x + 2]
    lst.append(x * 2)
    lst.insert(1, x - 1)
    lst.extend([x, x])
    last = lst.pop()
    first = lst.pop(0)
    lst.remove(lst[0])
    return last + first + sum(lst), len(lst)


def c_list_index_count_bounds(x):
    lst = [1, 2, 3, 2, 1, 2]
    i = lst.index(2, 2)
    j = lst.index(2, 4, 6)
    return x * (i + j + lst.count(2)), lst.count(9)


def c_list_index_missing(x):
    lst = [1, 2, 3]
    try:
        lst.index(2, 0, 1)
    except ValueError as e:
        return x + 1, str(e)
    return x


def c_list_slice_assign_delete(x):
    lst = list(range(8))
    lst[1:3] = [10, 11, 12]
    lst[::2] = [0] * len(lst[::2])
    del lst[-2:]
    del lst[::3]
    return x + sum(lst), lst


def c_list_reverse_sort_key(x):
    lst = [3, 1, 2, -5]
    lst.reverse()
    lst.sort(key=abs, reverse=True)
    words = ["bb", "a", "ccc"]
    words.sort(key=len)
    return x * lst[0], lst, words


def c_list_sort_tensors_key(x):
    ts = [x + 3, x + 1, x + 2]
    ts.sort(key=lambda t: t.sum().item())
    return ts[0]


def c_list_compare(x):
    a, b = [1, 2, 3], [1, 2, 4]
    return x + (a < b) + (a == [1, 2, 3]) + (a != b), a >= b, [1, 2] < [1, 2, 0]


def c_list_concat_repeat(x):
    a = [x] * 2
    b = a + [x + 1]  # noqa: RUF005 - list.__add__ is the construct
    b += [x + 2]
    b *= 2
    return sum(b), len(b)


def c_list_argument_mutated(x, lst):
    lst.append(x * 2)
    lst[0] = lst[0] + 1
    lst.sort(key=lambda t: int(t.sum()))
    return len(lst), lst


c_list_argument_mutated.extra_args = lambda: ([torch.ones(3) * 5, torch.zeros(3)],)


def c_list_clear_copy(x):
    a = [x, x + 1]
    b = a.copy()
    a.clear()
    c = b[:]
    c.append(x)
    return sum(c), len(a), len(b)


def c_list_iterate_mutate(x):
    lst = [1, 2, 3]
    out = x
    for v in lst:
        if v == 1:
            lst.append(4)
        out = out + v
    return out, lst


def c_list_enumerate_zip(x):
    a = [x, x * 2]
    b = [3, 4]
    out = x
    for i, (t, n) in enumerate(zip(a, b)):
        out = out + t * n + i
    return out


class _Stack(list):
    def push(self, v):
        self.append(v)

    def append(self, v):
        super().append(v * 10)


def c_list_subclass(x):
    s = _Stack()
    s.push(x)
    s.append(1)
    return s[0] + s[1], len(s), type(s).__name__


def c_userlist(x):
    u = collections.UserList([x, x + 1])
    u.append(x + 2)
    u.reverse()
    return u[0] + u[-1], len(u), isinstance(u, collections.UserList)


def c_list_in_bool(x):
    lst = []
    out = x
    if not lst:
        out = out + 1
    lst.append(3)
    if lst and 3 in lst and 4 not in lst:
        out = out * 2
    return out


def c_list_unpack_star(x):
    a, *rest = [x, x + 1, x + 2]
    *init, last = (1, 2, 3)
    return a + sum(rest) + last, init


def c_dict_unpack_merge(x):
    a = {"a": 1, "b": 2}
    b = {**a, "c": 3, **{"a": 9}}
    c = dict(a, d=4)
    return x * b["a"] + c["d"], list(b), list(c)


def c_list_unpack_merge_reverse(x):
    a = [1, 2]
    b = [*a, 3, *(4, 5)]
    return x + b[::-1][0], list(reversed(b)), b[-2:], b[1:4:2]


def c_sorted_items_key(x):
    d = {"b": 2, "a": 3, "c": 1}
    by_value = sorted(d.items(), key=lambda kv: kv[1])
    by_key = sorted(d, reverse=True)
    return x * by_value[0][1], by_value, by_key, max(d, key=d.get), min(d.values())


def c_defaultdict_int_counter_math(x):
    counts = collections.defaultdict(int)
    for w in "abcab":
        counts[w] += 1
    c = collections.Counter(counts)
    c.subtract({"a": 1})
    return x + counts["a"], dict(c), (c - collections.Counter(b=1))["b"], sorted(c & collections.Counter(a=5))


def c_tensor_in_list_identity(x, w):
    items = [x, w]
    found = x in items  # x == w is never asked: identity first
    idx = items.index(x)
    return x * 2, found, idx, len(items)


c_tensor_in_list_identity.extra_args = lambda: (torch.ones(3),)


def c_dict_values_sum_tensors(x):
    d = {"a": x, "b": x * 2, "c": x + 1}
    total = sum(d.values())
    keys = [k for k, v in d.items() if k != "b"]
    return total, keys, len(d.values())


def c_dict_shape_keys(x):
    cache = {}
    cache[x.shape] = x * 2
    cache[tuple(x.shape)] = x + 1
    cache[x.dim()] = x
    return cache[torch.Size([3])], len(cache), (3,) in cache


def c_list_del_in_loop(x):
    lst = list(range(6))
    i = 0
    while i < len(lst):
        if lst[i] % 2:
            del lst[i]
        else:
            i += 1
    return x + sum(lst), lst


def c_list_any_all_minmax(x):
    lst = [3, 1, 4, 1, 5]
    return x * max(lst), any(v > 4 for v in lst), all(lst), min(lst, key=lambda v: -v), lst.count(1)


def c_ordereddict_equality_reversed(x):
    a = collections.OrderedDict(a=1, b=2)
    b = collections.OrderedDict(b=2, a=1)
    return x + (a == b) + (dict(a) == dict(b)), list(reversed(a)), a == {"b": 2, "a": 1}


def c_frozenset_dict_key_type_key(x):
    d = {frozenset({1, 2}): x, int: x + 1, type(x): x * 3}
    return d[frozenset([2, 1])] + d[int] + d[torch.Tensor], len(d)


def c_nested_list_dict_mutation_argument(x, state):
    state["hist"].append(x.sum())
    state["step"] += 1
    state.setdefault("extra", []).append(x * 2)
    return x * state["step"], state


c_nested_list_dict_mutation_argument.extra_args = lambda: ({"hist": [], "step": 0},)


def c_list_of_lists_sort_and_compare(x):
    grid = [[3, 1], [1, 2], [1, 1]]
    grid.sort()
    flat = [v for row in grid for v in row]
    return x + flat[0], grid, [[1, 1]] < grid, grid == sorted(grid)


def c_set_from_dict_and_string(x):
    s = set({"a": 1, "b": 2})
    t = set("hello")
    u = s | {"z"}
    return x * len(t), sorted(t), sorted(u), "l" in t, s <= u


def c_dict_popitem_loop(x):
    d = {i: x * i for i in range(4)}
    total = x
    while d:
        _, v = d.popitem()
        total = total + v
    return total


def c_dict_clear_update_kwargs_argument(x, d):
    d.clear()
    d.update(a=x, b=2)
    return x + d["b"], d


c_dict_clear_update_kwargs_argument.extra_args = lambda: ({"old": 1},)


def c_list_extend_generator_and_insert_negative(x):
    lst = [x]
    lst.extend(x * i for i in range(1, 3))
    lst.insert(-1, x - 1)
    lst.insert(100, x + 100)
    return sum(lst), len(lst)


def c_dict_keys_equality_to_set(x):
    d = {"a": 1, "b": 2}
    return x + (d.keys() == {"a", "b"}), d.keys() <= {"a", "b", "c"}, d.items() == {("a", 1), ("b", 2)}


def c_set_comparison_operators(x):
    a, b = {1, 2, 3}, frozenset({1, 2})
    return x + (b < a), a > b, a == {3, 2, 1}, b != a, a.issuperset([1]), b.isdisjoint(range(5, 9))


CONSTRUCTS = [
    c_dict_or_ior,
    c_dict_popitem_copy,
    c_dict_fromkeys_setdefault,
    c_dict_update_forms,
    c_dict_pop_default_del,
    c_dict_get_in_len,
    c_dict_comprehension_items,
    c_dict_eq_ne,
    c_dict_tensor_keys,
    c_dict_module_type_function_keys,
    c_dict_enum_keys,
    c_dict_argument_mutated,
    c_dict_iterate_mutate_raises,
    c_dict_views_set_ops,
    c_dict_views_live,
    c_dict_reversed_views,
    c_ordereddict_ops,
    c_defaultdict_list,
    c_counter_ops,
    c_dict_subclass_overrides,
    c_dict_subclass_missing,
    c_userdict,
    c_hash_unhashable_key,
    c_dict_keyerror,
    c_list_methods,
    c_list_index_count_bounds,
    c_list_index_missing,
    c_list_slice_assign_delete,
    c_list_reverse_sort_key,
    c_list_sort_tensors_key,
    c_list_compare,
    c_list_concat_repeat,
    c_list_argument_mutated,
    c_list_clear_copy,
    c_list_iterate_mutate,
    c_list_enumerate_zip,
    c_list_subclass,
    c_userlist,
    c_list_in_bool,
    c_list_unpack_star,
    c_dict_unpack_merge,
    c_list_unpack_merge_reverse,
    c_sorted_items_key,
    c_defaultdict_int_counter_math,
    c_tensor_in_list_identity,
    c_dict_values_sum_tensors,
    c_dict_shape_keys,
    c_list_del_in_loop,
    c_list_any_all_minmax,
    c_ordereddict_equality_reversed,
    c_frozenset_dict_key_type_key,
    c_nested_list_dict_mutation_argument,
    c_list_of_lists_sort_and_compare,
    c_set_from_dict_and_string,
    c_dict_popitem_loop,
    c_dict_clear_update_kwargs_argument,
    c_list_extend_generator_and_insert_negative,
    c_dict_keys_equality_to_set,
    c_set_comparison_operators,
]
