"""Tensor subclasses with a Python ``__torch_function__``, modelled on PyTorch's test/dynamo/test_subclasses.py,
for ``capture_count.py --only dynamo_tests_subcls6``: subclasses made in the frame (``as_subclass``,
``_make_subclass``, the class called) and handed in, classmethod overrides that pass through, swap or rescale
ops, class attributes and properties, overridden methods, ``isinstance``/``type()`` of results, attributes set on
a subclass tensor in the frame, and ``torch._C.DisableTorchFunctionSubclass``. Its part ``_modes`` follows
test/dynamo/test_modes.py (function modes entered inside and outside the frame, the mode stack, the
``torch.overrides`` helpers, parametrizations). Each program is written afresh over one small tensor.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


class _Pass(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)


class _SigToExp(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.Tensor.sigmoid or func is torch.sigmoid:
            func = torch.Tensor.exp
        return super().__torch_function__(func, types, args, kwargs)


class _FakeNDim(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.Tensor.ndim.__get__:
            return 7
        return super().__torch_function__(func, types, args, kwargs)


class _WithAttrs(torch.Tensor):
    scale: int = 5
    tag = "w"

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)


class _Doubler(torch.Tensor):
    """Every ``torch.add`` result doubled; made through ``_make_subclass`` in ``__new__``."""

    @staticmethod
    def __new__(cls, data):
        return torch.Tensor._make_subclass(cls, data)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        raw = super().__torch_function__(func, types, args, kwargs or {})
        if func is torch.add and isinstance(raw, torch.Tensor):
            return raw * 2.0
        return raw


class _Plain(torch.Tensor):
    pass


class _Logged(torch.Tensor):
    seen: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.seen.append(getattr(func, "__name__", "?"))
        return super().__torch_function__(func, types, args, kwargs)


class _Child(_Pass):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        out = super().__torch_function__(func, types, args, kwargs)
        if func is torch.mul:
            return out + 100
        return out


class _Unwrapping(torch.Tensor):
    """Runs every op with subclass dispatch off: the results are plain tensors."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        with torch._C.DisableTorchFunctionSubclass():
            return func(*args, **(kwargs or {}))


class _Other(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)


class _OffTF(torch.Tensor):
    __torch_function__ = torch._C._disabled_torch_function_impl


class _Methods(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)

    def twice(self):
        return self * 2

    @property
    def halved(self):
        return self / 2

    def sum(self, dim=None, keepdim=False):
        return super().sum().as_subclass(_Methods) + 1


# -- made in the frame, ops on them -------------------------------------------------------------------------
def c_sc6_as_subclass_add(x):
    t = x.as_subclass(_Pass)
    return torch.add(t, 1.5)


def c_sc6_as_subclass_method_chain(x):
    t = x.as_subclass(_Pass)
    return t.sin().cos() * 2


def c_sc6_as_subclass_result_type_checks(x):
    t = (x + 1).as_subclass(_Pass)
    r = t * 3
    return r, isinstance(r, _Pass), type(r) is _Pass, type(r).__name__


def c_sc6_sigmoid_swapped_for_exp(x):
    t = x.as_subclass(_SigToExp)
    return t.sigmoid(), torch.sigmoid(t)


def c_sc6_ndim_read_overridden(x):
    t = x.as_subclass(_FakeNDim)
    return x + t.ndim


def c_sc6_class_attributes_read(x):
    t = x.as_subclass(_WithAttrs)
    return x * t.scale, t.tag


def c_sc6_make_subclass_in_frame(x):
    t = torch.Tensor._make_subclass(_Pass, x.clone())
    return t + 1, type(t).__name__


def c_sc6_constructor_with_make_subclass(x):
    a = _Doubler(x.clone())
    b = _Doubler(torch.ones(3))
    return torch.add(a, b), torch.sub(a, b)


def c_sc6_constructor_plain_subclass(x):
    t = _Plain(x + 1)
    return t * 2, type(t * 2) is _Plain


def c_sc6_plain_subclass_ops_keep_class(x):
    t = x.as_subclass(_Plain)
    u = torch.relu(t - 1).sum()
    return u, type(u).__name__


def c_sc6_attribute_set_on_new_subclass(x):
    t = x.clone().as_subclass(_Plain)
    t.bar = 4
    return t, t * t.bar


def c_sc6_subclass_with_mixed_plain(x):
    t = x.as_subclass(_Pass)
    y = torch.ones(3)
    return t + y, y * t, torch.cat([y, t])


def c_sc6_inherited_torch_function(x):
    t = x.as_subclass(_Child)
    return torch.mul(t, 2), torch.add(t, 2)


