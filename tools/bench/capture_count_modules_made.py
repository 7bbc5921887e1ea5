"""Modules that change while they run, and more module reads, for ``capture_count.py --only modules`` (see ``capture_count_modules.py``),
in the spirit of Dynamo's test_modules.py, written afresh: parameters made and registered in the compiled
function, lazy modules on their first call (torch's and one of the user's), hooks registered, used and
removed in the frame, layers frozen with ``requires_grad_``, ``requires_grad`` read from parameters, a dtype
taken from ``next(self.parameters())``, a shared activation in a ``Sequential``, attribute precedence, ``hasattr`` on
parameters, ``forward`` called directly with a counter, and a ``ModuleDict``'s values enumerated.

Modules a construct mutates are made afresh for each run (``extra_args``), with torch's RNG seeded by the runner.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.modules.lazy import LazyModuleMixin


# -- parameters made in the compiled function ------------------------------------------------------------
def c_parameter_no_grad_made_inside(x):
    p = nn.Parameter(torch.zeros(3) + 4, requires_grad=False)
    return x * p, p.requires_grad, type(p).__name__


class _GrowsBias(nn.Module):
    def forward(self, x):
        if self._parameters.get("shift") is None:
            self.register_parameter("shift", nn.Parameter(torch.full((3,), 0.25)))
        return x + self.shift, len(list(self.parameters()))


def c_register_parameter_in_forward(x, m):
    return m(x)


c_register_parameter_in_forward.extra_args = lambda: (_GrowsBias(),)


def c_module_list_made_inside_iterated(x):
    layers = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])
    for layer in layers:
        x = torch.tanh(layer(x))
    return x, sum(p.numel() for p in layers.parameters())


# -- lazy modules on their first call ----------------------------------------------------------------------
class _LazyMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.LazyLinear(4)
        self.fc2 = nn.LazyLinear(2)

    def forward(self, x):
        return F.relu(self.fc2(F.relu(self.fc1(x))))


def c_lazy_mlp_first_call(x, m):
    return m(x), [tuple(p.shape) for p in m.parameters()]


c_lazy_mlp_first_call.extra_args = lambda: (_LazyMLP(),)


class _LazyOffset(LazyModuleMixin, nn.Module):
    """A lazy module of the user's with no ``cls_to_become``: it stays itself after the first call."""

    def initialize_parameters(self, x):
        self.offset = nn.Parameter(torch.ones(x.shape[-1]) * 0.5)

    def forward(self, x):
        return x.cos() + self.offset


def c_user_lazy_module_first_call(x, m):
    return m(x), type(m).__name__


c_user_lazy_module_first_call.extra_args = lambda: (_LazyOffset(),)


