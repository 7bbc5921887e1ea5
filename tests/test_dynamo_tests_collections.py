"""Issue 29's dict, list and set constructs (from PyTorch's test_dicts.py, test_list.py, test_sets.py),
end to end through ``loom.compile``: each behaves as in eager and is captured in one graph without a
break (several were wrong answers, the others graph breaks). The translator's own tests cover each rule
(``packages/symbolic/tests/test_container_*.py`` and neighbours)."""

from __future__ import annotations

import functools

import pytest
import torch
from breaks_harness import BreakCases, compare

import loom

CASES = BreakCases()
case = CASES


class _DotDict(dict):
    __getattr__ = dict.get
    __setattr__ = dict.__setitem__
    __delattr__ = dict.__delitem__


class _Bag(set):
    pass


class _Frozen(frozenset):
    pass


class _Pair(tuple):
    def __new__(cls, items, extra=None):
        self = super().__new__(cls, items)
        self.extra = extra
        return self

    def total(self):
        return sum(self) + self.extra


class _Plain(tuple):
    pass


class _Counted(tuple):
    def __len__(self):
        return 99


class _Row(list):
    def __new__(cls, items, extra=None):
        self = super().__new__(cls)
        self.extra = extra
        return self

    def __init__(self, items, extra=None):
        super().__init__(items)


@case(torch.ones(3), graphs=1, breaks=0)
def dotdict_config(x):
    cfg = _DotDict(a=2, b=5)
    cfg.c = 4
    del cfg.b
    return x * cfg.a * cfg.c, cfg.missing, dict(cfg)


@case(torch.ones(3), graphs=1, breaks=0)
def dicts_and_sets_compare_members(x):
    return x + 1, {"a": x} == {"a": x}, _Bag("ab") == {"a", "b"}, frozenset("a") < _Bag("ab")


@case(torch.ones(3), graphs=1, breaks=0)
def sort_sees_an_empty_list(x):
    lst = [3, 1, 2]
    sizes = []
    lst.sort(key=lambda v: sizes.append(len(lst)) or v)
    return x + sum(sizes), lst


@case(torch.ones(3), graphs=1, breaks=0)
def dunders_and_new(x):
    p = list("ab")
    row = _Row([1, 2], extra=3)
    q = p.__add__(["c"])
    p.__iadd__("d")
    return x + row.extra + sum(row), q, p, set.__or__({1}, {2}), list.__new__(list), str(_message())


@case(torch.ones(3), graphs=1, breaks=0)
def frozenset_subclass_hash(x):
    p = _Frozen("abc")
    return x + len(p), hash(p) == hash(frozenset("abc")), hash(_Frozen()) == hash(frozenset()), p == {"a", "b", "c"}


@case(torch.ones(3), graphs=1, breaks=0)
def tuple_subclass_with_new(x):
    t = _Pair([1, 2], extra=5)
    u = _Pair((3,))
    return (x + t.extra + sum(t), t, t.extra, vars(t), t.total(), tuple(t), t[:1], type(t) is _Pair, t == (1, 2),
            hash(t) == hash((1, 2)), isinstance(u, tuple), u is not t, len(u), list(u))


@case(torch.ones(3), graphs=1, breaks=0)
def tuple_subclass_of_tensors_leaves_the_graph(x):
    t = _Pair([x, x * 2], extra=x)
    t.extra = t.extra + 1
    return t, t.extra, vars(t), t.total()


@case(torch.ones(3), graphs=1, breaks=0)
def tuple_subclass_plain(x):
    p = _Plain([4, 5])
    return x + p[0] + len(p), p, _Plain(), type(p + (6,)).__name__


def tuple_subclass_arguments_raise(x):
    return x + len(_Plain(1, 2))


def tuple_subclass_with_len_runs_its_len(x):
    c = _Counted([1, 2])
    return x + len(c), c, list(c)


def _message():
    try:
        [].count()
    except TypeError as e:
        return e
    return None


@pytest.mark.parametrize("fn", [tuple_subclass_arguments_raise, tuple_subclass_with_len_runs_its_len])
def test_tuple_subclasses_the_translator_leaves_behave_as_in_eager(fn):
    compare(fn, torch.ones(3))


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs", "breaks"), CASES)
def test_collection_programs_behave_as_in_eager(fn, args, kwargs, graphs, breaks):
    stats = compare(fn, *args, **kwargs)
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats


_LOOKUP = dict.get


def _looked_up(x):
    return x * _LOOKUP({"a": 2}, "a", 3)


def test_a_dict_method_held_in_a_global_is_guarded():
    global _LOOKUP
    loom.reset()
    compiled = loom.compile(_looked_up, backend="eager")
    try:
        assert torch.equal(compiled(torch.ones(2)), torch.full((2,), 2.0))
        _LOOKUP = functools.partial(lambda d, k, default: default)  # another callable: the guard fails
        assert torch.equal(compiled(torch.ones(2)), torch.full((2,), 3.0))
    finally:
        _LOOKUP = dict.get