def c_sc6_unwrapping_gives_plain(x):
    t = x.as_subclass(_Unwrapping)
    r = t + 1
    return r, type(r) is torch.Tensor


def c_sc6_disabled_impl_subclass(x):
    t = x.as_subclass(_OffTF)
    r = t.t() + 1
    return r, type(r).__name__


def c_sc6_user_method_and_property(x):
    t = x.as_subclass(_Methods)
    return t.twice(), t.halved


def c_sc6_overridden_sum(x):
    t = x.as_subclass(_Methods)
    return t.sum()


def c_sc6_as_subclass_back_to_tensor(x):
    t = x.as_subclass(_Pass) * 2
    p = t.as_subclass(torch.Tensor)
    return p + 1, type(p) is torch.Tensor


def c_sc6_kwargs_passed_through(x):
    t = x.as_subclass(_Pass)
    return torch.add(t, 1.0, alpha=3.0), t.sub(1, alpha=2)


def c_sc6_inplace_on_subclass(x):
    t = x.clone().as_subclass(_Pass)
    t.add_(2)
    t.mul_(3)
    return t


def c_sc6_functional_on_subclass(x):
    t = x.as_subclass(_Pass)
    return F.relu(t - 1), F.softmax(t, dim=0)


def c_sc6_shape_and_size_reads(x):
    t = x.as_subclass(_Pass)
    return x + t.shape[0] + t.size(0) + t.dim(), len(t)


def c_sc6_logged_funcs(x):
    _Logged.seen = []
    t = x.as_subclass(_Logged)
    y = t.exp()
    z = torch.neg(y)
    return z, list(_Logged.seen)


def c_sc6_class_check_branches(x):
    t = x.as_subclass(_Pass)
    if isinstance(t, _Pass):
        r = t + 1
    else:
        r = t - 1
    if type(x) is _Pass:
        r = r * 100
    return r


def c_sc6_issubclass_of_type(x):
    t = x.as_subclass(_Child)
    return x + 1, issubclass(type(t), _Pass), issubclass(type(t * 1), torch.Tensor)


def c_sc6_disable_subclass_ctx_in_frame(x):
    t = x.as_subclass(_Pass)
    with torch._C.DisableTorchFunctionSubclass():
        r = t + 1
        on = torch._C._is_torch_function_enabled()
    return r, type(r).__name__, on, torch._C._is_torch_function_enabled()


def c_sc6_disable_subclass_nested(x):
    with torch._C.DisableTorchFunctionSubclass():
        with torch._C.DisableTorchFunctionSubclass():
            y = x + 1
        inner = torch._C._is_torch_function_enabled()
    return y, inner, torch._C._is_torch_function_enabled()


def c_sc6_disable_all_torch_function(x):
    with torch._C.DisableTorchFunction():
        flag = torch._C._is_torch_function_all_disabled()
        y = x * 2
    return y, flag, torch._C._is_torch_function_all_disabled()


def c_sc6_doubler_under_disable(x):
    a = _Doubler(x.clone())
    with torch._C.DisableTorchFunctionSubclass():
        plain = torch.add(a, 1)
    return plain, torch.add(a, 1)


def c_sc6_subclass_in_container(x):
    t = x.as_subclass(_Pass)
    out = {"a": t + 1, "b": [t * 2, x]}
    return out, type(out["b"][0]).__name__


def c_sc6_subclass_stack_list(x):
    t = x.as_subclass(_Pass)
    return torch.stack([t, t + 1]), torch.cat((t, x))


def c_sc6_subclass_under_no_grad(x):
    t = x.as_subclass(_Pass)
    with torch.no_grad():
        r = t * 2
    return r, r.requires_grad


def c_sc6_subclass_item_and_tolist(x):
    t = x.as_subclass(_Pass)
    return x + t.sum().item(), t.tolist()


def c_sc6_two_subclasses_mixed(x):
    a = x.as_subclass(_Pass)
    b = x.as_subclass(_Other)
    return a + b


def c_sc6_subclass_comparisons(x):
    t = x.as_subclass(_Pass)
    m = t > 1
    return m, torch.where(m, t, -t)


# -- handed in --------------------------------------------------------------------------------------------
def c_sc6_handed_in_passthrough(x, t):
    return torch.add(t, x), t.exp()


c_sc6_handed_in_passthrough.extra_args = lambda: (torch.ones(3).as_subclass(_Pass),)


def c_sc6_handed_in_doubler(x, t):
    return torch.add(t, x) - x


c_sc6_handed_in_doubler.extra_args = lambda: (_Doubler(torch.full((3,), 2.0)),)