# -- hooks registered in the compiled function ------------------------------------------------------------
class _Counted(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.lin = nn.Linear(3, 3)
        self.calls = 0

    def forward(self, x):
        return self.lin(x)


def c_counting_hook_registered_inside(x, m):
    def count(module, args, out):
        m.calls += 1
    handle = m.lin.register_forward_hook(count)
    y = m(x) + m(x)
    handle.remove()
    return y, m.calls, len(m.lin._forward_hooks)


c_counting_hook_registered_inside.extra_args = lambda: (_Counted(),)


def c_prepended_pre_hooks(x, m):
    m.lin.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    m.lin.register_forward_pre_hook(lambda mod, args: (args[0] + 1,), prepend=True)
    return m(x)


c_prepended_pre_hooks.extra_args = lambda: (_Counted(),)


def c_hook_handle_as_with_block(x, m):
    with m.lin.register_forward_hook(lambda mod, args, out: out.neg()):
        inside = m(x)
    return inside + m(x)


c_hook_handle_as_with_block.extra_args = lambda: (_Counted(),)


# -- requires_grad in forward -------------------------------------------------------------------------------
class _HalfFrozen(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.backbone = nn.Linear(3, 3)
        self.head = nn.Linear(3, 1)

    def forward(self, x):
        self.backbone.requires_grad_(False)
        features = self.backbone(x)
        trainable = [name for name, p in self.named_parameters() if p.requires_grad]
        return self.head(features), features.requires_grad, trainable


def c_freeze_backbone_in_forward(x, m):
    return m(x)


c_freeze_backbone_in_forward.extra_args = lambda: (_HalfFrozen(),)


def _any_requires_grad(module):
    return any(p.requires_grad for p in module.parameters(recurse=False))


class _GradBranch(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.lin = nn.Linear(3, 3)
        self.scale = nn.Parameter(torch.full((3,), 2.0))

    def forward(self, x):
        ones = torch.ones(3, dtype=next(self.parameters()).dtype)
        if _any_requires_grad(self):
            return self.lin(x) * self.scale + ones
        return x + 1


_GRAD_BRANCH = _GradBranch()


def c_requires_grad_branch_and_param_dtype(x):
    return _GRAD_BRANCH(x)


# -- containers and attributes -------------------------------------------------------------------------------
class _SharedAct(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.act = nn.Tanh()
        self.body = nn.Sequential(nn.Linear(3, 4), self.act, nn.Linear(4, 3), self.act)

    def forward(self, x):
        return self.body(x), len(list(self.modules())), len(self.body)


_SHARED_ACT = _SharedAct()


def c_sequential_with_shared_activation(x):
    return _SHARED_ACT(x)


class _PrecedenceBase(nn.Module):
    def proj(self, x):
        return x * 3.0


class _Precedence(_PrecedenceBase):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.proj = nn.Linear(3, 3)  # a submodule wins over the base class's method
        self.offset = torch.ones(3)
        self.gain = 0.5

    def gain_fn(self):
        return 2.0

    def forward(self, x):
        return self.proj(x + self.offset) * self.gain


_PRECEDENCE = _Precedence()


def c_module_attribute_precedence(x):
    return _PRECEDENCE(x)



# -- more module reads ----------------------------------------------------------------------------------------
class _Optional(nn.Module):
    def __init__(self):
        super().__init__()
        self.gain = nn.Parameter(torch.full((3,), 1.5))

    def forward(self, x):
        if hasattr(self, "gain"):
            x = x * self.gain
        if hasattr(self, "missing_gain"):
            x = x * self.missing_gain
        return x


_OPTIONAL = _Optional()


def c_hasattr_on_parameters(x):
    return _OPTIONAL(x)


class _Ticks(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv1d(1, 2, 2)
        self.ticks = 0

    def forward(self, x):
        out = self.conv.forward(x.view(1, 1, -1)) + self.ticks  # forward called directly: no hooks
        self.ticks += 1
        return F.relu(out)


def c_direct_forward_and_counter(x, m):
    return m(x), m(x), m.ticks


c_direct_forward_and_counter.extra_args = lambda: (_Ticks(),)


class _Chain(nn.ModuleDict):
    def __init__(self):
        super().__init__()
        for i in range(3):
            self.add_module(f"step{i}", nn.Tanh() if i % 2 else nn.Sigmoid())

    def forward(self, x):
        outs = [x]
        for i, layer in enumerate(self.values()):
            outs.append(layer(outs[-1]) * (i + 1))
        return torch.stack(outs), list(self.keys())


_CHAIN = _Chain()


def c_moduledict_values_enumerated(x):
    return _CHAIN(x)


CONSTRUCTS = [c_parameter_no_grad_made_inside, c_register_parameter_in_forward, c_module_list_made_inside_iterated,
              c_lazy_mlp_first_call, c_user_lazy_module_first_call, c_counting_hook_registered_inside,
              c_prepended_pre_hooks, c_hook_handle_as_with_block, c_freeze_backbone_in_forward,
              c_requires_grad_branch_and_param_dtype, c_sequential_with_shared_activation, c_module_attribute_precedence,
              c_hasattr_on_parameters, c_direct_forward_and_counter, c_moduledict_values_enumerated]
