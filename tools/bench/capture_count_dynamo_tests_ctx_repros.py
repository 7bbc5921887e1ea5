"""Python-level repros modelled on PyTorch's test/dynamo/test_repros.py, for ``capture_count.py --only
dynamo_tests_ctx``: grad mode around a breaking callee that runs ``backward``, sizes kept across a break,
the RNG state saved and restored, ``exec`` of an import, a ``UserDict`` with ``__getattr__``, a config
class's set arithmetic, loops with a break in their body, asserts on tensor values, ``out=`` tuples,
``__setattr__`` overridden on a module, and the zip of ``itertools.count`` with a dict's list.
"""

from __future__ import annotations

import io
import itertools
from abc import ABC
from collections import UserDict

import torch

_SINK = io.StringIO()


def _leaf():
    return (torch.ones(3, requires_grad=True),)


def c_dtr_enable_grad_backward_over_break(x, w):
    def reversible(a):
        print("break", file=_SINK)
        return torch.sin(torch.cos(a))

    w.grad = None
    with torch.no_grad():
        with torch.enable_grad():
            a = torch.sin(w * x)
            c = torch.sigmoid(reversible(a))
            c.sum().backward()
    return w.grad


c_dtr_enable_grad_backward_over_break.extra_args = _leaf


def c_dtr_no_grad_state_after_break(x, w):
    with torch.no_grad():
        y = w * 3
        print("break", file=_SINK)
        z = w + x
    return y, z, y.requires_grad, z.requires_grad


c_dtr_no_grad_state_after_break.extra_args = _leaf


def c_dtr_size_kept_across_break(x):
    y = x * 2
    size = x.size()
    print("break", file=_SINK)
    return y.view(size) + 1


def c_dtr_rng_state_restored(x):
    state = torch.get_rng_state()
    before = torch.rand(4)
    torch.set_rng_state(state)
    after = torch.rand(4)
    return x + 1, before, after


def c_dtr_exec_import(x):
    scope = {}
    exec("import math", scope)
    return x + scope["math"].sqrt(4)


class _Encoding(UserDict):
    def __getattr__(self, item):
        try:
            return self.data[item]
        except KeyError:
            raise AttributeError(item) from None


def c_dtr_userdict_getattr(x):
    enc = _Encoding({"key": x})
    return enc["key"] + enc.key, "key" in enc, len(enc)


class _AttnConfig:
    attn_layers = ["local", "lsh", "local", "lsh"]
    lsh_chunk = 64
    local_chunk = 32


def c_dtr_config_set_arithmetic(x):
    kinds = _AttnConfig.attn_layers
    found = set(kinds)
    if len(found) == 1 and kinds[0] == "lsh":
        n = _AttnConfig.lsh_chunk
    elif len(found) == 2 and found == {"lsh", "local"}:
        n = min(_AttnConfig.lsh_chunk, _AttnConfig.local_chunk)
    else:
        raise NotImplementedError(kinds)
    return x + n


def c_dtr_loop_break_each_iteration(x):
    for _ in range(5):
        torch.sin(x)
        print("break", file=_SINK)
    i = 8
    while i > 5:
        x = torch.sin(x)
        i -= 1
        print("break", file=_SINK)
    return x


def c_dtr_assert_on_tensor_value(x):
    b = x.sin()
    assert x[1] == 1, "second entry must be 1"
    assert x.dtype == torch.float32
    return x.cos() + b


def c_dtr_raise_on_tensor_sum(x):
    b = x.sin()
    if not x.sum() <= 100:
        raise ValueError("input sum too big")
    return x.cos() + b


def c_dtr_out_tuple_sort(x):
    values = torch.tensor(0.0)
    indices = torch.tensor(0)
    torch.sort(x.flip(0), out=(values, indices))
    out = torch.tensor(0.0)
    torch.sigmoid(x, out=out)
    return values, indices, out, values.stride()


class _Base(torch.nn.Module, ABC):
    def blah(self, x):
        return x + 1


class _Derived(_Base):
    def __setattr__(self, name, value):
        super().__setattr__(name, value)

    def forward(self, x):
        self.foo = 0
        return self.blah(x)

    def blah(self, x):
        return super().blah(x)


_DERIVED = _Derived()


def c_dtr_module_setattr_override(x):
    return _DERIVED(x), _DERIVED.foo


def c_dtr_zip_count_dict_list(x):
    args = {"args": [x, x[:2], x[:1]]}
    return [t[1].shape for t in zip(itertools.count(), args["args"])]


def c_dtr_slice_into_list_mutated(x):
    listy = [x] * 6
    part = listy[3:5]
    for i in range(4):
        part[0] = torch.abs(x) + i
    return part, len(listy)


def c_dtr_isinstance_tuple_and_dtype(x):
    t = torch.ones(2)
    if not isinstance(t, (int, torch.Tensor)):
        raise ValueError("{} is not one of {}".format(type(t), (int, torch.Tensor)))  # noqa: UP032
    return x + isinstance(torch.bfloat16, torch.dtype)


def c_dtr_class_member_tensor(x):
    class Foo(torch.nn.Module):
        a = 4
        b = torch.ones(3)

        def __init__(self):
            super().__init__()
            self.c = 4

        def forward(self, t):
            return t.cos() + self.a + self.b + self.c

    return Foo()(x)


def c_dtr_named_buffers_loop(x):
    class Foo(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("p", torch.ones(3))
            self.register_buffer("q", torch.ones(3))

        def forward(self, inp):
            res = 0
            for _name, buf in self.named_buffers():
                res += buf.sum()
            return inp.cos() + res

    return Foo()(x)


def c_dtr_specialized_stride(x):
    e = torch.empty(4)
    return x + 1, e[::2].stride()


def c_dtr_fx_symbolic_trace_inside(x):
    import torch.fx

    def inner(t):
        return torch.sin(t)

    traced = torch.fx.symbolic_trace(inner)
    return x * 2, len(traced.graph.nodes)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
