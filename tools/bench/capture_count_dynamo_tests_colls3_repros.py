"""Repros and higher-order ops modelled on PyTorch's test/dynamo/test_repros.py and test_higher_order_ops.py, for
``capture_count.py --only dynamo_tests_colls3``: guards reached through a tuple in a dict, complex ``conj``,
``TypedDict`` with ``total``, bitwise arithmetic on sizes, ``copy_`` of a number, ``torch.typename``, ``super()``
reaching class methods, version counters, a scripted function's defaults; ``wrap`` bodies that delete attributes
or update global and nonlocal tensors in place, nested ``map`` and ``map`` with pytree results. Each is written
afresh over one tensor.
"""

from __future__ import annotations

import dataclasses
import typing

import torch


# -- repros (test_repros.py) ------------------------------------------------------------------------------
class _Holder:
    def __init__(self):
        self.v = 10


def c_c3_guard_through_tuple_in_dict(x, d):
    return x * d["a"] * d["b"][0].v


c_c3_guard_through_tuple_in_dict.extra_args = lambda: ({"a": 2, "b": (_Holder(),)},)


def c_c3_complex_mul_and_conj(x):
    z = torch.view_as_complex(torch.stack([x, x + 1], dim=-1))
    w = torch.mul(z, 2j)
    return torch.view_as_real(w + z.conj()), (z + z.conj()).real


class _Pixels(typing.TypedDict):
    kind: str
    data: torch.Tensor


def c_c3_typed_dict_made_and_set(x):
    obj = _Pixels(kind="pixel", data=x * 2)
    out = x * obj["data"]
    obj["data"] = 3
    extra = _Pixels(data=x, total=False)
    return out * obj["data"] + extra["data"], sorted(extra), type(obj).__name__


def c_c3_size_is_list(x):
    xs = [1, 2]
    if x.size(0) is xs:
        return x + 1
    if x.size(0) is not xs:
        return x * 2
    return x


def c_c3_size_bitwise(x):
    z = x.shape[0]
    z |= z >> 1
    z |= z << 1
    z &= z | (z > 1)
    y = (z > 1) | (z <= 1)
    z = (z | z) % 6
    if x.shape[0] | 5 > 4:
        x = x + 1
    if x.shape[0] & 6 > 1:
        x = x - 1
    return x * z, y


def c_c3_copy_int_overload(x):
    t = x.clone()
    return t.copy_(1), x.new_zeros(2).copy_(2.5)


def c_c3_typename_of_objects(x):
    return x + 1, torch.typename(typing.Any), torch.typename(x), torch.typename(3)


@dataclasses.dataclass
class _Value:
    value: float


