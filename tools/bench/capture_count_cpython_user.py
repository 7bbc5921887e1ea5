"""Programs after CPython's tests of the user-level containers and helpers as PyTorch's Dynamo suite runs them
(test/dynamo/cpython/3_13: test_userdict, test_userlist, test_unittest/test_assertions; 3.13: test_setcomps), for
``capture_count.py --only cpython_user``: ``collections.UserDict`` construction, lookup, ``__missing__``, copy and
merging; ``collections.UserList`` slicing, arithmetic, sorting and subclassing (set comprehensions and ``unittest``
assertions are in ``capture_count_cpython_user_more.py``). Each program does tensor
work before and after the construct so that the frame is compiled."""

from __future__ import annotations

import collections


def c_cu_userdict_constructor_forms(x):
    y = x + 1
    a = collections.UserDict()
    b = collections.UserDict({"one": 1, "two": 2})
    c = collections.UserDict(one=1, two=2)
    d = collections.UserDict([("one", 1), ("two", 2)])
    return y * len(a) + len(b), b == c == d, sorted(c)


def c_cu_userdict_data_is_copy(x):
    y = x * 2
    src = {"a": 1}
    u = collections.UserDict(src)
    u["b"] = 2
    return y + len(src), len(u.data), u.data is src


def c_cu_userdict_getitem_and_get(x):
    y = x - 1
    u = collections.UserDict({"k": 3})
    return y * u["k"], u.get("k"), u.get("z"), u.get("z", 9)


def c_cu_userdict_missing_keyerror(x):
    y = x.sin()
    u = collections.UserDict()
    try:
        u["absent"]
    except KeyError as e:
        return y + 1, e.args
    return y


def c_cu_userdict_subclass_missing(x):
    class D(collections.UserDict):
        def __missing__(self, key):
            return len(key)

    y = x.cos()
    d = D({"a": 1})
    return y * d["abcd"] + d["a"], "abcd" in d


def c_cu_userdict_contains_len_iter(x):
    y = x + 3
    u = collections.UserDict({1: "a", 2: "b"})
    return y * len(u), 1 in u, 3 in u, list(u), [k for k in u]


def c_cu_userdict_setitem_delitem(x):
    y = x * 3
    u = collections.UserDict()
    u["x"] = 1
    u["y"] = 2
    del u["x"]
    return y + len(u), dict(u)


def c_cu_userdict_delitem_missing(x):
    y = x.exp()
    u = collections.UserDict()
    try:
        del u["nope"]
    except KeyError:
        return y - 1
    return y


def c_cu_userdict_copy_independent(x):
    y = x + 1
    u = collections.UserDict({"a": [1]})
    c = u.copy()
    c["b"] = 2
    return y * len(c) + len(u), type(c) is collections.UserDict, c["a"] is u["a"]


def c_cu_userdict_subclass_copy_type(x):
    class D(collections.UserDict):
        pass

    y = x - 2
    d = D(a=1)
    c = d.copy()
    return y + len(c), type(c).__name__, c == d


def c_cu_userdict_update_forms(x):
    y = x.abs()
    u = collections.UserDict()
    u.update({"a": 1})
    u.update([("b", 2)])
    u.update(c=3)
    return y * sum(u.values()), sorted(u.items())


def c_cu_userdict_pop_popitem(x):
    y = x + 2
    u = collections.UserDict({"a": 1, "b": 2})
    p = u.pop("a")
    q = u.pop("zz", 7)
    k, v = u.popitem()
    return y * (p + q + v), k, len(u)


def c_cu_userdict_setdefault(x):
    y = x * 4
    u = collections.UserDict()
    first = u.setdefault("k", 5)
    second = u.setdefault("k", 6)
    return y + first + second, u["k"]


def c_cu_userdict_fromkeys(x):
    y = x - 3
    u = collections.UserDict.fromkeys("ab", 0)
    return y + len(u), type(u).__name__, dict(u)


def c_cu_userdict_equality_with_dict(x):
    y = x + 1
    u = collections.UserDict({"a": 1})
    return y * (u == {"a": 1}), u != {"a": 2}, {"a": 1} == u


def c_cu_userdict_or_operators(x):
    y = x * 2
    a = collections.UserDict({"a": 1})
    b = {"b": 2}
    c = a | b
    d = b | a
    a |= {"z": 0}
    return y + len(c) + len(d), type(c).__name__, type(d).__name__, sorted(a)


def c_cu_userdict_repr(x):
    y = x.sin()
    u = collections.UserDict({"a": 1})
    return y + len(repr(u)), repr(u), str(u)


def c_cu_userdict_keys_values_items(x):
    y = x.cos()
    u = collections.UserDict({"a": 1, "b": 2})
    return y * len(u.keys()), list(u.keys()), list(u.values()), list(u.items())


