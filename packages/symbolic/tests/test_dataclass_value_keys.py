"""Frozen dataclass instances made while tracing as dict keys and set members: hashed and compared by
their fields, as the ``__eq__``/``__hash__`` dataclasses writes do (issue 29, PyTorch test_misc's
``d[dc] = 2`` on a frozen dataclass: a graph break that left the whole frame uncompiled)."""

import dataclasses

import pytest
import torch
from harness import CaseRegistry, check

from loom_symbolic import translate_function

CASES = CaseRegistry(default_graphs=1)
case = CASES

X = torch.ones(3)


@dataclasses.dataclass(frozen=True)
class Point:
    x: float
    y: float
    label: str = dataclasses.field(default="p", compare=False)


@dataclasses.dataclass(frozen=True)
class Segment:
    start: Point
    length: int


@dataclasses.dataclass(frozen=True)
class Custom:
    x: int

    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0


@dataclasses.dataclass(frozen=True)
class HoldsTensor:
    t: torch.Tensor


@dataclasses.dataclass
class Mutable:
    x: int


@case(X)
def an_equal_instance_finds_the_entry(x):
    d = {Point(1.0, 2.0): 10}
    d[Point(1.0, 2.0, label="other")] += 1  # label does not take part in ==
    return x + d[Point(1.0, 2.0)], len(d), Point(2.0, 1.0) in d


@case(X)
def keys_are_the_very_objects(x):
    p = Point(1.5, 2.5)
    d = {p: x}
    (k,) = d
    return k is p, k.x + x, d


@case(X)
def nested_dataclasses_compare_by_value(x):
    s = {Segment(Point(0.0, 1.0), 3), Segment(Point(0.0, 1.0), 3), Segment(Point(0.0, 2.0), 3)}
    return x * len(s), Segment(Point(0.0, 2.0), 3) in s


@case(X)
def a_mutable_dataclass_is_unhashable(x):
    try:
        {Mutable(1): 1}
    except TypeError as exc:
        return x + 1, str(exc)
    return x


class HashesOddly:
    def __init__(self, value):
        self.value = value

    def __hash__(self):
        return self.value


@case(X)
def hash_runs_the_generated_hash(x):
    p = Point(1.0, 2.0)
    return x + 1, hash(p) == hash(Point(1.0, 2.0, "q")), hash(Segment(p, 3)), hash((p, "a", 1))


@case(X)
def hash_makes_of_the_int_what_cpython_does(x):
    return x + 1, [hash(HashesOddly(v)) for v in (-1, 5, 2 ** 62, 2 ** 64 + 5, -(2 ** 70), True)]


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_frozen_dataclass_key(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)


@case(X)
def custom_equality_key_runs_its_own_hash_and_eq(x):
    # a __hash__ and __eq__ written in Python, free of effects: traced (see variables/user_hash_keys.py)
    d = {Custom(1): 1}
    return x + d[Custom(2)], len({Custom(1), Custom(2)})


def tensor_field_key(x):
    d = {HoldsTensor(x): 1}
    return x + len(d)


@pytest.mark.parametrize("fn", [tensor_field_key])
def test_keys_not_hashed_by_constant_fields_still_break(fn):
    translation = translate_function(fn, X)
    assert translation.breaks and "dict key" in str(translation.breaks[0])
