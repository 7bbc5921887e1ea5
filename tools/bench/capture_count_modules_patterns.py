"""More nn.Module patterns for ``capture_count.py --only modules`` (see ``capture_count_modules.py``), in the
spirit of Dynamo's test_modules.py, written afresh: a static ``forward``, a function stored as a module
attribute, a plain list of modules, a module with its own ``__getitem__``/``__len__``, nested ``ModuleList``
unpacking, a ``ModuleDict`` subclass filled by ``add_module``, tuples of tensors and config objects held by a
module, ``None`` layers, lazy modules, ``ParameterDict`` behind ``__getitem__`` and reversed containers.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class _StaticForward(nn.Module):
    @staticmethod
    def forward(x):
        return x * torch.sigmoid(x)


class _Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = _StaticForward()
        self.act = F.relu  # a function, not a module
        self.none_layer = None
        self.lin = nn.Linear(3, 3)
        self.consts = (torch.ones(3), torch.full((3,), 2.0))
        self.mode = "scaled"

    def forward(self, x):
        x = self.inner(self.lin(x))
        if self.act:
            x = self.act(x)
        if self.none_layer is not None:
            x = self.none_layer(x)
        for c in self.consts:
            x = x * c
        return x * 2 if self.mode == "scaled" else x


_HOLDER = _Holder()


def c_static_forward_fn_member_none_layer(x):
    return _HOLDER(x)


class _PlainList(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(3, 3), nn.ReLU()]  # not registered: a plain list
        self.pairs = nn.ModuleList(nn.ModuleList([nn.Linear(3, 3), nn.Tanh()]) for _ in range(2))

    def __getitem__(self, idx):
        return self.pairs[idx]

    def __len__(self):
        return len(self.pairs)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        for lin, act in self.pairs:
            x = act(lin(x))
        for i in range(len(self)):
            x = self[i][0](x)
        for idx, pair in enumerate(self.pairs[::-1]):
            x = pair[1](x) * idx
        return x


_PLAIN = _PlainList()


def c_plain_list_custom_getitem_nested(x):
    return _PLAIN(x)


class _Dense(nn.ModuleDict):
    def __init__(self):
        super().__init__()
        for i in range(3):
            self.add_module(f"layer{i}", nn.Linear(3 * (i + 1), 3))

    def forward(self, x):
        feats = [x]
        for layer in self.values():
            feats.append(layer(torch.cat(feats, -1)))
        return torch.cat(feats, -1)


_DENSE = _Dense()


def c_moduledict_subclass_add_module(x):
    return _DENSE(x)


class _Params(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.ParameterDict({"w": nn.Parameter(torch.full((3,), 3.0))})

    def __getitem__(self, key):
        return self.table[key]

    def forward(self, x):
        return x * self["w"] + len(self.table)


_PARAMS = _Params()


def c_parameterdict_behind_getitem(x):
    return _PARAMS(x)


def c_lazy_linear_first_call(x, m):
    return m(x), m.weight.shape


c_lazy_linear_first_call.extra_args = lambda: (nn.LazyLinear(2),)


def c_module_method_passing_module(x):
    def call_and_scale(mod, t):
        return mod(t) * 2
    return call_and_scale(_HOLDER.lin, x) + call_and_scale(_HOLDER.inner, x)


class _Cfg:
    def __init__(self):
        self.count = 2
        self.shift = 0.5


class _Configured(nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = _Cfg()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        for _ in range(self.cfg.count):
            x = self.lin(x + self.cfg.shift)
        return x


def c_config_object_member_mutated(x, m):
    y = m(x)
    m.cfg.count = 1
    return y + m(x), m.cfg.count


c_config_object_member_mutated.extra_args = lambda: (_Configured(),)


def c_module_type_checks_and_names(x):
    out = x
    for name, mod in _PLAIN.named_modules():
        if type(mod) is nn.Linear:
            out = out + mod.weight.sum() * 0 + len(name)
        elif isinstance(mod, (nn.Tanh, nn.ReLU)):
            out = out + 1
    return out, _PLAIN.__class__.__name__, isinstance(_PLAIN.pairs, nn.ModuleList)


def c_get_submodule_parameter(x):
    lin = _PLAIN.get_submodule("pairs.1.0")
    w = _PLAIN.get_parameter("pairs.0.0.bias")
    return lin(x) + w


CONSTRUCTS = [c_static_forward_fn_member_none_layer, c_plain_list_custom_getitem_nested,
              c_moduledict_subclass_add_module, c_parameterdict_behind_getitem, c_lazy_linear_first_call,
              c_module_method_passing_module, c_config_object_member_mutated, c_module_type_checks_and_names,
              c_get_submodule_parameter]