def c_sc6_handed_in_attribute_read(x, t):
    return x * t.qscale + t


def _quantish():
    t = torch.ones(3).as_subclass(_Plain)
    t.qscale = 3
    return (t,)


c_sc6_handed_in_attribute_read.extra_args = _quantish


def c_sc6_handed_in_attribute_written(x, t):
    t.note = 9
    return t + x


c_sc6_handed_in_attribute_written.extra_args = lambda: (torch.ones(3).as_subclass(_Pass),)


def c_sc6_handed_in_type_name(x, t):
    return x + 1, type(t).__name__, isinstance(t, _Pass)


c_sc6_handed_in_type_name.extra_args = lambda: (torch.zeros(3).as_subclass(_Child),)


def c_sc6_handed_in_sigmoid(x, t):
    return t.sigmoid() + x


c_sc6_handed_in_sigmoid.extra_args = lambda: (torch.zeros(3).as_subclass(_SigToExp),)


def c_sc6_handed_in_parameter_subclass(x, p):
    q = p.t()
    return q.T + x


class _ParamKind(torch.nn.Parameter):
    pass


c_sc6_handed_in_parameter_subclass.extra_args = lambda: (_ParamKind(torch.ones(3)),)


# -- more shapes of test_subclasses.py -------------------------------------------------------------------
class _AddIsSub(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.Tensor.add_:
            func = torch.Tensor.sub_
        return super().__torch_function__(func, types, args, kwargs)


class _NDimTen(torch.Tensor):
    ndim = 10

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)


class _NDimProperty(torch.Tensor):
    def __init__(self, *args, **kwargs):
        self._nd = 6

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)

    @property
    def ndim(self):
        return self._nd


class _CloneTwice(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        with torch._C.DisableTorchFunctionSubclass():
            out = func(*args, **(kwargs or {}))
            return out * 2 if func is torch.clone else out


class _ToOverride(torch.Tensor):
    def to(self, device):
        return self * len(device)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)


class _Holds(torch.Tensor):
    @staticmethod
    def __new__(cls, elem):
        r = torch.Tensor._make_subclass(cls, torch.ones(0))
        r.elem = elem
        return r


class _Redispatching(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return torch.overrides.redispatch_function(func, types, args, kwargs or {})


def _plus(a, b):
    if torch.overrides.has_torch_function((a, b)):
        return torch.overrides.handle_torch_function(_plus, (a, b), a, b)
    return a + b


def c_sc6_inplace_method_swapped_on_argument(x):
    a = x.clone()
    w = torch.ones(3).as_subclass(_AddIsSub)
    a.add_(w)
    return a


def c_sc6_class_attribute_shadows_tensor_attr(x):
    t = x.as_subclass(_NDimTen)
    return x + t.ndim


def c_sc6_property_set_by_init(x):
    t = _NDimProperty(x.clone())
    return t + t.ndim


def c_sc6_disabled_inside_torch_function(x):
    t = x.as_subclass(_CloneTwice)
    return torch.clone(t), t.neg()


def c_sc6_overridden_to_not_handed(x):
    t = x.as_subclass(_ToOverride)
    return t.to("cpu")


def c_sc6_new_keeps_elem(x, t):
    return _Holds(t.elem.clone() + x)


c_sc6_new_keeps_elem.extra_args = lambda: (_Holds(torch.ones(3)),)


def c_sc6_redispatch_function(x):
    a = x.as_subclass(_Redispatching)
    return _plus(a, a * 2)


def _plus_break_after(a, b):
    if torch.overrides.has_torch_function((a, b)):
        return torch.overrides.handle_torch_function(_plus_break_after, (a, b), a, b)
    print("", end="")
    return a + b


def _plus_break_before(a, b):
    print("", end="")
    if torch.overrides.has_torch_function((a, b)):
        return torch.overrides.handle_torch_function(_plus_break_before, (a, b), a, b)
    return a - b


def c_sc6_redispatch_break_after_check(x):
    a = x.as_subclass(_Redispatching)
    r = _plus_break_after(a, a)
    return r, torch._C._peek_should_skip_torch_function()


def c_sc6_redispatch_break_before_check(x):
    a = x.as_subclass(_Redispatching)
    r = _plus_break_before(a * 3, a)
    return r, torch._C._peek_should_skip_torch_function()


def c_sc6_redispatch_twice(x):
    a = x.as_subclass(_Redispatching)
    return _plus(a, a), _plus(a, x)


def c_sc6_type_identity_checks(x):
    t = x.as_subclass(_NDimTen)
    return x + 1, type(t) is _NDimTen, type(x) is _NDimTen, t.__class__.__name__


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
