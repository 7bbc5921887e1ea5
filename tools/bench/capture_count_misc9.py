"""Constructs where loom broke and torch.compile does not (misc9), for ``capture_count.py --only misc9``: the
truth of a tensor whose element count is known not to be one (eager raises without reading a value);
``torch.overrides.redispatch_function``'s one-hop skip of a torch-function check; class
statements with keywords and a user's ``__init_subclass__`` that writes only into the new class; ``types.new_class`` with
``exec_body``; ``Cls.__subclasses__()``; ``decimal.Decimal``
constants and exact arithmetic on them (guarded on the decimal context).
Each is written afresh over one tensor (``torch.arange(3.0)``)."""

from __future__ import annotations

import types
from decimal import Decimal

import torch
from torch.overrides import TorchFunctionMode


# -- item 1: the truth of a tensor with no or several elements raises ---------------------------------------------
def c_m9_tensor_in_list_raises(x):
    y = x.clone()
    try:
        r = y in [x]
    except RuntimeError as e:
        r = str(e)
    return x + 1, r, x in [x]


def c_m9_if_tensor_raises(x):
    try:
        if x:
            return x + 1
        return x - 1
    except RuntimeError as e:
        return x * 2, str(e)


def c_m9_bool_not_and_or_of_tensor_raise(x):
    out = []
    for thunk in (lambda: bool(x), lambda: not x, lambda: x and 1, lambda: x or 1, lambda: 0 < x < 5):
        try:
            out.append(thunk())
        except RuntimeError as e:
            out.append(str(e))
    return x - 1, out


def c_m9_empty_tensor_truth_raises(x):
    e = x[:0]
    try:
        return bool(e)
    except RuntimeError as err:
        return x + 2, str(err), type(err).__name__


def c_m9_list_eq_index_count_raise(x):
    out = []
    for thunk in (lambda: [x] == [x.clone()], lambda: [x].index(x.clone()), lambda: (x,).count(x + 0)):
        try:
            out.append(thunk())
        except RuntimeError as e:
            out.append(str(e))
    return x * 3, out


def c_m9_one_element_tensor_truth_branches(x):
    s = x.sum().reshape(1)
    return (x + 1) if s else (x - 1), x[:1].clone() in [x[:1]]


# -- item 2: redispatch_function skips the next torch-function check once -------------------------------------------
class _Redispatching(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return torch.overrides.redispatch_function(func, types, args, kwargs or {})


def _peeking(a, b):
    before = torch._C._peek_should_skip_torch_function()
    if torch.overrides.has_torch_function((a, b)):
        return torch.overrides.handle_torch_function(_peeking, (a, b), a, b)
    return a * b, before, torch._C._peek_should_skip_torch_function()


def c_m9_redispatch_peeks_inside_the_hop(x):
    a = x.as_subclass(_Redispatching)
    r, before, after = _peeking(a, x)
    return r, type(r).__name__, before, after, torch._C._peek_should_skip_torch_function()


def c_m9_redispatch_method_gives_plain_tensor(x):
    a = x.as_subclass(_Redispatching)
    b = a.sin() + a
    return b, type(b).__name__, type(a.cos()).__name__


class _LoggingMode(TorchFunctionMode):
    def __init__(self):
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(getattr(func, "__name__", "?"))
        with self:
            return torch.overrides.redispatch_function(func, types, args, kwargs or {})


def c_m9_redispatch_in_a_mode(x):
    mode = _LoggingMode()
    with mode:
        y = torch.mul(x, 2) + 1
    return y, mode.names


def c_m9_skip_unused_and_twice_raise(x):
    out = []
    for fn in (lambda: 3, lambda: torch._C._skip_one_hop_torch_function(lambda: 3, (), (), {})):
        try:
            out.append(torch._C._skip_one_hop_torch_function(fn, (), (), {}))
        except RuntimeError as e:
            out.append(str(e))
    return x + 1, out, torch._C._peek_should_skip_torch_function()


# -- item 3: class statements with keywords, a user's __init_subclass__ ---------------------------------------------
class _Scaled:
    def __init_subclass__(cls, scale=1, **kw):
        super().__init_subclass__(**kw)
        cls.scale = scale


class _Labelled(_Scaled):
    def __init_subclass__(cls, label="x", **kw):
        super().__init_subclass__(**kw)
        cls.label = label


def c_m9_class_keywords_to_init_subclass(x):
    class Local(_Scaled, scale=5):
        pass

    return x * Local.scale, Local.__name__


def c_m9_class_keywords_through_two_hooks(x):
    class Local(_Labelled, scale=2, label="lab"):
        def twice(self, t):
            return t * 2

    return Local().twice(x) * Local.scale, Local.label


def c_m9_class_on_a_hooked_base_without_keywords(x):
    class Local(_Labelled):
        pass

    return x + Local.scale, Local.label, issubclass(Local, _Scaled)


def c_m9_class_keyword_no_hook_takes_raises(x):
    try:
        class Local(zz=1):
            pass
    except TypeError as e:
        return x - 1, str(e)
    return x


def c_m9_types_new_class_exec_body(x):
    def body(ns):
        ns["k"] = 3
        ns["scaled"] = lambda self, t: t * self.k

    klass = types.new_class("Made", (), exec_body=body)
    return klass().scaled(x), klass.__module__, klass.__name__


class _Registry9:
    def __init_subclass__(cls, tag="", **kw):
        super().__init_subclass__(**kw)
        cls.tag = tag


class _Plugin9(_Registry9, tag="plug"):
    pass


def c_m9_subclasses_of_a_global_class(x):
    found = _Registry9.__subclasses__()
    return x * len(found) + len(found[0].tag), [k.__name__ for k in found]


# -- item 4: decimal.Decimal from constants ---------------------------------------------------------------------
def c_m9_decimal_exact_arithmetic(x):
    total = Decimal("0.1") + Decimal("0.2") * 3
    return x * float(total), total == Decimal("0.7"), int(Decimal("-2.5")), Decimal(10) > 9


def c_m9_decimal_inexact_quotient_breaks(x):
    return x + 1, Decimal(2) / Decimal(7)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_") and fn.__module__ == __name__]
