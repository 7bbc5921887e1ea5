"""Small programs in the manner of the second half of PyTorch's test/dynamo/test_misc.py, for
``capture_count.py --only dynamo_tests_misc2``: calls up a class hierarchy (``super()`` with and without
arguments, classmethods, plain functions stored on classes and instances), metaclasses in ``isinstance``,
tuples built from iterators, size/tuple equality, complex tensors' ``real``/``imag``, ``typing.cast``,
attributes set on tensors, exceptions caught inside the frame, nested grad-mode blocks, dicts keyed by
types and dtypes, ``hasattr`` on many kinds of objects, and sets of tensors.
"""

from __future__ import annotations

import functools
import typing

import torch


class _Base:
    level = 4

    def add(self, x):
        return x + 10

    def mul(self, x):
        return x * 0.1


class _Mid(_Base):
    coeff = 4

    def add(self, x):
        return x + 20

    @classmethod
    def cube(cls, x):
        return cls.coeff * x * x * x

    def mul(self, x):
        return super().mul(x) * x * 0.2


class _Leaf(_Mid):
    def add(self, x):
        return (super().cube(x) + _Base.add(self, x) + _Mid.mul(self, x) + super(_Mid, self).add(x)
                + super().level * x)


def c_m2_parent_methods_from_child(x):
    return _Leaf().add(x)


class _Meta(type):
    pass


class _WithMeta(metaclass=_Meta):
    pass


def c_m2_isinstance_metaclass_instance(x):
    y = _WithMeta()
    return x + 1 if isinstance(y, _WithMeta) else x - 1, isinstance(_WithMeta, _Meta)


def _accumulate_all(*parts):
    acc = torch.ones(3)
    for part in parts:
        acc.add_(part)
    return acc


def c_m2_tuple_from_iterators(x):
    firsts = [x, x * 2]
    joined = tuple(firsts) + tuple(iter((x + 1, x - 1)))
    return _accumulate_all(*joined), len(joined)


def c_m2_size_equals_tuple(x):
    m = x.reshape(1, 3)
    z = m * 2
    if m.size() == (1, 3):
        return z.cos()
    return z.sin()


def c_m2_int_list_modulo(x):
    ys = [10, 11, 12]
    return torch.sin(x + ys[1] % 2)


def c_m2_complex_real_imag(x):
    c = torch.complex(x, x + 1)
    a, b = c.real, c.imag
    return torch.mul(torch.add(a, x), b), c.real.T


def c_m2_typing_cast(x):
    return typing.cast(torch.Tensor, torch.add(x, 1.0))


def c_m2_transpose_attribute(x):
    m = torch.outer(x, x + 1)
    return torch.add(m.T, m), m.mT.shape


def _pair_add(*args):
    a, b = args
    return a + b


class _HoldsFunction:
    def __init__(self, func):
        self.add = func


_HOLDER = _HoldsFunction(_pair_add)


def c_m2_function_stored_on_instance(x):
    return _HOLDER.add(x, 2)


def _self_add(*args):
    obj, a, b = args
    return obj.x + a + b


class _ClassFunction:
    add = _self_add

    def __init__(self, x):
        self.x = x


def c_m2_function_stored_on_class(x):
    return _ClassFunction(0.5).add(x, 2)


def c_m2_custom_tensor_attribute_set(x):
    y = x.clone()
    y.custom_attr = 3.5
    return y.custom_attr * y, hasattr(y, "custom_attr")


def c_m2_exception_then_local_update(x):
    y = x + 1
    try:
        raise RuntimeError("bad")
    except RuntimeError:
        y += 1
    return y


def c_m2_nested_grad_mode_blocks(x):
    w = x.clone().requires_grad_(True)
    with torch.set_grad_enabled(True):
        with torch.set_grad_enabled(False):
            a = w + 1
        with torch.set_grad_enabled(True):
            b = w + 1
    return a.requires_grad, b.requires_grad, (a + b).detach()


def c_m2_nested_bare_try(x):
    try:
        try:
            x = x + 1
        except Exception:
            pass
        try:
            try:
                x = x + 1
            except Exception:
                pass
        except Exception:
            pass
    except Exception:
        pass
    return x


def c_m2_try_inside_no_grad(x):
    w = x.clone().requires_grad_(True)
    with torch.set_grad_enabled(True):
        try:
            w = w + 1
        except Exception:
            pass
        try:
            with torch.no_grad():
                w = w * 2
        except Exception:
            pass
    return w.requires_grad, w.detach()


def _result_dtype(kind):
    return {bool: torch.float32, int: torch.int64}[kind]


