"""Last round of programs after PyTorch's split test_misc.py (parts 1 to 4) for ``capture_count.py --only misc14``:
objects passed in (closures, lists, classes with metaclasses, ``__torch_function__`` holders), ``torch._check``
with messages, ``torch._dynamo.graph_break()`` (a no-op in eager), ids of classes and modules, ``out=`` with Python
scalars, NumPy dtypes spelt several ways, and a ``catch_warnings(record=True)`` block.
"""

from __future__ import annotations

import typing
import warnings

import numpy as np
import torch

_GLOBAL_INT = 1


# -- objects passed in -------------------------------------------------------------------------------------------------
def _closure_adder(v):
    def add(t):
        return t + v

    return add


def c_m14_closure_passed_in(x, other):
    return other(x + 1) - 1


c_m14_closure_passed_in.extra_args = lambda: (_closure_adder(5),)


def c_m14_empty_list_passed_in(x, ll):
    if len(ll) == 0 and not ll and ll is not None:
        return x + 1
    return x


c_m14_empty_list_passed_in.extra_args = lambda: ([],)


class _Meta(type):
    pass


class _WithMeta(metaclass=_Meta):
    coeff = 4

    @classmethod
    def add(cls, x):
        return x + 1


class _WithMetaChild(_WithMeta):
    @classmethod
    def add(cls, x):
        torch._dynamo.graph_break()
        return x + super().add(x) + super().coeff


def c_m14_super_classmethod_with_metaclass(x):
    return x + _WithMetaChild().add(x)


def c_m14_metaclass_class_isinstance(x, c):
    if isinstance(c, _WithMeta):
        return x + 1
    if isinstance(c, _Meta):
        return x + 2
    return x + 3


c_m14_metaclass_class_isinstance.extra_args = lambda: (_WithMetaChild,)


class _FakeTensorLike:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.max:
            return torch.tensor(123)
        return func(*args, **(kwargs or {}))


def c_m14_is_tensor_like_torch_function_holder(x, obj):
    if torch.overrides.is_tensor_like(obj):
        return torch.max(obj) + x
    return x


c_m14_is_tensor_like_torch_function_holder.extra_args = lambda: (_FakeTensorLike(),)


class _CustomGetitem(typing.NamedTuple):
    a: torch.Tensor
    b: torch.Tensor

    def __getitem__(self, index):
        return _CustomGetitem(self.a[index], self.b[index])


def c_m14_namedtuple_custom_getitem_passed(x, tup):
    return tup.a + 1, tup[1:].b


c_m14_namedtuple_custom_getitem_passed.extra_args = lambda: (_CustomGetitem(torch.ones(3), torch.zeros(3)),)


def c_m14_id_of_class_passed_in(x, cls):
    return x + id(cls) // 10**12


c_m14_id_of_class_passed_in.extra_args = lambda: (_WithMeta,)


class _IdMod(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.y1 = torch.ones(3)
        self.y2 = torch.zeros(3)

    def forward(self, x, ref):
        x = torch.mul(x, 1.0) if id(self) == ref else torch.mul(x, 0)
        return x * (self.y1 if ref == id(self.y1) else self.y2)


_ID_MOD = _IdMod()


def c_m14_id_of_module_and_buffer(x):
    return _ID_MOD(x, id(_ID_MOD)), _ID_MOD(x, id(_ID_MOD.y1))


# -- torch._check and graph_break ------------------------------------------------------------------------------------
def c_m14_check_with_message_lambdas(x):
    torch._check(x.shape[0] > 2, lambda: "Shape is not greater than 2")
    torch._check(x.shape[0] > 1, lambda: f"{_GLOBAL_INT} is not greater than 1")
    torch._check(x.shape[0] == 3)
    return x + 1


def c_m14_dynamo_graph_break_is_noop(x):
    a = [1, 2]
    a += [x]
    torch._dynamo.graph_break()
    return a[-1] + len(a)


def c_m14_assert_shape_equal(x):
    assert x.shape == x.shape
    return x.abs()


# -- ops with Python scalars and out= ------------------------------------------------------------------------------
def c_m14_add_scalars_into_out(x):
    out = torch.tensor(0.0)
    res = torch.add(2, 3, out=out)
    return res + x, out


def c_m14_inplace_into_empty(x):
    o = torch.empty((3,))
    o.copy_(x)
    o -= x * 2
    a, = o.view(1, 3).size()[:1]
    return o, a


def c_m14_unpack_size_into_empty(x):
    m = x.view(3, 1)[:2, :]
    r, c = m.size()
    o = torch.empty((r, c))
    o.copy_(m / (m + 1))
    return o


def c_m14_repeat_interleave_int(x):
    y = x.view(1, 3, 1).clone()
    y += 1
    y = torch.repeat_interleave(y, 2, 2)
    y += 1
    return y


def c_m14_abs_of_int_and_tensor(x):
    return abs(-10) + abs(x - 1), abs(-0.5) + x


def c_m14_compare_shape_lists(x):
    a = list(x.unsqueeze(-1).shape)
    b = list(x.view(1, 3).unsqueeze(-1).shape)
    c = tuple(x.unsqueeze(-1).shape)
    return x + (a == b) + (a != b) * 2 + (c == (3, 1)) * 4


def c_m14_torch_size_view_star(x):
    size = torch.Size([3, 1])
    return (x.view(*size),)


def c_m14_is_contiguous_memory_format(x):
    w = torch.ones(2, 3, 2, 2).to(memory_format=torch.channels_last)
    return x + w.is_contiguous(memory_format=torch.channels_last) + w.is_contiguous()


def c_m14_intermediate_grad_is_none(x):
    inter = torch.ones(3)
    c = x + inter
    return [inter.grad], c


# -- numpy -------------------------------------------------------------------------------------------------------------
def c_m14_numpy_arange_dtypes(x):
    total = 0
    for dt in (float, np.float64, "float64", np.float32, "float32", int, "int", np.intp, np.int32, np.uint8):
        total = total + np.arange(5, dtype=dt).sum()
    return x + float(total)


def c_m14_numpy_iterate_rows(x):
    arr = x.numpy()[:, None]
    rows = [row for row in arr]
    return [type(r).__name__ for r in rows], torch.from_numpy(np.stack(rows))


# -- warnings ----------------------------------------------------------------------------------------------------------
def c_m14_catch_warnings_record_block(x):
    y = x + 1
    with warnings.catch_warnings(record=True):
        return x.sin() + y


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_") and fn.__module__ == __name__]
