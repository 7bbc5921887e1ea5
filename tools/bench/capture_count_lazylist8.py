"""Lists from outside the frame that the compiled code appends to, called again with the list grown: one
graph each (before, their length was guarded and each call compiled again)."""

from __future__ import annotations

import torch


def c_ll8_append_to_argument(x, out):
    out.append(x * 2)
    return x + 1


c_ll8_append_to_argument.extra_args = lambda: ([],)
c_ll8_append_to_argument.calls = 10


class _Keeper(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.kept = []

    def forward(self, x):
        y = x.relu()
        self.kept.append(y)
        self.kept.extend([y.sum(), "step"])
        return y * 2


def c_ll8_module_keeps_activations(x, keeper):
    return keeper(x)


c_ll8_module_keeps_activations.extra_args = lambda: (_Keeper(),)
c_ll8_module_keeps_activations.calls = 10


_LOG = []


def c_ll8_append_to_global(x):
    _LOG.append(x.cos())
    return x - 1, len(_LOG) > 0  # the length read: guarded, each call compiles again (as before)


def c_ll8_append_then_break(x, out):
    out.append(x + 1)
    print("", end="")  # a graph break: both appends keep their order
    out.append(x + 2)
    return x


c_ll8_append_then_break.extra_args = lambda: ([],)
c_ll8_append_then_break.calls = 4

CONSTRUCTS = [c_ll8_append_to_argument, c_ll8_module_keeps_activations, c_ll8_append_to_global,
              c_ll8_append_then_break]
