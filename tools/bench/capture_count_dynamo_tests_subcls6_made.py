"""Tensor subclass objects made in the frame and torch-function switches, modelled on PyTorch's
test/dynamo/test_subclasses.py (``test_make_subclass``, ``test_return_subclass``, the GGUF parameter pattern,
``test_disable_all_torch_function``, ``test_subclass_with_disabled_torch_function``), for ``capture_count.py
--only dynamo_tests_subcls6``: ``torch.Tensor._make_subclass`` aliasing its data, the class called on a tensor,
a ``__new__``/``__init__`` pair keeping metadata, ``DisableTorchFunction`` blocks with and without modes, and
classes that switch ``__torch_function__`` off. Each program is written afresh over one small tensor.
"""

from __future__ import annotations

import torch
from torch.overrides import BaseTorchFunctionMode, TorchFunctionMode


class _Tagged(torch.Tensor):
    """Keeps a ``tag`` across ops, set by ``__init__`` and carried by ``__torch_function__``."""

    @staticmethod
    def __new__(cls, data, tag=0):
        return torch.Tensor._make_subclass(cls, data)

    def __init__(self, data, tag=0):
        self.tag = tag

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        out = super().__torch_function__(func, types, args, kwargs or {})
        tag = next((a.tag for a in args if isinstance(a, _Tagged) and hasattr(a, "tag")), 0)
        if isinstance(out, torch.Tensor) and not isinstance(out, _Tagged):
            return out
        if isinstance(out, _Tagged):
            out.tag = tag
        return out


class _Bare(torch.Tensor):
    pass


class _Watch(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)


class _Silent(torch.Tensor):
    __torch_function__ = torch._C._disabled_torch_function_impl

    def doubled(self):
        return self * 2


