"""``d.keys().mapping`` is a live read-only proxy of ``d``; ``==``/``!=`` between builtin kinds whose C methods
both decline (a set or a frozenset subclass against a dict, a str, a list or a number) fall back to identity;
``tuple.__new__(tuple, ..., key=...)`` raises CPython's TypeError. All in one graph."""

import types

import pytest
import torch
from harness import check

X = torch.arange(3.0)


class _Frozen(frozenset):
    pass


def view_mapping_is_live(x):
    d = {"a": 1, "b": 2}
    keys_map = d.keys().mapping
    items_map = d.items().mapping
    d["c"] = 3
    y = torch.sin(x)
    if isinstance(keys_map, types.MappingProxyType) and keys_map == d:
        y = y + 1
    return y, dict(keys_map), items_map["c"], len(d.values().mapping), "c" in keys_map


def equality_across_kinds(x):
    p = _Frozen("abc")
    eq = [p == k("abc") for k in (set, frozenset)]
    ne = [p != k("abe") for k in (set, dict.fromkeys, str, list, tuple)]
    return x + sum(eq) + sum(ne), eq, ne, {1} == {1: 2}, {1} != 1, [1] == "a", p != 1.5


def tuple_new_keywords(x):
    t = tuple.__new__(tuple, [1, 2])
    try:
        tuple.__new__(tuple, [1, 2], extra=1)
    except TypeError as e:
        return x + len(t), t, str(e)
    return x


@pytest.mark.parametrize("fn", [view_mapping_is_live, equality_across_kinds, tuple_new_keywords])
def test_view_mapping_and_kinds(fn):
    check(fn, X)
