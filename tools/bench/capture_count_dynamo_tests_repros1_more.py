"""More repros from the first half of PyTorch's test/dynamo/test_repros.py (``--only dynamo_tests_repros1``):
``out=`` into buffers and closure cells, list subclasses with ``__call__``, user iterators, graph breaks in
loops and under grad-mode blocks, modules made inside the frame, and small tensor-API corners.
"""

from __future__ import annotations

import contextlib
import io
from abc import ABC
from collections.abc import Iterator
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

_SINK = io.StringIO()


class _TransformerLayer(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        torch.manual_seed(0)
        self.attn = nn.MultiheadAttention(d, heads, dropout=0.1)
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.dropout = nn.Dropout(0.1)
        self.ff = nn.Sequential(nn.Linear(d, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, d), nn.Dropout(0.1))

    def forward(self, src, mask=None, padding=None):
        x = src
        sa = self.attn(x, x, x, attn_mask=mask, key_padding_mask=padding, need_weights=False)[0]
        x = self.norm1(x + self.dropout(sa))
        return self.norm2(x + self.ff(x))


_LAYER = _TransformerLayer(4, 2).eval()


def c_r1_transformer_encoder_layer(x):
    with torch.no_grad():
        return _LAYER(torch.cat([x, x + 1]).reshape(2, 1, 3)[..., :2].repeat(1, 1, 2))


def c_r1_exec_wildcard_import(x):
    def importer():
        exec("from math import *")

    def user():
        y = torch.zeros(3)
        for i in range(4):
            y = y + i
        return y

    importer()
    return user() + x


def c_r1_nested_grad_modes_over_break(x):
    def breaking(a):
        print("break", file=_SINK)
        return torch.sin(torch.cos(a))

    y = x.detach().requires_grad_()
    with torch.no_grad():
        with torch.enable_grad():
            c = torch.sigmoid(breaking(torch.sin(y)))
            c.sum().backward()
            return y.grad, torch.is_grad_enabled()


class _AbcBase(nn.Module, ABC):
    def blah(self, x):
        return x + 1


class _AbcDerived(_AbcBase):
    def __setattr__(self, name, value):
        super().__setattr__(name, value)

    def forward(self, x):
        self.foo = 0
        return self.blah(x)

    def blah(self, x):
        return super().blah(x)


_ABC_MOD = _AbcDerived()


def c_r1_abc_module_setattr_override(x):
    return _ABC_MOD(x), _ABC_MOD.foo


def c_r1_nested_tuple_argument(x, args):
    return torch.ones(()), args[0] * 2 + x


c_r1_nested_tuple_argument.extra_args = lambda: ((torch.ones(1), (torch.ones(1), torch.ones(1))),)


def c_r1_nullcontext_object_argument(x, ctx):
    x = x.sin()
    with ctx:
        x = x.cos()
    return x.sin()


c_r1_nullcontext_object_argument.extra_args = lambda: (contextlib.nullcontext(),)


def c_r1_nullcontext_class_argument(x, ctx):
    x = x.sin()
    with ctx():
        x = x.cos()
    return x.sin()


c_r1_nullcontext_class_argument.extra_args = lambda: (contextlib.nullcontext,)


@torch.no_grad()
def _sin_no_grad(x):
    return x.sin()


def c_r1_no_grad_decorated_callee(x):
    y = x.detach().requires_grad_()
    out = _sin_no_grad(y).cos()
    return out, out.requires_grad


def c_r1_longtensor_of_tensor_list(x):
    vals = [torch.tensor(v) for v in (5, 7, 9)]
    return x * torch.LongTensor(vals)


def c_r1_refs_abs(x):
    import torch._refs

    torch._refs.abs(x)
    return x + 1


def c_r1_tensor_class_inplace_method(x):
    y = x - 1
    torch.Tensor.abs_(y)
    return y, torch.ops.aten.absolute(x - 2)


class _GeluAct(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = F.gelu

    def forward(self, x):
        return self.act(x)


def c_r1_module_with_function_attr_made(x):
    return _GeluAct()(x)


def c_r1_module_made_and_returned(x):
    act = _GeluAct()  # the module object itself compares by identity: its parts are returned instead
    return act.act, x + 1, type(act).__name__, hasattr(act, "_buffers"), act.training


def c_r1_dropout_module_made(x):
    return nn.Dropout(0.1)(x + 1)


def c_r1_setitem_boolean_mask(x):
    y = x.clone()
    y[torch.tensor([True, False, True])] = torch.tensor([7.0, 8.0])
    z = torch.zeros(2, 3)
    z[:, torch.tensor([True, False, True])] = torch.tensor([1.0, 2.0])
    return y, z


class _ShapeCheck(nn.Module):
    def inner(self, left, right):
        return tuple(left) == tuple(right)

    def fn(self, t):
        if type(t) is int:
            return False
        torch.add(t, t)
        return self.inner(t.shape, (1, 2, 3))


_SHAPE_CHECK = _ShapeCheck()


def c_r1_method_type_is_int_then_shape(x):
    return _SHAPE_CHECK.fn(x), _SHAPE_CHECK.fn(-3), _SHAPE_CHECK.fn(torch.ones(1, 2, 3))


def c_r1_isinstance_tuple_str_format(x):
    t = torch.ones(2)
    if not isinstance(t, (int, torch.Tensor)):
        raise ValueError(str.format("{0} is not {1}", type(t), (int, torch.Tensor)))
    return x + isinstance(torch.bfloat16, torch.dtype)


def c_r1_bool_storage_from_buffer(x):
    raw = bytearray([0x00, 0x01, 0x02, 0x03])
    bools = torch.BoolStorage.from_buffer(raw, "big")
    assert isinstance(bools, torch.BoolStorage)
    return x + 1


class _HasA:
    a = 2


def c_r1_class_attribute_on_instance(x, obj):
    return x + obj.a


c_r1_class_attribute_on_instance.extra_args = lambda: (_HasA(),)


def c_r1_dict_iterated_by_key(x):
    z = {"my": 1, "const": 2, "dict": 3, "variable": 4}
    tot = 0
    for key in z:
        tot += z[key]
    return x + tot


class _Buffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.sorted = nn.Buffer(torch.ones(3, 3))
        self.indices = nn.Buffer(torch.ones(3, 3, dtype=torch.long))
        self.base = nn.Buffer(torch.ones(3, 3))


def c_r1_sort_and_sigmoid_out_buffers(x):
    m = _Buffers()
    inp = torch.outer(x, x - 1)
    torch.sort(inp, out=(m.sorted, m.indices))
    torch.sigmoid(inp, out=m.base)
    return inp + 1, m.sorted, m.indices, m.base


def c_r1_sigmoid_out_resizes_local(x):
    out1 = torch.tensor(0.0)
    torch.sigmoid(torch.outer(x, x), out=out1)
    return out1, out1.numel()


def c_r1_out_into_closure_cell(x):
    out = torch.empty(0)

    def run():
        torch.sigmoid(torch.zeros(3, 5) + x[1], out=out)
        return out.size()

    return run(), out


def c_r1_out_into_nested_cell(x):
    def run():
        out = torch.empty(0)

        def capture():
            return out

        torch.sigmoid(torch.zeros(3, 5) + x[1], out=out)
        return out.size(), capture()

    return run()


def c_r1_sort_out_into_cells(x):
    out1 = torch.empty(0)
    out2 = torch.empty(0, dtype=torch.long)

    def run():
        torch.sort(torch.outer(x, 1 - x), out=(out1, out2))
        return out1.size(), out2.size()

    return run(), out1, out2


def c_r1_dict_attr_keys_listed(x, sample):
    keys = list(sample.table.keys())
    p = torch.cos(sample.table[keys[0]].value)
    return p + torch.sin(x) + torch.sigmoid(sample.table[keys[0]].value)


class _Value:
    def __init__(self):
        self.value = torch.ones(3) * 2


class _Sample:
    def __init__(self):
        self.table = {"POSITION_ID": _Value()}


c_r1_dict_attr_keys_listed.extra_args = lambda: (_Sample(),)


def c_r1_normalize_out_none(x):
    return F.normalize(x + 1, dim=0, out=None)


def c_r1_unsqueeze_inplace_then_cat(x):
    v = torch.outer(x, x).clone()
    v.unsqueeze_(2)
    return (torch.cat([v], dim=2).view((3, -1)),)


def c_r1_ellipsis_in_index_tuple(x):
    t = torch.outer(x, x + 1).reshape(1, 3, 3)
    return t[(slice(None, None, None), slice(0, 1, None), Ellipsis)] + 1


def c_r1_requires_grad_branch(x):
    def f(t):
        return t + 1 if t.requires_grad else t + 2

    y = x.detach().requires_grad_()
    with torch.no_grad():
        a = f(y)
    return a, f(y.detach()), f(y)


_ORIG_CALL = nn.Module.__call__


def c_r1_module_call_patched_check(x):
    if nn.Module.__call__ is not _ORIG_CALL:
        return x * 2
    return x * 4


class _FcModules(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc = nn.Linear(3, 2)

    def forward(self, inp):
        res = torch.zeros(1, 2)
        for _m in self.modules():
            res += self.fc(inp)
        return res


_FC_MODULES = _FcModules()


def c_r1_modules_loop(x):
    with torch.no_grad():
        return _FC_MODULES(x.reshape(1, 3))


class _ListConfig:
    class Node:
        def __init__(self, value):
            self.value = value

        def deref(self):
            return self

        def missing(self):
            return False

    class It(Iterator[Any]):
        def __init__(self, lst, resolve):
            self.resolve = resolve
            self.iterator = iter(lst.__dict__["_content"])
            self.index = 0

        def __next__(self):
            x = next(self.iterator)
            if self.resolve:
                x = x.deref()
                if x.missing():
                    raise AssertionError
            self.index = self.index + 1
            if isinstance(x, _ListConfig.Node):
                return x.value
            raise AssertionError

    def __iter__(self):
        try:
            return _ListConfig.It(self, True)
        except Exception:
            raise AssertionError from None

    def __init__(self):
        self._content = [_ListConfig.Node(1), _ListConfig.Node(3), _ListConfig.Node(torch.tensor([7.0]))]


_LIST_CONFIG = _ListConfig()


def c_r1_typing_iterator_subclass(x):
    y = x.clone()
    for v in _LIST_CONFIG:
        y += v
    return y


class _CountTo3:
    def __init__(self):
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i < 3:
            self.i += 1
            return self.i
        raise StopIteration


def c_r1_user_iterator_loop(x):
    y = x.clone()
    for i in _CountTo3():
        y += i
    return y


def c_r1_stop_iteration_made(x):
    e = StopIteration(1, 2, 3)
    return x.sin(), e.args, str(e), type(e).__name__


def c_r1_tensor_data_keyword(x):
    return torch.tensor(data=[[1.0, -1.0, 2.0]]) + x


def c_r1_break_before_loop(x):
    print("break", file=_SINK)
    for _ in range(10):
        torch.sin(x)
    return x


def c_r1_break_in_while_through_calls(x):
    def inner_loop(t):
        i = 2
        while i > 0:
            i -= 1
            t += 1
            print("break", file=_SINK)
        return t

    def inner(t):
        inner_loop(t)
        return torch.sin(t)

    y = x.clone()
    i = 13
    while i > 10:
        y = inner(y)
        i -= 1
    return y


def c_r1_break_in_callee_loop(x):
    def inner(t):
        for _ in range(3):
            t += 1
            print("break", file=_SINK)
        return t

    y = x + 2
    inner(y)
    y += 3
    return y


def c_r1_same_tensor_twice(x, y):
    return (x + x) * 1, (x + y) * 1


c_r1_same_tensor_twice.extra_args = lambda: (torch.ones(3),)


def c_r1_module_plain_tensor_attribute(x):
    m = nn.Module()
    m.t = torch.ones(3)
    return torch.cat((m.t, m.t)) + torch.cat((x, x))


def c_r1_break_inside_no_grad(x):
    y = x.detach().requires_grad_()
    with torch.no_grad():
        print("break", file=_SINK)
        return y + 1, torch.is_grad_enabled()


def c_r1_output_aliases_intermediate(x):
    mid = x.mul(2)
    return mid.view(-1), mid


def c_r1_cm_catches_raise_in_callee(x):
    hit = []

    @contextlib.contextmanager
    def ctx():
        try:
            yield
        except RuntimeError:
            hit.append(True)

    def h():
        raise RuntimeError("boof")

    with ctx():
        h()
    return x + len(hit)


def c_r1_generator_type_named(x):
    gen_type = type(_ for _ in ())
    return x + 1, gen_type.__name__


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