def c_cu_userdict_tensor_values(x):
    u = collections.UserDict()
    u["w"] = x * 2
    u["b"] = x + 1
    total = u["w"] + u["b"]
    return total.relu(), len(u)


def c_cu_userdict_kwarg_named_self(x):
    y = x + 1
    u = collections.UserDict(self=1, dict=2)
    return y * len(u), sorted(u)


def c_cu_userdict_subclass_getitem_override(x):
    class Upper(collections.UserDict):
        def __getitem__(self, key):
            return super().__getitem__(key.upper())

    y = x * 2
    d = Upper({"A": 3})
    return y + d["a"], d.get("a"), "a" in d


def c_cu_userdict_subclass_setitem_used_by_update(x):
    class Doubling(collections.UserDict):
        def __setitem__(self, key, value):
            super().__setitem__(key, value * 2)

    y = x - 1
    d = Doubling({"a": 1})
    d.update(b=2)
    return y + d["a"] + d["b"], dict(d)


def c_cu_userdict_isinstance_mapping(x):
    import collections.abc

    y = x.abs()
    u = collections.UserDict()
    return y + 1, isinstance(u, collections.abc.MutableMapping), isinstance(u, dict)


def c_cu_userdict_clear(x):
    y = x + 5
    u = collections.UserDict({"a": 1, "b": 2})
    u.clear()
    return y * (len(u) + 1), bool(u)


def c_cu_userdict_nested_missing_via_get(x):
    class D(collections.UserDict):
        def __missing__(self, key):
            return 0

    y = x * 3
    d = D()
    return y + d.get("a", 4) + d["a"], "a" in d


def c_cu_userdict_missing_raises_custom(x):
    class D(collections.UserDict):
        def __missing__(self, key):
            raise RuntimeError(key)

    y = x.exp()
    try:
        D()["q"]
    except RuntimeError as e:
        return y + 1, e.args
    return y


def c_cu_userdict_iteration_mutation_raises(x):
    y = x + 1
    u = collections.UserDict({"a": 1, "b": 2})
    try:
        for k in u:
            u[k + "x"] = 0
    except RuntimeError:
        return y - 1, len(u) >= 3
    return y, 0


def c_cu_userlist_constructor_forms(x):
    y = x + 1
    a = collections.UserList()
    b = collections.UserList([1, 2, 3])
    c = collections.UserList(b)
    d = collections.UserList((1, 2, 3))
    return y * len(b), len(a), b == c == d, c.data is b.data


def c_cu_userlist_getitem_slice_type(x):
    y = x * 2
    u = collections.UserList([0, 1, 2, 3, 4])
    s = u[1:4]
    return y + u[-1], type(s).__name__, list(s), list(u[::2])


def c_cu_userlist_setitem_slice(x):
    y = x - 1
    u = collections.UserList([0, 1, 2, 3])
    u[1:3] = [9, 9, 9]
    u[0] = -1
    return y + len(u), list(u)


def c_cu_userlist_delitem(x):
    y = x.sin()
    u = collections.UserList(range(6))
    del u[0]
    del u[::2]
    return y * len(u), list(u)


def c_cu_userlist_add_radd_iadd(x):
    y = x.cos()
    u = collections.UserList([1])
    a = u + [2]  # noqa: RUF005
    b = [0] + u  # noqa: RUF005
    c = u + (5,)  # noqa: RUF005
    u += [3]
    return y + len(u), type(a).__name__, type(b).__name__, list(b), list(c), list(u)


def c_cu_userlist_mul_imul(x):
    y = x + 2
    u = collections.UserList([1, 2])
    m = u * 2
    r = 2 * u
    u *= 3
    return y * len(m), list(m), list(r), len(u)


def c_cu_userlist_append_insert_pop(x):
    y = x * 3
    u = collections.UserList()
    u.append(1)
    u.insert(0, 0)
    u.extend([2, 3])
    last = u.pop()
    first = u.pop(0)
    return y + last + first, list(u)


def c_cu_userlist_remove_index_count(x):
    y = x - 2
    u = collections.UserList([1, 2, 2, 3])
    u.remove(2)
    return y + u.index(3) + u.count(2), list(u)


def c_cu_userlist_index_missing_raises(x):
    y = x.abs()
    u = collections.UserList([1, 2])
    try:
        u.index(5)
    except ValueError:
        return y + 1
    return y


def c_cu_userlist_sort_reverse(x):
    y = x + 1
    u = collections.UserList([3, 1, 2])
    u.sort()
    v = collections.UserList([3, 1, 2])
    v.sort(key=lambda t: -t)
    u.reverse()
    return y * u[0], list(u), list(v)