class _WithData(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.data_ = _Value(value=3.5)

    def forward(self, x):
        return x + torch.tensor(self.data_.value)


_WITH_DATA = _WithData()


def c_c3_dataclass_in_module(x):
    return _WITH_DATA(x)


def c_c3_rand_argsort_indices(x):
    latent = x.reshape(1, 3).expand(2, 3)
    r = torch.rand(2, 3)
    order = torch.argsort(torch.rand(*r.shape), dim=-1)[:, :2]
    return latent[torch.arange(2).unsqueeze(-1), order]


def c_c3_check_with_floor_of_bitwise(x):
    import math

    torch._check(math.floor((x.size(0) | 3) * 4) == 12)
    return x.sin()


# -- higher-order ops (test_higher_order_ops.py) -------------------------------------------------------------
class _Slot:
    pass


_SLOT = _Slot()
_GLOBAL_T = torch.ones(3)


def c_c3_wrap_deletes_global_attr(x):
    from torch._higher_order_ops.wrap import wrap

    _SLOT.foo = torch.tensor(4.0)

    def body(t):
        del _SLOT.foo
        return t.clone()

    return wrap(body, x), hasattr(_SLOT, "foo")


def c_c3_wrap_global_tensor_iadd(x):
    from torch._higher_order_ops.wrap import wrap

    global _GLOBAL_T
    _GLOBAL_T = torch.ones(3)

    def body(t):
        global _GLOBAL_T
        _GLOBAL_T += 1
        return t + _GLOBAL_T

    return wrap(body, x) + _GLOBAL_T


def c_c3_wrap_nonlocal_tensor_iadd(x):
    from torch._higher_order_ops.wrap import wrap

    val = torch.tensor(1.0)

    def body(t):
        nonlocal val
        val += 1
        return t + val

    return wrap(body, x) + val


def c_c3_wrap_sets_module_parameter(x):
    from torch._higher_order_ops.wrap import wrap

    lin = torch.nn.Linear(3, 3)

    def body(t):
        lin.bias = torch.nn.Parameter(torch.zeros(3))
        return lin(t)

    return wrap(body, x).shape, lin.bias.sum()


def c_c3_map_nested(x):
    from functorch.experimental.control_flow import map as cf_map

    xs = torch.stack([x, x * 2], dim=1).reshape(
        3, 2, 1
    )  # (map refuses operands sharing memory, in eager too)

    def inner(row, y):
        return cf_map(lambda a, b: a + b, row, y)

    return cf_map(inner, xs, x[:1].clone())


def c_c3_map_pytree_result(x):
    from functorch.experimental.control_flow import map as cf_map

    def body(a):
        return a.clone(), [[a * 2]], (a + 1, (a - 1,)), {"k": a.sin()}

    return cf_map(body, x.reshape(3, 1))


def c_c3_wrap_keyword_default_given(x):
    from torch._higher_order_ops.wrap import wrap

    def body(*, a, b, c=None):
        if c is None:
            return a * 2 + b
        return a * c

    return wrap(body, a=x, b=x, c=8), wrap(body, a=x, b=1)


# -- more repros: super with class methods, versions, jit defaults ---------------------------------------------
class _Greeter:
    @classmethod
    def greet(cls):
        if cls == _Greeter:
            return 4
        if cls == _GreeterChild:
            return 3
        if cls == _GreeterGrandchild:
            return 5
        return 2


class _GreeterChild(_Greeter):
    def greet(self, x):
        return x * super().greet()


class _GreeterGrandchild(_GreeterChild):
    pass


class _Scaled:
    @classmethod
    def scale(cls, x):
        return cls.FACTOR * x


class _ScaledMiddle(_Scaled):
    @classmethod
    def scale(cls, x):
        return super().scale(x) + 1


class _ScaledLeaf(_ScaledMiddle):
    FACTOR = 5

    @classmethod
    def scale(cls, x):
        return super().scale(x) * 2


def c_c3_super_classmethod_cls_compare(x):
    return _GreeterGrandchild().greet(x) + _GreeterChild().greet(x)


def c_c3_super_classmethod_chain(x):
    return _ScaledLeaf().scale(x) + _ScaledLeaf.scale(x)


def c_c3_inplace_bumps_version(x):
    t = x.clone()
    before = t._version
    t.mul_(2)
    t.add_(1)
    return t, t._version - before


_EMPTY_TABLE = {}


def c_c3_global_empty_dict_keyerror(x):
    try:
        y = _EMPTY_TABLE[0]
    except KeyError:
        y = 1
    return x + y


def c_c3_issubclass_of_class_attr(x):
    import numpy as np

    a = 1 if issubclass(x.__class__, np.ndarray) else 0
    b = 1 if issubclass(x.__class__, torch.Tensor) else 0
    return x + a + 2 * b, callable(_WITH_DATA), callable(x)


@torch.jit.script
def _scripted_cos(x, c: float = 2.0):
    return torch.cos(x) * c


def c_c3_jit_script_default_argument(x):
    return _scripted_cos(x) + _scripted_cos(x, 3.0)


class _HasFoo:
    foo: int = 1


def c_c3_getattr_on_type_with_default(x, m):
    if getattr(type(m), "foo", 0):
        x = x + _HasFoo.foo
    if getattr(type(len(x.shape)), "foo", 0):
        x = x + 100
    return x


c_c3_getattr_on_type_with_default.extra_args = lambda: (_HasFoo(),)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
