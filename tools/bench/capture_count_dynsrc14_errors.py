"""The ``_errors`` part of ``capture_count.py --only dynsrc14``: the constructs of PyTorch's
test/dynamo/test_error_messages.py (its messages are not compared), in the shapes torch.compile captures or breaks
on: a context manager object nested and handed in, a module whose class attribute is a Python module, a bound
method of an object made in the frame handed back, a dict's items view and a ``zip`` handed in and iterated, an
``lru_cache`` function called through a plain one, a custom op with a fake kernel, ``torch.ops.higher_order.wrap``
around a plain function, a call inside ``try``/``except``, a Python int argument changing between calls and a
class defined in the frame. Each is written afresh over one tensor.
"""

from __future__ import annotations

import functools
import math

import torch


class _Ctx:
    def __init__(self):
        self.entered = 0

    def __enter__(self):
        self.entered += 1
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        return None


def c_dynsrc14_nested_generic_ctx_no_break(x):
    with _Ctx() as a:
        with _Ctx():
            pass
        with _Ctx() as b:
            with _Ctx():
                y = x + a.entered + b.entered
    return y


def c_dynsrc14_ctx_object_handed_in(x, ctx):
    with ctx as entered:
        y = x * 2 + entered.entered
    return y, ctx.entered


c_dynsrc14_ctx_object_handed_in.extra_args = lambda: (_Ctx(),)


class _WithModuleAttr(torch.nn.Module):
    attr = math

    def forward(self, x):
        return x * self.attr.pi + self.attr.floor(2.5)


def c_dynsrc14_module_class_attr_is_module(x):
    return _WithModuleAttr()(x)


class _Meth:
    def __init__(self, k):
        self.k = k

    def meth(self):
        return self.k


def c_dynsrc14_bound_method_of_made_object_returned(x):
    m = _Meth(3).meth
    return x + m(), m.__func__, m.__self__.k


def c_dynsrc14_dict_items_handed_in(x, items):
    it = iter(items)
    first = next(it)
    return first, x.sin() + first[1]


c_dynsrc14_dict_items_handed_in.extra_args = lambda: ({"a": 3, "b": 4}.items(),)


def c_dynsrc14_zip_handed_in_comprehension(x, pairs):
    return [x + a + b for a, b in pairs]


c_dynsrc14_zip_handed_in_comprehension.extra_args = lambda: (zip(range(3), range(10)),)


@functools.lru_cache
def _cached_scale(n):
    return n * 2 + 1


def _through(x, n):
    return x * _cached_scale(n)


def c_dynsrc14_lru_cache_through_plain(x):
    return _through(x, 3) + _through(x, 4)


@torch.library.custom_op("dynsrc14::shifted_sin", mutates_args=())
def _shifted_sin(x: torch.Tensor, shift: float) -> torch.Tensor:
    return x.sin() + shift


@_shifted_sin.register_fake
def _(x, shift):
    return torch.empty_like(x)


def c_dynsrc14_custom_op_with_fake(x):
    return torch.ops.dynsrc14.shifted_sin(x, 1.5) * 2 + _shifted_sin(x, 0.5)


def _wrapped_inner(v):
    return v.sin() + 1


def c_dynsrc14_higher_order_wrap(x):
    return torch.ops.higher_order.wrap(_wrapped_inner, x) * 2


def _raises_or_not(v, bad):
    if bad:
        raise ValueError("bad")
    return v + 1


def c_dynsrc14_try_except_around_call(x):
    try:
        y = _raises_or_not(x, False)
    except Exception:
        y = x
    try:
        z = _raises_or_not(x, True)
    except ValueError as e:
        z = x * len(str(e))
    return y + z


def _add_n(x, n):
    return x + n


def c_dynsrc14_int_argument_changes_in_loop(x):
    for i in range(3):
        x = _add_n(x, i)
    return x


def c_dynsrc14_class_defined_in_frame(x):
    class Local:
        scale = 3

        def apply(self, v):
            return v * self.scale

    return Local().apply(x), Local.scale


def c_dynsrc14_checkpoint_pure_fn(x):
    def body(v):
        return v.sin() * 2

    return torch.utils.checkpoint.checkpoint(body, x, use_reentrant=False)


def c_dynsrc14_ctx_setattr_user_class(x):
    class Slot:
        def __setattr__(self, name, value):
            object.__setattr__(self, name, value * 2)

    s = Slot()
    s.attr = x
    return s.attr + 1


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