def c_cu_userlist_contains_iter_len(x):
    y = x * 2
    u = collections.UserList("abc")
    return y + len(u), "b" in u, "z" in u, [c for c in u], list(reversed(u))


def c_cu_userlist_comparisons(x):
    y = x - 1
    u = collections.UserList([1, 2])
    return y + (u < [1, 3]), u == [1, 2], u <= collections.UserList([1, 2]), u > [0], u != [2]


def c_cu_userlist_copy(x):
    y = x + 3
    u = collections.UserList([[1], 2])
    c = u.copy()
    c.append(3)
    return y * len(c), type(c).__name__, len(u), c[0] is u[0]


def c_cu_userlist_clear(x):
    y = x.exp()
    u = collections.UserList([1, 2])
    u.clear()
    return y + len(u), bool(u)


def c_cu_userlist_repr(x):
    y = x.sin()
    u = collections.UserList([1, "a"])
    return y + len(repr(u)), repr(u)


def c_cu_userlist_subclass_slice_keeps_type(x):
    class L(collections.UserList):
        pass

    y = x * 2
    u = L([1, 2, 3])
    s = u[:2]
    a = u + [4]  # noqa: RUF005
    return y + len(s), type(s).__name__, type(a).__name__


def c_cu_userlist_subclass_append_override(x):
    class Counting(collections.UserList):
        def append(self, item):
            super().append(item * 10)

    y = x - 1
    u = Counting()
    u.append(1)
    u.append(2)
    return y + sum(u), list(u)


def c_cu_userlist_tensor_items(x):
    u = collections.UserList([x, x * 2])
    u.append(x + 1)
    total = u[0] + u[1] + u[-1]
    return total.relu(), len(u)


def c_cu_userlist_getitem_out_of_range(x):
    y = x + 1
    u = collections.UserList([1])
    try:
        u[5]
    except IndexError:
        return y - 1
    return y


def c_cu_userlist_isinstance(x):
    import collections.abc

    y = x * 3
    u = collections.UserList()
    return y + 1, isinstance(u, collections.abc.MutableSequence), isinstance(u, list)


def c_cu_userlist_extend_with_generator(x):
    y = x + 2
    u = collections.UserList()
    u.extend(i * i for i in range(4))
    return y + sum(u), list(u)


def c_cu_userlist_iadd_returns_self(x):
    y = x - 3
    u = collections.UserList([1])
    before = u
    u += (2, 3)
    return y * len(u), u is before


def c_cu_userlist_sorted_and_max(x):
    y = x.cos()
    u = collections.UserList([4, 1, 3])
    return y + max(u) - min(u), sorted(u), sum(u)


CONSTRUCTS = [
    c_cu_userdict_constructor_forms, c_cu_userdict_data_is_copy, c_cu_userdict_getitem_and_get,
    c_cu_userdict_missing_keyerror, c_cu_userdict_subclass_missing, c_cu_userdict_contains_len_iter,
    c_cu_userdict_setitem_delitem, c_cu_userdict_delitem_missing, c_cu_userdict_copy_independent,
    c_cu_userdict_subclass_copy_type, c_cu_userdict_update_forms, c_cu_userdict_pop_popitem,
    c_cu_userdict_setdefault, c_cu_userdict_fromkeys, c_cu_userdict_equality_with_dict, c_cu_userdict_or_operators,
    c_cu_userdict_repr, c_cu_userdict_keys_values_items, c_cu_userdict_tensor_values, c_cu_userdict_kwarg_named_self,
    c_cu_userdict_subclass_getitem_override, c_cu_userdict_subclass_setitem_used_by_update,
    c_cu_userdict_isinstance_mapping, c_cu_userdict_clear, c_cu_userdict_nested_missing_via_get,
    c_cu_userdict_missing_raises_custom, c_cu_userdict_iteration_mutation_raises, c_cu_userlist_constructor_forms,
    c_cu_userlist_getitem_slice_type, c_cu_userlist_setitem_slice, c_cu_userlist_delitem,
    c_cu_userlist_add_radd_iadd, c_cu_userlist_mul_imul, c_cu_userlist_append_insert_pop,
    c_cu_userlist_remove_index_count, c_cu_userlist_index_missing_raises, c_cu_userlist_sort_reverse,
    c_cu_userlist_contains_iter_len, c_cu_userlist_comparisons, c_cu_userlist_copy, c_cu_userlist_clear,
    c_cu_userlist_repr, c_cu_userlist_subclass_slice_keeps_type, c_cu_userlist_subclass_append_override,
    c_cu_userlist_tensor_items, c_cu_userlist_getitem_out_of_range, c_cu_userlist_isinstance,
    c_cu_userlist_extend_with_generator, c_cu_userlist_iadd_returns_self, c_cu_userlist_sorted_and_max,
]
