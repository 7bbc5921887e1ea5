"""Programs after CPython's container tests as PyTorch's Dynamo suite runs them (test/dynamo/cpython/3_13:
test_dict, mapping_tests, test_ordered_dict, test_defaultdict, test_collections), for ``capture_count.py --only
cpython_coll``: dict construction, views, merging, ``setdefault``/``pop``/``popitem``, ordered-dict moves and
equality, defaultdict factories and ``__missing__``, Counter arithmetic, namedtuple, deque and ChainMap. Each
program does tensor work before and after the construct so that the frame is compiled."""

from __future__ import annotations

import collections


def c_cc_dict_constructor_forms(x):
    y = x + 1
    a = dict(one=1, two=2)
    b = dict([("one", 1), ("two", 2)])
    c = dict({"one": 1}, two=2)
    d = dict(zip(["one", "two"], [1, 2]))
    return y * (a == b == c == d) + len(a), sorted(a)


def c_cc_dict_fromkeys(x):
    y = x * 2
    d = dict.fromkeys("abc")
    e = dict.fromkeys([1, 2], 7)
    return y + sum(e.values()), list(d), d["a"] is None


def c_cc_dict_bool_len(x):
    y = x - 1
    d = {}
    empty = not d
    d["k"] = 3
    return y * len(d) + empty, bool(d)


def c_cc_dict_keys_view_setops(x):
    y = x + 2
    k = {1: "a", 2: "b", 3: "c"}.keys()
    inter = k & {2, 3, 4}
    uni = k | {9}
    diff = k - {1}
    xor = k ^ {3, 4}
    return y * len(inter), sorted(inter), sorted(uni), sorted(diff), sorted(xor)


def c_cc_dict_items_view_contains(x):
    y = x.sin()
    d = {"a": 1, "b": 2}
    it = d.items()
    checks = [("a", 1) in it, ("a", 2) in it, ("z", 1) in it]
    return y + sum(checks), checks, len(it)


def c_cc_dict_view_reflects_mutation(x):
    y = x.cos()
    d = {"a": 1}
    ks, vs = d.keys(), d.values()
    d["b"] = 2
    del d["a"]
    return y * len(ks), list(ks), list(vs)


def c_cc_dict_values_sum(x):
    y = x.exp()
    d = {"w": x, "b": x * 3}
    return sum(d.values()) + y


def c_cc_dict_get_default(x):
    y = x + 1
    d = {"a": 2}
    return y * d.get("a") + d.get("b", 5), d.get("missing") is None


def c_cc_dict_setdefault(x):
    y = x * 3
    d = {}
    d.setdefault("lst", []).append(1)
    d.setdefault("lst", []).append(2)
    v = d.setdefault("n", 4)
    return y + len(d["lst"]) + v, d


def c_cc_dict_pop_default_and_missing(x):
    y = x - 2
    d = {"a": 1, "b": 2}
    p = d.pop("a")
    q = d.pop("zz", 10)
    try:
        d.pop("zz")
        missing = False
    except KeyError:
        missing = True
    return y * p + q, missing, d


def c_cc_dict_popitem_lifo(x):
    y = x + 3
    d = {"a": 1, "b": 2, "c": 3}
    k, v = d.popitem()
    d.popitem()
    return y * v, k, list(d)


def c_cc_dict_popitem_empty_raises(x):
    y = x * 2
    try:
        {}.popitem()
        r = 0
    except KeyError:
        r = 1
    return y + r


def c_cc_dict_update_forms(x):
    y = x.sin()
    d = {"a": 1}
    d.update({"b": 2})
    d.update([("c", 3)])
    d.update(e=5)
    d.update(collections.OrderedDict(f=6))
    return y * sum(d.values()), list(d)


def c_cc_dict_merge_operators(x):
    y = x + 4
    a, b = {"a": 1, "b": 2}, {"b": 3, "c": 4}
    m = a | b
    a |= {"z": 0}
    return y * m["b"], list(m), list(a)


def c_cc_dict_copy_is_shallow(x):
    y = x * 5
    inner = [1]
    d = {"i": inner}
    e = d.copy()
    e["i"].append(2)
    e["j"] = 0
    return y + len(d["i"]), "j" in d, e is not d


def c_cc_dict_clear(x):
    y = x - 5
    d = {1: 2, 3: 4}
    alias = d
    d.clear()
    return y + len(alias), alias == {}


def c_cc_dict_equality_order_free(x):
    y = x.abs()
    a = {1: "a", 2: "b"}
    b = {2: "b", 1: "a"}
    return y * (a == b) + (a != {1: "a"}), a == b


