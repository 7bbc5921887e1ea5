"""The wrap fast path: a value of an exact type in the table gets the rule the ordered rules pick."""

from __future__ import annotations

import enum
import types

import torch

from loom_symbolic.variables import wrap_rules as builder


class _Color(enum.Enum):
    RED = 1


def _sample_values() -> list:
    def function():
        return None

    class Holder:
        def method(self):
            return None

    return [
        None, True, 3, 2.5, 1j, "s", b"b", ..., NotImplemented, range(3), slice(1, 2), frozenset({1}),
        torch.float32, torch.device("cpu"), torch.strided, torch.contiguous_format, function.__code__,
        torch.zeros(2), torch.nn.Parameter(torch.zeros(2)), [1, 2], {"a": 1}, {1, 2}, function, Holder().method,
        _Color.RED,
    ]


def _first_rule(value):
    for predicate, build in builder._RULES:
        if predicate(value):
            return build
    return builder._wrap_object


def test_exact_type_table_agrees_with_the_ordered_rules():
    covered = set()
    for value in _sample_values():
        fast = builder._RULE_FOR_EXACT_TYPE.get(type(value))
        if fast is not None:
            assert fast is _first_rule(value), type(value)
            covered.add(type(value))
    assert covered == set(builder._RULE_FOR_EXACT_TYPE), set(builder._RULE_FOR_EXACT_TYPE) - covered


def test_subclasses_still_take_the_ordered_rules():
    class MyList(list):
        pass

    assert type(MyList()) not in builder._RULE_FOR_EXACT_TYPE
    assert types.FunctionType in builder._RULE_FOR_EXACT_TYPE