def c_m2_dict_keyed_by_types(x):
    return torch.ones(3, dtype=_result_dtype(bool)) + x, torch.zeros(2, dtype=_result_dtype(int))


_DTYPES = {bool: torch.float32, int: torch.int64}


def c_m2_dict_of_types_lookup(x):
    out = x.cos() if _DTYPES[bool] is torch.float32 else x.sin()
    return out, _DTYPES[int] is torch.float32


def c_m2_size_plus_size(x):
    s = x.reshape(1, 3, 1).size()
    return s + s, type(s + s).__name__


def _adder_maker(fn):
    def wrapped(a, b):
        return fn(a, b) * 2

    return wrapped


def c_m2_wrapped_function_call(x):
    return _adder_maker(lambda a, b: a + b)(x, x + 1)


def c_m2_reshape_with_numpy_int(x):
    import numpy as np

    return x.repeat(4).reshape(np.int_(12)), x.reshape(int(np.int64(3)))


def c_m2_topk_with_tensor_k(x):
    k = torch.tensor(2, dtype=torch.int32)
    vals = torch.topk(x * 3, int(k), sorted=True)[0]
    return torch.ge(x, vals[..., -1]).float()


def c_m2_roll_by_shifts(x):
    grid = torch.outer(x, x + 1).reshape(1, 1, 3, 3)
    jitter = 2
    return torch.roll(torch.roll(grid, shifts=jitter - 1, dims=2), shifts=jitter + 1, dims=3)


def c_m2_permute_with_tensor_dims(x):
    t = torch.arange(24.0).reshape(2, 3, 4)
    order = torch.tensor([0, 2, 1])
    return t.permute(*order) + x.sum()


def c_m2_hasattr_on_module(x):
    return x * x if hasattr(torch.nn, "Module") else x + 1


def c_m2_hasattr_list_tuple(x):
    items = [x, x + 1]
    pair = (x, x * 2)
    a = items[0] + 1 if hasattr(items, "foo") else items[0] - 1
    b = pair[0] + 1 if hasattr(pair, "foo") else pair[1] - 1
    return a, b, hasattr(items, "__len__"), hasattr(pair, "count")


def _sine_plus(a, b):
    return torch.sin(a) + torch.cos(b)


def c_m2_hasattr_name_on_callables(x):
    lam = lambda v: v + 1  # noqa: E731 (a lambda's __name__ is the point)
    part = functools.partial(_sine_plus, b=4)
    return x + 1, hasattr(lam, "__name__"), hasattr(_sine_plus, "__name__"), hasattr(part, "__name__")


def c_m2_hasattr_on_constants(x):
    s, i, f = "hello", 42, 3.14
    flags = (hasattr(s, "upper"), hasattr(s, "nope"), hasattr(i, "bit_length"), hasattr(i, "nope"),
             hasattr(f, "is_integer"), hasattr(f, "nope"))
    return x + sum(flags), flags


class _FlagDescriptor:
    def __get__(self, instance, owner):
        return 1 if hasattr(owner, "flag") else 0


class _Flagged:
    flag = True
    prop = _FlagDescriptor()


class _Unflagged:
    prop = _FlagDescriptor()


def c_m2_descriptor_hasattr_owner(x):
    return x + _Flagged().prop, x + _Unflagged().prop


_REMAP = {torch.float16: torch.float32}


def c_m2_dtype_dict_keys(x):
    return torch.zeros(3, dtype=_REMAP[torch.float16]) + x, torch.float16 in _REMAP


def c_m2_set_of_two_tensors(x):
    y = x + 1
    s = {x, y}
    return s.pop() * s.pop(), len(s)


def c_m2_set_add_aliases(x):
    parts = [x, x, x, x + 1]
    seen = set()
    for p in parts:
        seen.add(p)
    return x * len(seen)


def c_m2_set_remove_int(x):
    s = set((4, 5))
    s.remove(4)
    return x * len(s), s


def c_m2_set_with_global_tensor(x):
    s = {_GLOBAL_T, x, x + 1, _GLOBAL_T}
    return x + len(s)


_GLOBAL_T = torch.ones(3)


def c_m2_fstring_with_shape(x):
    img = x.reshape(1, 1, 3, 1)
    msg = f"shape {img.shape[-2:]} batch size {img.shape[0]}"
    return img + torch.sin(img), msg


def c_m2_str_iter_next(x):
    s = "abc"
    return x + 1 if next(s.__iter__()) == "a" else x, list(iter(s))


def c_m2_str_format_shape_and_float(x):
    img = x.reshape(1, 3)
    msg = "shape {} batch size {y:.2f}".format(img.shape[-1:], y=img.shape[0])  # noqa: UP032 (str.format is the point)
    return img * 2, msg


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