def c_cc_dict_missing_subclass(x):
    y = x + 1
    d = _Missing({"a": 1})
    return y * d["a"] + d["nope"], "nope" in d, d.get("nope", -1)


class _Missing(dict):
    def __missing__(self, key):
        return len(key) * 10


def c_cc_dict_getitem_keyerror_arg(x):
    y = x * 2
    try:
        {}[(1, 2)]
        arg = None
    except KeyError as e:
        arg = e.args[0]
    return y, arg


def c_cc_dict_tuple_and_frozenset_keys(x):
    y = x + 6
    d = {(1, 2): "t", frozenset({3}): "f", None: "n", 1.5: "x"}
    return y * len(d), d[(1, 2)], d[frozenset([3])], d[None], d[1.5]


def c_cc_dict_int_float_bool_key_collision(x):
    y = x * 0.5
    d = {1: "int"}
    d[1.0] = "float"
    d[True] = "bool"
    return y + len(d), d[1], list(d)


def c_cc_dict_comprehension_filter(x):
    y = x.sum()
    d = {i: i * i for i in range(8) if i % 3}
    return y + sum(d), d


def c_cc_dict_iteration_mutation_raises(x):
    y = x + 1
    d = {1: 1, 2: 2}
    try:
        for k in d:
            d[k + 10] = 0
        raised = False
    except RuntimeError:
        raised = True
    return y * raised, len(d)


def c_cc_dict_reversed(x):
    y = x * 3
    d = {"a": 1, "b": 2, "c": 3}
    return y + d["c"], list(reversed(d)), list(reversed(d.values())), list(reversed(d.items()))


def c_cc_dict_tensor_values_update_in_loop(x):
    y = x + 1
    d = {"a": y, "b": y * 2}
    for k in list(d):
        d[k] = d[k] + 1
    return d["a"] * d["b"]


def c_cc_dict_repr_and_str(x):
    y = x + 1
    d = {"a": 1, 2: [3]}
    return y * len(repr(d)), repr(d), str({})


def c_cc_dict_contains_and_del(x):
    y = x * 2
    d = {"a": 1, "b": 2}
    del d["a"]
    try:
        del d["a"]
        ok = False
    except KeyError:
        ok = True
    return y + ("b" in d) + ("a" not in d), ok


def c_cc_dict_subclass_setitem_override(x):
    y = x - 1
    d = _Upper()
    d["ab"] = 1
    d.update(cd=2)
    return y * len(d), sorted(d)


class _Upper(dict):
    def __setitem__(self, key, value):
        super().__setitem__(key.upper(), value)


def c_cc_dict_keys_isdisjoint(x):
    y = x + 1
    k = {1: 0, 2: 0}.keys()
    return y * k.isdisjoint([3, 4]) + k.isdisjoint({2}), k == {1, 2}


def c_cc_ordered_dict_move_to_end(x):
    y = x * 2
    od = collections.OrderedDict.fromkeys("abcde")
    od.move_to_end("b")
    od.move_to_end("d", last=False)
    return y + len(od), "".join(od)


def c_cc_ordered_dict_popitem_first(x):
    y = x + 1
    od = collections.OrderedDict([("a", 1), ("b", 2), ("c", 3)])
    k1, v1 = od.popitem(last=False)
    k2, v2 = od.popitem()
    return y * (v1 + v2), k1, k2, list(od)


def c_cc_ordered_dict_equality_is_ordered(x):
    y = x - 1
    a = collections.OrderedDict([(1, 1), (2, 2)])
    b = collections.OrderedDict([(2, 2), (1, 1)])
    return y + (a == b) + (a == dict(b)) * 2, a == b


def c_cc_ordered_dict_setitem_keeps_position(x):
    y = x * 3
    od = collections.OrderedDict(a=1, b=2, c=3)
    od["a"] = 10
    del od["b"]
    od["b"] = 20
    return y + od["a"], list(od.items())


def c_cc_ordered_dict_reversed_and_copy(x):
    y = x + 2
    od = collections.OrderedDict(a=1, b=2)
    c = od.copy()
    c["z"] = 3
    return y * len(c), list(reversed(od)), type(c).__name__, list(c)


def c_cc_ordered_dict_move_missing_raises(x):
    y = x * 4
    od = collections.OrderedDict(a=1)
    try:
        od.move_to_end("q")
        r = 0
    except KeyError:
        r = 1
    return y + r


def c_cc_ordered_dict_setdefault_pop(x):
    y = x - 3
    od = collections.OrderedDict()
    od.setdefault("a", 5)
    od.setdefault("a", 6)
    p = od.pop("a")
    q = od.pop("b", 9)
    return y * p + q, len(od)


