"""A standard-library class decorator run on a class the trace made, raising a builtin error (issue 29, CPython's
test_enum in PyTorch's Dynamo suite: ``@enum.unique`` over duplicate values; a dataclass field order
``dataclass`` refuses): the error is the program's, with eager's message, so a handler catching it stays
in the graph, where it was a break."""

import dataclasses
import enum

import torch
from breaks_harness import compare


def unique_refuses_duplicates(x):
    try:
        @enum.unique
        class Dup(enum.Enum):
            A = 1
            B = 1
    except ValueError as e:
        return x + 1, str(e)
    return x, None


def dataclass_refuses_field_order(x):
    try:
        @dataclasses.dataclass
        class Bad:
            a: int = 1
            b: int
    except TypeError as e:
        return x * 2, str(e)
    return x, None


def test_a_class_decorators_builtin_error_is_caught_in_the_graph():
    for fn in (unique_refuses_duplicates, dataclass_refuses_field_order):
        stats = compare(fn, torch.arange(3.0))
        assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), (fn.__name__, stats)
