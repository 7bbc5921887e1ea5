"""Round 15's function programs (see ``capture_count_colls15.py``), after the first half of
test/dynamo/test_functions.py: ``collections.abc`` views written in Python fed to ``set()``, named tuples with
defaults and user methods, ``match`` statements over mappings, sequences and classes, and
``torch.distributions`` objects. Each runs over one tensor.
"""

# ruff: noqa: RUF005 (the concatenations are the constructs)
from __future__ import annotations

import collections
from collections.abc import KeysView, Mapping
from typing import NamedTuple

import torch


class _Keys(KeysView):
    def __init__(self, keys):
        self.keys = keys

    def __iter__(self):
        yield from self.keys

    def __len__(self):
        return len(self.keys)

    def __contains__(self, item):
        return item in self.keys


_GLOBAL_KEYS = _Keys([1, 2, 3, 3])


def c_colls15_set_of_python_keys_view(x):
    local = _Keys(["a", "b", "a"])
    return x * len(set(_GLOBAL_KEYS)), sorted(set(local)), 2 in _GLOBAL_KEYS, sorted(local | {"z"})


class _Pair(NamedTuple):
    first: torch.Tensor
    second: torch.Tensor

    def add(self):
        return self.first + self.second

    @staticmethod
    def one():
        return 1

    @classmethod
    def name(cls):
        return cls.__name__


def c_colls15_namedtuple_user_methods(x):
    p = _Pair(x, x + 1)
    ok = isinstance(p, tuple) and hasattr(p, "_asdict") and hasattr(p, "_fields")
    return p.add() + p.one(), p.name(), ok, p._replace(second=x)._asdict()["second"]


def c_colls15_namedtuple_defaults(x):
    T = collections.namedtuple("T", ["a", "b", "c"], defaults=(None, 1, None))
    t = T(x, c=x + 2)
    return tuple(T(t.a, t[1], t.c + 1)), T._field_defaults, t._fields, type(t).__name__


class _Frozen(Mapping):
    def __init__(self, data):
        self._d = dict(data)

    def __getitem__(self, k):
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)


def c_colls15_match_mapping_and_user_mapping(x):
    out = []
    for param in ({"a": 0.5}, {"b": 2.0, "c": 1}, _Frozen({"a": 3.0})):
        match param:
            case {"a": v}:
                out.append(x * v)
            case {"b": v, **rest}:
                out.append(x / v + len(rest))
    return out


def c_colls15_match_sequence_and_class(x):
    res = []
    for point in ((0, 0), (0, 3), (4, 0), [1, 2, 3], _Pair(x, x)):
        match point:
            case _Pair(first=f, second=s):
                res.append(f + s)
            case (0, 0):
                res.append(x)
            case (0, y):
                res.append(x - y)
            case (xx, 0):
                res.append(x + xx)
            case [a, *rest]:
                res.append(x * a + len(rest))
    return res


def c_colls15_distributions_independent_log_prob(x):
    normal = torch.distributions.Normal(x, torch.tensor(1.0))
    ind = torch.distributions.Independent(normal, 1)
    return ind.log_prob(x), ind.event_shape, ind.batch_shape


def c_colls15_tuple_iadd_and_star_unpack(x):
    out = (x, x + 1)
    out += (x + 2, x + 3)
    a, *mid, d = out
    *ab, c, _ = (None,) + out + (None,)
    return a - d / mid[0], len(ab), c


def c_colls15_fstring_specs(x):
    v = 1.229
    s = f"{v:.2f}|{x.shape[0]:>4}|{x.__class__.__name__!r}|{len(x):#x}|{'ab'!s:^6}"
    return (x + 1 if s.startswith("1.23") else x), s


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