def c_cc_ordered_dict_merge(x):
    y = x + 1
    od = collections.OrderedDict(a=1) | {"b": 2}
    return y * len(od), type(od).__name__, list(od)


def c_cc_defaultdict_list(x):
    y = x * 2
    dd = collections.defaultdict(list)
    for i, w in enumerate("abab"):
        dd[w].append(i)
    return y + len(dd["a"]), dict(dd)


def c_cc_defaultdict_int_counting(x):
    y = x + 1
    dd = collections.defaultdict(int)
    for ch in "mississippi":
        dd[ch] += 1
    return y * dd["s"], sorted(dd.items())


def c_cc_defaultdict_no_factory_keyerror(x):
    y = x - 1
    dd = collections.defaultdict()
    try:
        dd[1]
        r = 0
    except KeyError:
        r = 1
    return y + r, dd.default_factory is None


def c_cc_defaultdict_get_does_not_insert(x):
    y = x * 3
    dd = collections.defaultdict(lambda: 42)
    g = dd.get("a")
    v = dd["b"]
    return y + v, g is None, "a" in dd, "b" in dd


def c_cc_defaultdict_copy_keeps_factory(x):
    y = x + 2
    dd = collections.defaultdict(set)
    dd["k"].add(1)
    c = dd.copy()
    c["new"].add(2)
    return y * len(c), c.default_factory is set, sorted(dd)


def c_cc_defaultdict_tensor_factory_values(x):
    y = x + 1
    dd = collections.defaultdict(lambda: 0)
    for i in range(3):
        dd[i % 2] = dd[i % 2] + y * i
    return dd[0] + dd[1]


def c_cc_counter_most_common(x):
    y = x * 2
    c = collections.Counter("abracadabra")
    return y + c["a"], c.most_common(2), c["zzz"]


def c_cc_counter_arithmetic(x):
    y = x + 1
    a = collections.Counter(a=3, b=1)
    b = collections.Counter(a=1, b=2)
    return y * (a + b)["a"], dict(a - b), dict(a & b), dict(a | b)


def c_cc_counter_update_subtract(x):
    y = x - 1
    c = collections.Counter()
    c.update("aab")
    c.update({"b": 5})
    c.subtract(a=1)
    return y + c["b"], sorted(c.items()), c.total()


def c_cc_counter_elements(x):
    y = x * 2
    c = collections.Counter(a=2, b=0, c=1)
    return y + len(list(c.elements())), sorted(c.elements())


def c_cc_namedtuple_fields(x):
    y = x + 1
    P = collections.namedtuple("P", "a b")
    p = P(1, b=2)
    q = p._replace(a=5)
    return y * q.a + p.b, p._asdict(), P._fields, tuple(q)


def c_cc_namedtuple_tensor_field(x):
    y = x.sin()
    p = _Pt(y, 3)
    a, b = p
    return a * b + p[0], p._replace(n=4).n, p._fields, p.index(p.t)


_Pt = collections.namedtuple("_Pt", ["t", "n"])


def c_cc_deque_rotate_and_maxlen(x):
    y = x * 2
    d = collections.deque([1, 2, 3, 4], maxlen=4)
    d.rotate(1)
    d.append(5)
    d.appendleft(0)
    return y + d[0], list(d), d.maxlen


def c_cc_deque_extendleft_pops(x):
    y = x + 1
    d = collections.deque()
    d.extendleft([1, 2, 3])
    a = d.popleft()
    b = d.pop()
    return y * a + b, list(d)


def c_cc_chainmap_lookup(x):
    y = x - 1
    base = {"a": 1, "b": 2}
    over = {"a": 10}
    cm = collections.ChainMap(over, base)
    cm["c"] = 3
    return y * cm["a"] + cm["b"], sorted(cm), "c" in over


def c_cc_list_self_extend_and_slice_self(x):
    y = x + 1
    a = [1, 2]
    a.extend(a)
    a[:] = a
    a[1:1] = a
    return y * len(a), a


def c_cc_list_recursive_repr(x):
    y = x * 2
    a = [1]
    a.append(a)
    d = {"k": 1}
    d["self"] = d
    return y + len(a), repr(a), repr(d)


def c_cc_dict_custom_hash_keys(x):
    y = x - 1
    d = {_Key(1): "a"}
    d[_Key(1)] = "b"
    return y * len(d), d[_Key(1)], _Key(2) in d


class _Key:
    def __init__(self, v):
        self.v = v

    def __hash__(self):
        return hash(self.v)

    def __eq__(self, other):
        return isinstance(other, _Key) and other.v == self.v


