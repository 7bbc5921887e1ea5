"""The first call of a lazy module whose inputs are lists, tuples, named tuples or dicts of tensors.

A ``LazyModuleMixin`` layer sizing its parameter from ``inputs[0].shape`` (a list of tensors) was a graph
break ("an input is list of 3, not a tensor or a constant"): parameter inference now runs on stand-ins of
the same structure, each tensor a zero tensor of the input's shape, dtype and device."""

import typing

import torch
from torch import nn
from torch.nn.modules.lazy import LazyModuleMixin

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _counts():
    stats = loom.stats()
    return stats["graphs"], stats["graph_breaks"]


class SumOfList(LazyModuleMixin, nn.Module):
    def initialize_parameters(self, inputs):
        with torch.no_grad():
            self.weight = nn.Parameter(torch.empty(inputs[0].shape).fill_(0.5))

    def forward(self, inputs):
        total = 0
        for item in inputs:
            total = total + item
        return total * self.weight


class Packed(typing.NamedTuple):
    parts: dict
    bias: torch.Tensor


class FromPacked(LazyModuleMixin, nn.Module):
    def initialize_parameters(self, packed, scale=None):
        with torch.no_grad():
            self.weight = nn.Parameter(torch.empty(packed.parts["a"][1].shape).fill_(0.25))

    def forward(self, packed, scale=None):
        return (sum(packed.parts["a"]) + packed.bias) * self.weight * scale[0]


def first_calls(x, lazy_list, lazy_packed):
    y = lazy_list([x, x * 2, x + 1]) - 1
    z = lazy_packed(Packed(parts={"a": (x, x * 3)}, bias=x - 1), scale=[x.sum()])
    return y, z


def test_lazy_layers_with_container_inputs_are_materialised_in_one_graph():
    x = torch.arange(3.0)
    expected = first_calls(x, SumOfList(), FromPacked())
    lazy_list, lazy_packed = SumOfList(), FromPacked()
    actual = _compiled(first_calls)(x, lazy_list, lazy_packed)
    torch.testing.assert_close(actual, expected)
    assert _counts() == (1, 0)
    assert lazy_list.weight.shape == lazy_packed.weight.shape == (3,)
    assert not lazy_list.has_uninitialized_params()
