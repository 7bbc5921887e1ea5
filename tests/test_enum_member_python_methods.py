"""A method written in Python on an enum class, called on a member with a tensor among its arguments (issue 29,
CPython's test_enum in PyTorch's Dynamo suite): inlined with the member as ``self`` (one graph, as
torch.compile does), where it was a graph break per call; a method replaced on the class later recompiles."""

import enum

import torch
from breaks_harness import compare

import loom


class Op(enum.Enum):
    ADD = "+"
    MUL = "*"

    def apply(self, a, b):
        return a + b if self is Op.ADD else a * b

    @property
    def symbol(self):
        return self.value


class Scale(enum.IntEnum):
    HALF = 1
    DOUBLE = 4

    def __init__(self, value):
        self.factor = value / 2

    def of(self, t, *, shift=0):
        return t * self.factor + shift


def methods_on_members(x):
    return Op.ADD.apply(x, 2) + Op.MUL.apply(x, 3), [o.symbol for o in Op]


def method_reading_member_state(x):
    return Scale.DOUBLE.of(x, shift=1) - Scale.HALF.of(x) + Scale.DOUBLE


def member_passed_in(x, op):
    return op.apply(x, x + 1)


def test_a_python_method_of_a_member_is_inlined():
    for fn in (methods_on_members, method_reading_member_state):
        stats = compare(fn, torch.arange(3.0))
        assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), (fn.__name__, stats)
    stats = compare(member_passed_in, torch.arange(3.0), Op.MUL)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_a_method_replaced_on_the_class_recompiles():
    loom.reset()
    compiled = loom.compile(methods_on_members, backend="eager")
    x = torch.arange(3.0)
    torch.testing.assert_close(compiled(x)[0], methods_on_members(x)[0])
    original = Op.apply
    try:
        Op.apply = lambda self, a, b: a - b
        torch.testing.assert_close(compiled(x)[0], methods_on_members(x)[0])
    finally:
        Op.apply = original
    torch.testing.assert_close(compiled(x)[0], methods_on_members(x)[0])