def c_cc_set_custom_eq_members(x):
    y = x + 1
    s = {_Key(1), _Key(1), _Key(2)}
    s.discard(_Key(2))
    return y * len(s), _Key(1) in s


def c_cc_list_sort_key_raises_keeps_list(x):
    y = x * 3
    a = [3, "b", 1]
    try:
        a.sort()
        r = 0
    except TypeError:
        r = 1
    return y + r, len(a)


def c_cc_ordered_dict_equals_dict_and_ordered(x):
    y = x + 2
    od = collections.OrderedDict(a=1, b=2)
    return y * (od == {"b": 2, "a": 1}), od != collections.OrderedDict(b=2, a=1), dict(od) == od


def c_cc_deque_index_and_contains(x):
    y = x - 1
    d = collections.deque("abcb")
    return y + d.index("b") + d.count("b"), "c" in d, d[-1]


def c_cc_counter_negative_and_unary(x):
    y = x + 1
    c = collections.Counter(a=2, b=-1)
    return y * sum(c.values()), dict(+c), dict(-c)


def c_cc_dict_views_of_tensor_values_len_bool(x):
    y = x.sin()
    d = {"a": y, "b": y * 2}
    vs = d.values()
    return sum(vs) * len(vs) + bool(d.items()), list(d.keys())


def c_cc_list_slice_of_tensors_reversed(x):
    y = x + 1
    a = [y, y * 2, y * 3]
    b = a[::-1]
    b[0] = b[0] * 10
    return b[0] + a[0] + b[-1]


def c_cc_tuple_hash_of_nested_frozenset(x):
    y = x * 2
    k = (frozenset({1, 2}), ("a", (None,)))
    d = {k: 3}
    return y + d[(frozenset([2, 1]), ("a", (None,)))], k in {k}


CONSTRUCTS = [c_cc_dict_constructor_forms, c_cc_dict_fromkeys, c_cc_dict_bool_len, c_cc_dict_keys_view_setops,
              c_cc_dict_items_view_contains, c_cc_dict_view_reflects_mutation, c_cc_dict_values_sum,
              c_cc_dict_get_default, c_cc_dict_setdefault, c_cc_dict_pop_default_and_missing,
              c_cc_dict_popitem_lifo, c_cc_dict_popitem_empty_raises, c_cc_dict_update_forms,
              c_cc_dict_merge_operators, c_cc_dict_copy_is_shallow, c_cc_dict_clear, c_cc_dict_equality_order_free,
              c_cc_dict_missing_subclass, c_cc_dict_getitem_keyerror_arg, c_cc_dict_tuple_and_frozenset_keys,
              c_cc_dict_int_float_bool_key_collision, c_cc_dict_comprehension_filter,
              c_cc_dict_iteration_mutation_raises, c_cc_dict_reversed, c_cc_dict_tensor_values_update_in_loop,
              c_cc_dict_repr_and_str, c_cc_dict_contains_and_del, c_cc_dict_subclass_setitem_override,
              c_cc_dict_keys_isdisjoint, c_cc_ordered_dict_move_to_end, c_cc_ordered_dict_popitem_first,
              c_cc_ordered_dict_equality_is_ordered, c_cc_ordered_dict_setitem_keeps_position,
              c_cc_ordered_dict_reversed_and_copy, c_cc_ordered_dict_move_missing_raises,
              c_cc_ordered_dict_setdefault_pop, c_cc_ordered_dict_merge, c_cc_defaultdict_list,
              c_cc_defaultdict_int_counting, c_cc_defaultdict_no_factory_keyerror,
              c_cc_defaultdict_get_does_not_insert, c_cc_defaultdict_copy_keeps_factory,
              c_cc_defaultdict_tensor_factory_values, c_cc_counter_most_common, c_cc_counter_arithmetic,
              c_cc_counter_update_subtract, c_cc_counter_elements, c_cc_namedtuple_fields,
              c_cc_namedtuple_tensor_field, c_cc_deque_rotate_and_maxlen, c_cc_deque_extendleft_pops,
              c_cc_chainmap_lookup,
              c_cc_list_self_extend_and_slice_self, c_cc_list_recursive_repr, c_cc_dict_custom_hash_keys, c_cc_set_custom_eq_members, c_cc_list_sort_key_raises_keeps_list, c_cc_ordered_dict_equals_dict_and_ordered, c_cc_deque_index_and_contains, c_cc_counter_negative_and_unary, c_cc_dict_views_of_tensor_values_len_bool, c_cc_list_slice_of_tensors_reversed, c_cc_tuple_hash_of_nested_frozenset]
