"""Module programs after Paddle's SOT test_17_paddle_layer, test_segment_linear and test_model_switch_training
for ``capture_count.py --only paddle12``: containers of modules walked in the frame (ModuleDict, ParameterList,
named_modules / named_parameters / buffers), modules switched between train and eval inside the frame, and
layers chained by a Python loop over segments.
"""

from __future__ import annotations

import torch
from torch import nn


def _fill(m):
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) / (i + 1))
    return m


class _Segments(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleDict({"a": nn.Linear(3, 3), "b": nn.Linear(3, 3)})
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(3)), nn.Parameter(torch.full((3,), 2.0))])
        self.register_buffer("offset", torch.arange(3.0))

    def forward(self, v):
        for (name, block), scale in zip(self.blocks.items(), self.scales):
            v = block(v) * scale + (1 if name == "a" else 0)
        return v + self.offset


def c_p12l_moduledict_and_parameterlist(x, m):
    return m(x), list(m.blocks.keys()), len(m.scales)


c_p12l_moduledict_and_parameterlist.extra_args = lambda: (_fill(_Segments()),)


def c_p12l_named_walks(x, m):
    names = [n for n, _ in m.named_modules()]
    total = x
    for n, p in m.named_parameters():
        if n.endswith("bias"):
            total = total + p
    bufs = [b.sum() for b in m.buffers()]
    return total, names, bufs


c_p12l_named_walks.extra_args = lambda: (_fill(_Segments()),)


class _Drop(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.drop = nn.Dropout(0.5)

    def forward(self, v):
        return self.drop(self.lin(v)), self.training, self.drop.training


def c_p12l_eval_switched_inside(x, m):
    m.eval()
    a = m(x)
    m.train(False)
    b = m(x * 2)
    return a, b, m.training


c_p12l_eval_switched_inside.extra_args = lambda: (_fill(_Drop()),)


class _Piecewise(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(3, 3) for _ in range(n))
        self.cuts = [0, 2, n]

    def forward(self, v):
        outs = []
        for lo, hi in zip(self.cuts[:-1], self.cuts[1:]):
            for layer in self.layers[lo:hi]:
                v = torch.tanh(layer(v))
            outs.append(v)
        return torch.cat(outs, dim=-1)


def c_p12l_segments_by_modulelist_slices(x, m):
    return m(x.reshape(1, 3))


c_p12l_segments_by_modulelist_slices.extra_args = lambda: (_fill(_Piecewise(4)),)


def c_p12l_sequential_indexing_and_len(x):
    seq = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid())
    out = x - 1
    for i in range(len(seq) - 1, -1, -1):
        out = seq[i](out)
    return out, type(seq[-1]).__name__, len(seq[1:])


def c_p12l_module_attribute_set_in_forward(x, m):
    m.cache = x * 2
    m.calls = getattr(m, "calls", 0) + 1
    return m.lin(m.cache), m.calls


c_p12l_module_attribute_set_in_forward.extra_args = lambda: (_fill(_Drop()),)


def c_p12l_children_types_and_isinstance(x, m):
    kinds = [type(c).__name__ for c in m.children()]
    lin = [c for c in m.modules() if isinstance(c, nn.Linear)]
    return x + len(lin), kinds, lin[0].in_features, lin[0].weight.shape


c_p12l_children_types_and_isinstance.extra_args = lambda: (_fill(_Segments()),)


def c_p12l_functional_with_module_weights(x, m):
    w, b = m.lin.weight, m.lin.bias
    return torch.nn.functional.linear(x, w * 2, b), torch.nn.functional.linear(x, w)


c_p12l_functional_with_module_weights.extra_args = lambda: (_fill(_Drop()),)


def c_p12l_parameter_requires_grad_flags(x, m):
    flags = {n: p.requires_grad for n, p in m.named_parameters()}
    count = sum(p.numel() for p in m.parameters() if p.requires_grad)
    return x + count, flags


c_p12l_parameter_requires_grad_flags.extra_args = lambda: (_fill(_Segments()),)


def c_p12l_state_dict_keys(x, m):
    keys = list(m.state_dict().keys())
    return x + len(keys), keys


c_p12l_state_dict_keys.extra_args = lambda: (_fill(_Segments()),)


def c_p12l_get_submodule_and_parameter(x, m):
    lin = m.get_submodule("blocks.a")
    p = m.get_parameter("blocks.b.bias")
    return lin(x) + p, m.get_buffer("offset")


c_p12l_get_submodule_and_parameter.extra_args = lambda: (_fill(_Segments()),)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
