"""Part of ``capture_count_repros11``: ``torch.compile`` wrappers reached from the traced frame in more shapes
(made in a loop, kept in containers, decorating methods, compiling a bound forward), classmethod properties
over class attributes the frame sets, and op overloads as table keys, after PyTorch's
test/dynamo/_repros_part3.py (``test_torch_compile_in_compile_frame``, issue 134451, selective checkpointing).
"""

from __future__ import annotations

import functools

import torch
from torch import nn


def _double(t):
    return t * 2


def c_repros11_compiled_made_in_loop(x):
    out = x
    for k in range(3):
        out = torch.compile(_double, backend="eager")(out) + k
    return out


_TABLE = {"double": torch.compile(_double, backend="eager"), "neg": torch.compile(torch.neg, backend="eager")}


def c_repros11_compiled_kept_in_dict(x):
    return _TABLE["double"](x) + _TABLE["neg"](x), sorted(_TABLE)


class _WithCompiledMethod:
    def __init__(self, k):
        self.k = k

    @torch.compile(backend="eager")
    def scale(self, t):
        return t * self.k


def c_repros11_compiled_method_decorator(x):
    obj = _WithCompiledMethod(3)
    return obj.scale(x) + _WithCompiledMethod(2).scale(x)


class _Affine(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("w", torch.tensor([1.0, 2.0, 3.0]))

    def forward(self, t):
        return t * self.w + 1


_AFFINE = _Affine()


def c_repros11_compile_of_bound_forward(x):
    fast = torch.compile(_AFFINE.forward, backend="eager")
    return fast(x), functools.partial(fast, x)()


class _Cfg:
    _scale = 3

    @classmethod
    @property
    def scale(cls):
        return cls._scale * 2


def c_repros11_classmethod_property_after_class_store(x):
    before = _Cfg.scale
    _Cfg._scale = 5
    after = _Cfg.scale
    _Cfg._scale = 3
    return x * before + after, _Cfg.scale


def c_repros11_overloads_as_table_keys(x):
    table = {torch.ops.aten.add.Tensor: lambda a, b: a - b, torch.ops.aten.mul.Tensor: lambda a, b: a * b}
    ops = [torch.ops.aten.add.Tensor, torch.ops.aten.mul.Tensor]
    return [table[op](x, x + 1) for op in ops], torch.ops.aten.add.Tensor in table


def c_repros11_overload_name_method(x):
    op = torch.ops.aten.sin.default
    return op(x), op.name(), op.overloadpacket.__name__



def c_repros11_compiled_wrapper_attributes(x):
    made = torch.compile(_double, backend="eager")
    module = torch.compile(_AFFINE, backend="eager")
    return (made(x), made.__name__, made.__wrapped__ is _double, made._torchdynamo_orig_callable is _double,
            module._orig_mod is _AFFINE, module.training)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
