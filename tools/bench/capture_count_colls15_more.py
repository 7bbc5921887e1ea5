"""More of round 15's programs (see ``capture_count_colls15.py``): ``__dict__`` items behind properties,
frozensets of real functions as dict keys, user ``__bool__`` on containers, frozen dataclasses as keys, and
``dict``/``list`` corner cases after test/dynamo/test_dicts.py and test_list.py. Each runs over one tensor.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict

import torch


class _DictBacked:
    def __init__(self, v):
        self.__dict__["v"] = v

    @property
    def v(self):
        return self.__dict__["v"]

    @v.setter
    def v(self, value):
        self.__dict__["v"] = value


def c_colls15_property_over_dunder_dict(x):
    o = _DictBacked(x)
    a = o.v
    o.v = a + 1
    o.__dict__["v"] = o.__dict__["v"] * 2
    return o.v, o.__dict__.get("v") is o.v, "v" in vars(o)


_GLOBAL_OBJ = _DictBacked(3)


def c_colls15_global_dunder_dict_get(x):
    return x + _GLOBAL_OBJ.__dict__.get("v") + _GLOBAL_OBJ.v


def c_colls15_frozenset_of_functions_key(x):
    funcs = torch.overrides.get_default_nowrap_functions()
    d = {frozenset(funcs): x * 2}
    if torch.Tensor.grad.__get__ in funcs:
        return d[frozenset(funcs)] + x
    return x


class _Truthy:
    def __init__(self, flag):
        self.flag = flag

    def __bool__(self):
        return self.flag


def c_colls15_user_bool_in_not_and_or(x):
    t, f = _Truthy(True), _Truthy(False)
    r = (t or 5) is t, (f and 5) is f, bool(not t), bool(not f), [v for v in (t, f) if v] == [t]
    return x.sin(), r


@dataclasses.dataclass(frozen=True)
class _Pt:
    a: int
    b: int


def c_colls15_frozen_dataclass_key_with_tensor_values(x):
    d = {_Pt(1, 2): x * 2, _Pt(3, 4): x * 3}
    d[_Pt(1, 2)] = d[_Pt(1, 2)] + 1
    return d[_Pt(1, 2)] + d[_Pt(3, 4)], len(d), _Pt(3, 4) in d


def c_colls15_list_key_type_error(x):
    try:
        d = {[1, 2]: x}
        return d
    except TypeError as e:
        return x + 1, str(e)


class _LenDict(dict):
    def __len__(self):
        return 42


def c_colls15_dict_subclass_len_and_truth(x):
    d = _LenDict()
    return x + len(d), bool(d), dict.__len__(d)


def c_colls15_dict_keys_reversed_and_mapping(x):
    d = {"a": 1, "b": 2, "c": 3}
    ks = d.keys()
    return x + ks.mapping["b"], list(reversed(ks)), list(reversed(d.items())), list(reversed(d.values()))


def c_colls15_dict_comprehension_from_zip(x):
    names = ["w", "b"]
    d = {n: x * i for i, n in enumerate(names)}
    inv = {id(v): k for k, v in d.items()}
    return d["b"] + 1, len(inv), sorted(d)


def c_colls15_ordered_dict_eq_order_sensitive(x):
    a = OrderedDict(a=1, b=2)
    b = OrderedDict(b=2, a=1)
    return x + (a == b), a == dict(b), dict(a) == dict(b), a != b


def c_colls15_dict_update_kwargs_and_iterable(x):
    d = {}
    d.update([("a", x)], b=x + 1)
    d.update({"a": x * 3}.items())
    return d["a"] + d["b"], list(d)


def c_colls15_list_extend_self_and_insert_neg(x):
    a = [1, 2]
    a.extend(a)
    a.insert(-1, 9)
    a.insert(100, 7)
    a.insert(-100, 0)
    return x + len(a), a


def c_colls15_list_remove_by_eq_tensor_free(x):
    a = [1.0, 2, 3.0, 2]
    a.remove(2.0)
    try:
        a.remove(5)
        miss = False
    except ValueError:
        miss = True
    return x + len(a), a, miss


def c_colls15_list_of_tensors_index_identity(x):
    y = x + 1
    z = x + 2
    items = [y, z]
    return items[items.index(y)] * 2, y in items, len(items)


def c_colls15_tuple_count_index(x):
    t = (1, "a", 1, 2.0, 1)
    return x + t.count(1), t.index(2), t.index(1, 1), t[::-2]


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
