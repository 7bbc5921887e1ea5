"""``==`` of dicts and sets the translator holds member by member: two dicts compare their keys and then
each pair of values, identity first (two OrderedDicts their order too); a set compares its members with a
set or frozenset of any subclass. Dicts holding tensors or objects, and set subclasses, compared by identity
before (``{"a": x} == {"a": x}`` and ``SetChild("ab") == {"a", "b"}`` were False: wrong answers)."""

import dataclasses
from collections import OrderedDict, defaultdict

import torch
from harness import check


class _Obj:
    pass


class _DictChild(dict):
    pass


class _SetChild(set):
    pass


class _EqAlways(dict):
    def __eq__(self, other):
        return True


@dataclasses.dataclass(eq=True)
class _OutputDict(OrderedDict):
    """A diffusers-style output: the dataclass's ``__eq__`` answers NotImplemented for a plain dict."""

    sample: object = None

    def __post_init__(self):
        self["sample"] = self.sample


class _OutputChild(_OutputDict):
    pass


def dicts_of_tensors_and_objects(x):
    o = _Obj()
    same = [{"a": x} == {"a": x}, {"a": o} == {"a": o}, {"a": o} != {"a": o}, {1: [o]} == {1: [o]},
            {"a": o} == {"b": o}, {"a": o} == {"a": _Obj()}, {"a": 1} == {"a": 1.0}]
    return x, same


def dict_subclasses_and_order(x):
    o = _Obj()
    d = _DictChild(a=o)
    same = [d == {"a": o}, {"a": o} == d, d != {"a": 2}, OrderedDict(a=o, b=1) == OrderedDict(b=1, a=o),
            OrderedDict(a=o, b=1) == {"b": 1, "a": o}, defaultdict(int, a=o) == {"a": o}, _EqAlways() == {1: o}]
    return x, same, d | {"b": 2}, {"a": 1} | {"a": o}


def set_subclasses(x):
    p = set("abc")
    same = [p == C("abc") for C in (set, frozenset, _SetChild)]
    same += [_SetChild("ab") < p, p >= _SetChild("ab"), _SetChild("ab") != frozenset("ab"),
             frozenset("abc") <= _SetChild("abcd"), _SetChild({x}) == {x}]
    return x + sum(same), same


def test_dicts_compare_values_with_identity_first():
    check(dicts_of_tensors_and_objects, torch.ones(2), graphs=None)


def test_dict_subclasses_ordered_dicts_and_or():
    check(dict_subclasses_and_order, torch.ones(2), graphs=None)


def test_set_subclasses_compare_members():
    check(set_subclasses, torch.ones(2), graphs=None)


def dataclass_dicts_against_dicts(x, handed):
    made = _OutputDict(x + 1)
    same = [handed == {"sample": handed.sample}, {"sample": handed.sample} == handed, made == {"sample": made.sample},
            made != {"other": 1}, made == _OutputDict(made.sample), _OutputDict(1) == _OutputChild(1),
            _OutputChild(2) == _OutputDict(2)]
    return made.sample * 2, same


def test_dataclass_eq_answering_not_implemented_falls_back_to_dict_equality():
    # the dataclass __eq__ gives NotImplemented for another class; dict's C __eq__ then compares the items
    check(dataclass_dicts_against_dicts, torch.ones(2), _OutputDict(torch.ones(2)))
