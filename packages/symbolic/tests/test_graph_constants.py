"""An enum member FX cannot name in a graph's code (``Flag.A | Flag.B``, named ``A|B``) is recorded as its number
(issue 29, after Paddle's SOT test_enum): the graph's code read ``l_x + Flag.A|B`` and raised NameError when the
graph ran. Named members stay as they are."""

import enum

import pytest
import torch
from harness import check

from loom_symbolic.errors import Unsupported
from loom_symbolic.graph_constants import spellable_constants


class _Flag(enum.IntFlag):
    A = 1
    B = 2


class _Color(enum.IntEnum):
    RED = 1


class _Plain(enum.Flag):
    X = 1
    Y = 2


def combined_flags_in_tensor_ops(x):
    both = _Flag.A | _Flag.B
    return x + both, x * _Color.RED, torch.full((2,), both), x.new_zeros(_Flag.B), x.reshape((both,))


def test_combined_int_flags_in_tensor_ops_are_one_graph():
    check(combined_flags_in_tensor_ops, torch.ones(3))


def test_spellable_constants_keeps_named_members_and_numbers_the_rest():
    args, kwargs = spellable_constants((_Color.RED, (_Flag.A | _Flag.B, [_Flag.A])), {"k": _Flag.B | _Flag.A})
    assert args[0] is _Color.RED and args[1][1][0] is _Flag.A
    assert type(args[1][0]) is int and args[1][0] == 3 and type(kwargs["k"]) is int
    with pytest.raises(Unsupported):
        spellable_constants((_Plain.X | _Plain.Y,), {})