class _ZeroAdd(BaseTorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.add:
            return torch.zeros_like(args[0])
        return super().__torch_function__(func, types, args, kwargs)


class _Count(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.n = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.n += 1
        return func(*args, **(kwargs or {}))


# -- _make_subclass and the class called ------------------------------------------------------------------
def c_sc6d_make_subclass_aliases_data(x):
    base = x.clone()
    y = torch.Tensor._make_subclass(_Bare, base)
    z = torch.Tensor._make_subclass(torch.Tensor, base)
    base += 1
    y += 2
    z += 3
    return base * y + z, type(y).__name__, type(z).__name__


def c_sc6d_make_subclass_of_input_mutated(x):
    y = torch.Tensor._make_subclass(_Watch, x)
    y.mul_(2)
    return x + 0, y


def c_sc6d_make_subclass_detaches(x):
    w = x.clone().requires_grad_(True)
    y = torch.Tensor._make_subclass(_Watch, w * 2)
    return y.requires_grad, y.grad_fn is None, y.is_leaf, y + 1


def c_sc6d_make_subclass_require_grad(x):
    y = torch.Tensor._make_subclass(_Bare, x.clone(), True)
    return y.requires_grad, y * 2


def c_sc6d_class_called_on_tensor(x):
    t = _Watch(x * 2)
    return t + 1, isinstance(t, _Watch)


def c_sc6d_class_called_with_list(x):
    t = _Bare([1.0, 2.0, 3.0])
    return x + t


def c_sc6d_new_and_init_keep_tag(x):
    t = _Tagged(x.clone(), tag=3)
    u = t * 2
    return u, u.tag, t.tag, type(u).__name__


def c_sc6d_tag_read_into_math(x):
    t = _Tagged(x + 1, tag=4)
    return (t * t.tag).sum(), t.tag


def c_sc6d_made_subclass_returned_with_attr(x):
    t = _Bare(x.clone())
    t.note = "n"
    return t, t.note


def c_sc6d_subclass_made_in_helper(x):
    def wrap(v):
        return _Watch(v)

    a = wrap(x)
    b = wrap(x + 1)
    return a * b, type(a * b).__name__


# -- torch-function switches ----------------------------------------------------------------------------
def c_sc6d_disable_all_subclass_gives_plain(x):
    t = x.as_subclass(_Watch)
    with torch._C.DisableTorchFunction():
        r = t + 1
    return r, type(r).__name__, type(t + 1).__name__


def c_sc6d_disable_all_inside_mode(x):
    with _ZeroAdd():
        with torch._C.DisableTorchFunction():
            a = torch.add(x, 1)
            n = torch._C._len_torch_function_stack()
            on = torch._C._is_torch_function_mode_enabled()
        b = torch.add(x, 1)
    return a, b, n, on


def c_sc6d_disable_all_then_subclass_nested(x):
    with torch._C.DisableTorchFunction():
        with torch._C.DisableTorchFunctionSubclass():
            inner = torch._C._is_torch_function_all_disabled()
        after = torch._C._is_torch_function_all_disabled()
    return x + 1, inner, after, torch._C._is_torch_function_all_disabled()


def c_sc6d_subclass_then_disable_all_nested(x):
    with torch._C.DisableTorchFunctionSubclass():
        with torch._C.DisableTorchFunction():
            inner = torch._C._is_torch_function_all_disabled()
        after = torch._C._is_torch_function_all_disabled()
        on = torch._C._is_torch_function_enabled()
    return x * 2, inner, after, on


def c_sc6d_mode_entered_inside_disable_all(x):
    with torch._C.DisableTorchFunction():
        with _ZeroAdd():
            a = torch.add(x, 1)
    return a


def c_sc6d_mode_pushed_inside_disable_all_outlives_it(x):
    m = _ZeroAdd()
    with torch._C.DisableTorchFunction():
        torch._C._push_on_torch_function_stack(m)
        inside = torch.add(x, 1)
    after = torch.add(x, 1)
    torch._C._pop_torch_function_stack()
    return inside, after, torch.add(x, 1)


def c_sc6d_mode_inside_disable_all_with_break(x):
    with torch._C.DisableTorchFunction():
        with _Count() as m:
            a = x + 1
            print("", end="")
            b = a * 2
    return b, m.n


def c_sc6d_disable_all_counting_mode(x):
    with _Count() as m:
        a = x.sin()
        with torch._C.DisableTorchFunction():
            b = x.cos()
        c = a + b
    return c, m.n


def c_sc6d_disable_all_has_torch_function(x):
    t = x.as_subclass(_Watch)
    with torch._C.DisableTorchFunction():
        inside = torch.overrides.has_torch_function_unary(t)
    return x + 1, inside, torch.overrides.has_torch_function_unary(t)


def c_sc6d_disable_all_break_inside(x):
    with torch._C.DisableTorchFunction():
        a = x + 1
        print("", end="")
        b = a * torch._C._is_torch_function_all_disabled()
    return b, torch._C._is_torch_function_all_disabled()


def c_sc6d_disable_all_exception_restores(x):
    try:
        with torch._C.DisableTorchFunction():
            raise KeyError("k")
    except KeyError:
        pass
    return x + 1, torch._C._is_torch_function_all_disabled()


# -- classes that switch __torch_function__ off ----------------------------------------------------------
def c_sc6d_silent_class_returned(x):
    t = (x + 1).as_subclass(_Silent)
    return t, type(t).__name__, type(t * 1).__name__


def c_sc6d_silent_user_method(x):
    t = x.as_subclass(_Silent)
    return t.doubled(), torch.overrides.has_torch_function_unary(t)


def c_sc6d_silent_made_by_class(x):
    t = _Silent(x.clone())
    return t.sum(), type(t).__name__


def c_sc6d_silent_with_watch(x):
    a = x.as_subclass(_Silent)
    b = x.as_subclass(_Watch)
    r = a + b
    return r, type(r).__name__


# -- super() on a subclass's tensors ---------------------------------------------------------------------
class _Override(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.made = True

    def add(self, other, alpha=1):
        return super().add(other, alpha=alpha) * 10

    def mean(self):
        return super().mean() + 1

    @property
    def shape(self):
        return super().shape


class _OverrideChild(_Override):
    def add(self, other, alpha=1):
        return super().add(other, alpha=alpha) - 1


def c_sc6d_super_method_past_override(x):
    t = x.as_subclass(_Override)
    return t.add(1), t.mean(), torch.add(t, 1)


def c_sc6d_super_chain_two_classes(x):
    t = x.as_subclass(_OverrideChild)
    return t.add(2, alpha=3)


def c_sc6d_super_init_noop(x):
    t = _Override(x.clone())
    return t * 2, t.made


def c_sc6d_super_attribute_breaks(x):
    t = x.as_subclass(_Override)
    return x + t.shape[0]


class _Namer(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return super().__torch_function__(func, types, args, kwargs)

    @classmethod
    def label(cls):
        return cls.__name__


class _NamerChild(_Namer):
    pass


def c_sc6d_inherited_classmethod_binds_own_class(x):
    t = x.as_subclass(_NamerChild)
    return x + 1, t.label(), (t * 2).label()


# -- iteration over subclass tensors and the length hint ------------------------------------------------
class _Calls(torch.Tensor):
    names: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.names.append(getattr(func, "__name__", "?"))
        return super().__torch_function__(func, types, args, kwargs)


class _NamesMode(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(getattr(func, "__name__", "?"))
        return func(*args, **(kwargs or {}))


def c_sc6d_subclass_list_and_unpack(x):
    _Calls.names = []
    t = x.as_subclass(_Calls)
    items = list(t)
    a, b, c = t
    return items, a + c, type(b).__name__, list(_Calls.names)


def c_sc6d_subclass_loop_and_star(x):
    _Calls.names = []
    t = x.as_subclass(_Calls)
    total = 0
    for row in t:
        total = total + row
    return total, [*t], tuple(t), list(_Calls.names)


def c_sc6d_subclass_zero_dim_iteration(x):
    t = x.sum().as_subclass(_Calls)
    try:
        list(t)
    except TypeError as e:
        return x + 1, str(e)
    return x


def c_sc6d_mode_sees_length_hint(x):
    with _NamesMode() as m:
        a = list(x)
        b = tuple(x)
        c = [*x]
        d = sorted(x[:1])
    return a, b, c, d, m.names


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
