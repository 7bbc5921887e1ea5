"""Small programs in the manner of PyTorch's split test_misc.py (parts 1 to 4), for ``capture_count.py --only
misc14``: type flags read off classes, getset descriptors called by hand, ``torch.fft`` called as if a function,
``isinstance`` with a stray keyword, ``os.environ``/``sys.modules`` lookups, tensor attributes set on fresh
tensors, ``_ntuple`` helpers, instance ``__dict__`` written beside data descriptors, ``__new__`` returning another
class's instance, cells written across frames. Each is written afresh over one tensor (``torch.arange(3.0)``).
"""

from __future__ import annotations

import collections
import os
import sys

import torch

_TPFLAGS_MAPPING = 1 << 6


# -- type objects and descriptors ------------------------------------------------------------------------------
class _Table(torch.nn.ModuleDict, collections.abc.MutableMapping):
    def __hash__(self):
        return id(self)


def c_m14_class_flags_mapping(x):
    if _Table.__flags__ & _TPFLAGS_MAPPING:
        return x + 1
    return x - 1


def c_m14_instance_type_flags(x):
    flags = type([]).__flags__, type({}).__flags__
    return x + int(bool(flags[1] & _TPFLAGS_MAPPING)) - int(bool(flags[0] & _TPFLAGS_MAPPING))


def c_m14_getset_descriptor_get(x):
    shape_of = torch.Tensor.shape
    torch.sin(x)
    return shape_of.__get__(x.view(3, 1)), x * 2


def c_m14_getset_get_passed_around(x):
    getter = torch.Tensor.shape.__get__

    def apply(g, t):
        return g(t)

    return apply(getter, x.unsqueeze(0)), x + 1


def c_m14_module_called_like_function(x):
    try:
        return torch.fft(x)
    except TypeError as err:
        return x + len(str(err))


def c_m14_isinstance_stray_keyword(x):
    y = x.sin()
    try:
        isinstance(y, torch.Tensor, strict=True)
    except TypeError:
        return y + 1
    return y


def c_m14_getattr_none_default(x):
    return x + getattr(None, "missing", 3)


def c_m14_subclasses_of_local(x):
    class Root:
        pass

    class Leaf(Root):
        pass

    subs = Root.__subclasses__()
    return x + len(subs), [s.__name__ for s in subs]


def c_m14_str_of_function_has_name(x):
    def helper():
        pass

    return x + ("helper" in str(helper))


# -- environment lookups ---------------------------------------------------------------------------------------
def c_m14_os_environ_get_missing(x):
    if os.environ.get("LOOM_M14_SURELY_UNSET_VAR") == "1":
        return x + 1
    return x - 1


def c_m14_os_environ_get_default(x):
    return x * len(os.environ.get("LOOM_M14_SURELY_UNSET_VAR", "abc"))


def c_m14_sys_modules_lookups(x):
    missing = sys.modules.get("loom_m14_no_such_module")
    op = sys.modules["operator"]
    fallback = sys.modules.get("loom_m14_other", op)
    present = "operator" in sys.modules and "loom_m14_gone" not in sys.modules
    return op.add(x, 1), fallback.neg(x), missing is None, present


def c_m14_masked_table_len(x):
    from torch.masked.maskedtensor._ops_refs import _MASKEDTENSOR_FUNCTION_TABLE

    return x * len(_MASKEDTENSOR_FUNCTION_TABLE)


# -- tensor attributes -----------------------------------------------------------------------------------------
def c_m14_fresh_tensor_custom_attrs(x):
    y = x + 10
    y.grad = x
    y.tag = 42
    return y, y.grad, y.tag


def c_m14_fresh_tensor_attr_flag(x):
    y = x * 2
    y.offloaded = True
    return y + int(y.offloaded)


def c_m14_complex_real_setter(x):
    z = torch.complex(x, x + 1)
    z.real = torch.full((3,), 10.0)
    return z + 1


def c_m14_getattr_view_default(x):
    view = getattr(x, "view", None)
    return view(3, 1)


def c_m14_type_of_tensor_mro_names(x):
    names = [cls.__name__ for cls in type(torch.ones(2)).__mro__]
    return x + len(names), names


def c_m14_unknown_tensor_method(x):
    try:
        return x._loom_no_such_method_m14()
    except AttributeError:
        return x - 1


def c_m14_share_memory_zeros(x):
    h = torch.zeros(2, 3).share_memory_()
    return x + h.sum() + 1


def c_m14_tensor_iter_dunder(x):
    m = x.view(3, 1).clone()
    it = m.__iter__()
    for row in it:
        row.add_(1.0)
    return m


# -- ints from shapes ------------------------------------------------------------------------------------------
def c_m14_int_shape_reversed_binops(x):
    y = 15 - x.shape[0]
    y = 4 + y
    y = 5 * y
    y = 2 % y
    y = 3**y
    y = 10 // y
    y = pow(2, y)
    y = 10 / y
    return x + y


def c_m14_shape_inplace_binops(x):
    p = x.shape[0]
    p += 2
    p -= 2
    p **= 2
    p /= 2
    p *= 2
    p //= 2
    p %= 2
    return x + p


def c_m14_literal_inplace_with_tensor(x):
    a = 1
    a += x
    b = 1
    b -= x
    return a, b


class _Radd:
    def __init__(self, v):
        self.v = v

    def __radd__(self, other):
        return self.v + other


def c_m14_shape_plus_user_radd(x):
    return x + (x.shape[0] + _Radd(4))


def c_m14_min_max_over_shape_iterables(x):
    lst = [x.shape[0] + 1, 8, x.shape[0]]
    return x + (min(lst) + max(iter(lst)) + min(tuple(lst)) + max(*lst))


def c_m14_size_dim_stride_dim(x):
    t = torch.empty(4, 9, 8)
    return x + t.size(dim=1) + t.stride(dim=0) + t.size(dim=-2)


def c_m14_shape_indexed_by_tensor(x):
    t = x.view(1, 3)
    n = t.shape[torch.tensor(1)]
    return t.reshape(-1, n)


def c_m14_shape_indexed_by_vector(x):
    idx = torch.tensor([1, 1])
    try:
        return x * x.view(1, 3).shape[idx]
    except TypeError:
        return x.sum()


def c_m14_size_numel_and_type(x):
    return x + torch.Size([2, 4]).numel() + (type(x.shape) == torch.Size)  # noqa: E721


def c_m14_enumerate_shape_slice(x):
    t = torch.zeros(2, 3, 4, 5)
    total = 0
    for i, d in enumerate(t.shape[2:], 1):
        total = total + d * i
    return x + total


def c_m14_ntuple_helpers(x):
    from torch.nn.modules.utils import _ntuple, _pair

    return torch.zeros(_pair(x.size())) + x + torch.ones(_ntuple(3)(2)).sum()


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_") and fn.__module__ == __name__]
