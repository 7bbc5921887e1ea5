"""Custom autograd Functions modelled on PyTorch's test/dynamo/test_autograd_function.py, for ``capture_count.py
--only dynamo_tests_hops4``: what ``forward`` returns beyond tensors (a list, a dataclass or plain object, nested
containers, an input twice, a tensor twice) and the lists and dicts it fills (``z.append(out)``, lists in a tuple,
and modules passed in a list, the reformer of test_repros.py). Its parts: ``_args`` (keyword arguments to
``apply``, bound as ``apply`` binds them; ``setup_context`` with defaults and ``*args``; ``custom_fwd``/
``custom_bwd``; classmethod and instance ``apply``; ``mark_dirty`` with its output dropped; ``out=`` inside
``forward``, which runs under no_grad; RNG draws inside ``forward``; test_smoke_from_test_autograd's pieces) and
``_func`` (the ``torch.func`` forms: ``vmap`` of in-place methods and of Functions). Each is written afresh over
one tensor; where gradients matter the program returns the ``requires_grad`` flags, and
tests/test_autograd_function_outputs.py runs the backward.
"""

from __future__ import annotations

import dataclasses

import torch
from torch import nn


def _leaf(x):
    return x.clone().requires_grad_()


# -- what forward returns -------------------------------------------------------------------------------------
class _ReturnsList(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 2, [1, 2, 3]

    @staticmethod
    def backward(ctx, g, _unused):
        return g * 2


def c_h4_fn_returns_constant_list(x):
    out, items = _ReturnsList.apply(_leaf(x))
    return out.detach(), items, out.requires_grad, len(items)


class _Box:
    def __init__(self, a, b):
        self.a = a
        self.b = b


class _ReturnsBox(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, u):
        a = torch.sin(t)
        b = torch.cos(u)
        ctx.save_for_backward(a)
        return _Box(a, b), t * u

    @staticmethod
    def backward(ctx, g_box, g):
        (a,) = ctx.saved_tensors
        return g * 2, a * g * 3


def c_h4_fn_returns_plain_object(x):
    z = _ReturnsBox.apply(_leaf(x), x + 1)
    return (z[0].a + z[0].b + z[1]).detach(), z[0].a.requires_grad, z[1].requires_grad, isinstance(z[0], _Box)


@dataclasses.dataclass
class _Results:
    first: torch.Tensor
    second: torch.Tensor


class _ReturnsDataclass(torch.autograd.Function):
    @staticmethod
    def forward(ctx, module, count, t):
        scaled = module.a + module.b * count * t
        return scaled + t, _Results(first=scaled + count, second=scaled * (count + 1))

    @staticmethod
    def backward(ctx, g, _results):
        return None, None, g * 2


class _Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = 4
        self.b = torch.linspace(0.0, 1.0, 3)


_HOLDER = _Holder()


def c_h4_fn_dataclass_result_with_module(x):
    y, data = _ReturnsDataclass.apply(_HOLDER, 5, x)
    return x + y + data.first + data.second, type(data).__name__


class _SameTwice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        s = t.sin()
        return s, s

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 + g2


def c_h4_fn_same_tensor_twice(x):
    a, b = _SameTwice.apply(_leaf(x))
    return a is b, a.detach(), a.requires_grad


class _InputTwice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t, t

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 + g2


def c_h4_fn_input_returned_twice(x):
    a, b = _InputTwice.apply(x)
    return a is b, a is x, b is x, a + b


class _ReturnsNested(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        inner = t.cos()
        return t.sin(), (inner, [inner * 2, t]), {"k": inner + 1}

    @staticmethod
    def backward(ctx, g, _nested, _mapping):
        return g


def c_h4_fn_returns_nested_containers(x):
    out, (c, (d, e)), m = _ReturnsNested.apply(_leaf(x))
    return out.detach(), c, d, e.detach(), m["k"], e.requires_grad, c.requires_grad, out.requires_grad


# -- lists forward fills ---------------------------------------------------------------------------------------
class _FillsList(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, z):
        o = torch.matmul(t, t) @ t
        out = t.sin()
        z.append(out)
        return torch.cos(torch.sin(o)), torch.sin(t)

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 + g2, None


def c_h4_fn_appends_to_list_argument(x):
    z = []
    outs = _FillsList.apply(x.reshape(3, 1) * x, z)
    return outs[0] + outs[-1], z[0], len(z)


class _AppendsOutput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, seen):
        out = t * 3
        seen.append(out)
        seen.append(t)
        return out

    @staticmethod
    def backward(ctx, g):
        return g * 3, None


def c_h4_fn_appended_output_is_result(x):
    seen = [x + 1]
    out = _AppendsOutput.apply(_leaf(x), seen)
    return out is seen[1], seen[2] is out, len(seen), seen[0], out.detach(), seen[1].requires_grad


class _FillsDict(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, stats):
        stats["mean"] = t.mean()
        stats["count"] = t.numel()
        return t * 2

    @staticmethod
    def backward(ctx, g, _stats=None):
        return g * 2, None


def c_h4_fn_fills_dict_argument(x):
    stats = {}
    out = _FillsDict.apply(x, stats)
    return out, stats["mean"], stats["count"], sorted(stats)


class _AppendsInNestedList(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, bins):
        bins[0].append(t.exp())
        bins[1].append(t.log1p())
        return t + 1

    @staticmethod
    def backward(ctx, g):
        return g, None


def c_h4_fn_fills_lists_inside_a_tuple(x):
    low, high = [], [x]
    out = _AppendsInNestedList.apply(x, (low, high))
    return out, low[0], high[1], high[0] is x, len(low) + len(high)


class _Reversible(torch.autograd.Function):
    @staticmethod
    def forward(ctx, hidden, layers, all_hidden, keep):
        hidden, attn = torch.chunk(hidden, 2, dim=-1)
        for layer in layers:
            if keep:
                all_hidden.append(hidden)
            attn = layer(attn)
        ctx.save_for_backward(attn.detach(), hidden.detach())
        ctx.layers = layers
        return torch.cat([attn, hidden], dim=-1)

    @staticmethod
    def backward(ctx, grad):
        _, grad_hidden = torch.chunk(grad, 2, dim=-1)
        return torch.cat([grad_hidden, grad_hidden], dim=-1), None, None, None


class _Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.norm = nn.LayerNorm(6)
        self.layers = [nn.Linear(3, 3), nn.Linear(3, 3)]

    def forward(self, hidden, keep=True):
        all_hidden = []
        hidden = torch.cat([hidden, hidden], dim=-1)
        hidden = _Reversible.apply(hidden, self.layers, all_hidden, keep)
        return self.norm(hidden), all_hidden


_ENCODER = _Encoder()


def c_h4_fn_modules_in_a_list_and_kept_hiddens(x):
    out, kept = _ENCODER(x.reshape(1, 3))
    return out, kept, len(kept), kept[0] is kept[1]


def c_h4_fn_tuple_of_modules(x):
    layers = tuple(_ENCODER.layers)
    kept = []
    out = _Reversible.apply(torch.cat([x, x]).reshape(1, 6), layers, kept, False)
    return out, kept


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
