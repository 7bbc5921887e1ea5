"""An operator whose Python special methods all answer NotImplemented raises CPython's TypeError in the trace
(a ``dataclass(order=True)`` compared with another class, an ``__add__`` declining a foreign operand, a
reflection declining too): the declined methods count as absent when the error is worded. Was a break."""

import dataclasses
import operator

import torch
from harness import check


@dataclasses.dataclass(order=True)
class _Ranked:
    rank: int


@dataclasses.dataclass(frozen=True)
class _Key:
    layer: int


class _Picky:
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        return _Picky(self.v + other.v) if isinstance(other, _Picky) else NotImplemented


class _Declines:
    def __radd__(self, other):
        return NotImplemented


def declined_everywhere(x):
    messages = []
    pairs = ((_Ranked(1), _Key(1)), (_Key(1), _Ranked(1)), (_Ranked(1), 3), (_Picky(1), _Declines()), (_Picky(1), 2))
    for left, right in pairs:
        for op in (operator.lt, operator.add, operator.ge):
            try:
                op(left, right)
                messages.append("answered")
            except TypeError as exc:
                messages.append(str(exc))
    return x + 1, messages, (_Picky(1) + _Picky(2)).v, _Ranked(1) < _Ranked(2)


def test_declined_operators_raise_type_error():
    check(declined_everywhere, torch.arange(3.0))
