"""Torch function modes and ``torch.overrides`` helpers, modelled on PyTorch's test/dynamo/test_modes.py and
the torch-function parts of test_subclasses.py, for ``capture_count.py --only dynamo_tests_subcls6``: modes
entered in the frame and pushed before it (through ``extra_args``), nested modes and their priority over a
subclass, the mode stack popped and pushed, a mode's state, ``has_torch_function``/``handle_torch_function``
on a function of the program's own, ``get_default_nowrap_functions``, and ``torch.nn.utils.parametrize``. Each
program is written afresh over one small tensor.
"""

from __future__ import annotations

import torch
import torch.nn.utils.parametrize as parametrize
from torch.overrides import BaseTorchFunctionMode, TorchFunctionMode


class _ZeroAdd(BaseTorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.add:
            return torch.zeros_like(args[0])
        return super().__torch_function__(func, types, args, kwargs)


class _OneMul(BaseTorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.mul:
            return torch.ones_like(args[0])
        return super().__torch_function__(func, types, args, kwargs)


class _Tally(TorchFunctionMode):
    def __init__(self, step=1):
        super().__init__()
        self.total = 0
        self.step = step

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.total += self.step
        return func(*args, **(kwargs or {}))


class _Names(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(getattr(func, "__name__", "?"))
        return func(*args, **(kwargs or {}))


class _AlphaTwo(BaseTorchFunctionMode):
    """Adds ``alpha=2`` to every ``torch.add`` without one."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func is torch.add and "alpha" not in kwargs:
            kwargs["alpha"] = 2
        return super().__torch_function__(func, types, args, kwargs)


class _SinIsCos(BaseTorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.sin:
            func = torch.Tensor.cos
        elif func is torch.sin:
            func = torch.cos
        return super().__torch_function__(func, types, args, kwargs)


class _Marking(BaseTorchFunctionMode):
    """Records its own entry and exit."""

    def __init__(self, log):
        super().__init__()
        self.log = log

    def __enter__(self):
        self.log.append("in")
        return super().__enter__()

    def __exit__(self, *exc):
        self.log.append("out")
        return super().__exit__(*exc)


class _Sub(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.add:
            return torch.full_like(args[0].as_subclass(torch.Tensor), 5.0)
        return super().__torch_function__(func, types, args, kwargs)


def _pushed(mode):
    """``extra_args`` that push ``mode`` before the call: a mode entered outside the compiled frame (the runner
    pops what is left after the call)."""
    def make():
        torch._C._push_on_torch_function_stack(mode)
        return ()
    return make


# -- entered in the frame ---------------------------------------------------------------------------------
def c_sc6m_mode_replaces_add(x):
    with _ZeroAdd():
        a = torch.add(x, 4)
        b = torch.sub(x, 1)
    return a, b, torch.add(x, 4)


def c_sc6m_modes_nested_both_apply(x):
    with _ZeroAdd():
        with _OneMul():
            r = torch.mul(x, 3) + torch.add(x, 2)
    return r


def c_sc6m_mode_tally(x):
    with _Tally(step=2) as m:
        y = x.sin() + torch.cos(x)
    return y, m.total


def c_sc6m_mode_names(x):
    with _Names() as m:
        torch.relu(x - 1).sum()
    return x + len(m.names), m.names


def c_sc6m_mode_adds_kwarg(x):
    with _AlphaTwo():
        y = torch.add(x, torch.ones(3))
        z = torch.add(x, 1, alpha=5)
    return y, z


def c_sc6m_mode_method_swapped(x):
    with _SinIsCos():
        a = x.sin()
        b = torch.sin(x)
    return a, b, x.sin()


def c_sc6m_mode_enter_exit_overridden(x):
    log = []
    with _Marking(log):
        y = x * 2
    return y, log


def c_sc6m_mode_exception_in_block(x):
    m = _Tally()
    try:
        with m:
            y = x + 1
            raise ValueError("stop")
    except ValueError:
        y = x - 1
    return y, m.total, torch._C._len_torch_function_stack()


def c_sc6m_mode_stack_len_inside(x):
    with _ZeroAdd(), _Tally():
        n = torch._C._len_torch_function_stack()
    return x + n


def c_sc6m_mode_stack_listed(x):
    with _OneMul():
        stack = torch.overrides._get_current_function_mode_stack()
    return x + len(stack), [type(m).__name__ for m in stack]


def c_sc6m_mode_popped_and_pushed(x):
    with _ZeroAdd():
        m = torch._C._pop_torch_function_stack()
        a = torch.add(x, 1)
        torch._C._push_on_torch_function_stack(m)
        b = torch.add(x, 1)
    return a, b


def c_sc6m_mode_made_and_mutated(x):
    m = _Tally()
    m.extra = 3
    with m:
        y = x + m.extra
    return y, m.total, m.extra


def c_sc6m_mode_over_subclass(x):
    t = x.as_subclass(_Sub)
    with _ZeroAdd():
        a = torch.add(t, 1)
    return a, torch.add(t, 1)


def c_sc6m_mode_with_disable_subclass(x):
    t = x.as_subclass(_Sub)
    with _Tally() as m:
        with torch._C.DisableTorchFunctionSubclass():
            r = torch.add(t, 1)
    return r, m.total


def c_sc6m_mode_with_disable_all(x):
    with _Tally() as m:
        with torch._C.DisableTorchFunction():
            r = x * 3
        s = x * 3
    return r + s, m.total


def c_sc6m_mode_operator_calls(x):
    with _Names() as m:
        y = (x + 1) * x - 2
    return y, m.names


def c_sc6m_mode_attribute_reads(x):
    with _Names() as m:
        n = x.shape[0] + x.dim()
    return x + n, m.names


def c_sc6m_mode_factory_calls(x):
    with _Tally() as m:
        z = torch.zeros(3) + torch.ones(3)
    return z + x, m.total


def c_sc6m_mode_returns_constant(x):
    class Fixed(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return 11

    with Fixed():
        got = torch.mul(x, 2)
    return x + got


def c_sc6m_base_mode_noop(x):
    with BaseTorchFunctionMode():
        y = torch.add(x, 1) * 2
    return y


def c_sc6m_mode_used_twice(x):
    m = _Tally()
    with m:
        a = x + 1
    with m:
        b = a * 2
    return b, m.total


def c_sc6m_mode_in_helper(x):
    def helper(t):
        with _ZeroAdd():
            return torch.add(t, 1)

    return helper(x) + helper(x * 2)


def c_sc6m_local_mode_class(x):
    class NegAll(BaseTorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = super().__torch_function__(func, types, args, kwargs)
            return -out if isinstance(out, torch.Tensor) else out

    with NegAll():
        y = torch.exp(x)
    return y


# -- pushed before the frame -----------------------------------------------------------------------------
def c_sc6m_outside_mode_replaces_add(x):
    return torch.add(x, 1), torch.mul(x, 2)


c_sc6m_outside_mode_replaces_add.extra_args = _pushed(_ZeroAdd())


def c_sc6m_outside_mode_stack_len(x):
    return x + torch._C._len_torch_function_stack()


c_sc6m_outside_mode_stack_len.extra_args = _pushed(BaseTorchFunctionMode())


def c_sc6m_outside_mode_popped_in_frame(x):
    m = torch._C._pop_torch_function_stack()
    y = torch.add(x, 1)
    torch._C._push_on_torch_function_stack(m)
    return y, type(m).__name__


c_sc6m_outside_mode_popped_in_frame.extra_args = _pushed(_ZeroAdd())


def c_sc6m_outside_and_inside_nested(x):
    with _OneMul():
        r = torch.mul(x, 3) + torch.add(x, 3)
    return r


c_sc6m_outside_and_inside_nested.extra_args = _pushed(_ZeroAdd())


# -- torch.overrides helpers ------------------------------------------------------------------------------
def _scaled_sum(a, b):
    if torch.overrides.has_torch_function((a, b)):
        return torch.overrides.handle_torch_function(_scaled_sum, (a, b), a, b)
    return (a + b).sum()


class _Hands(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is _scaled_sum:
            return args[0].as_subclass(torch.Tensor) * 0 + 42
        return super().__torch_function__(func, types, args, kwargs)


def c_sc6m_has_torch_function_plain(x):
    return x + 1, torch.overrides.has_torch_function((x,)), torch.overrides.has_torch_function_unary(x)


def c_sc6m_has_torch_function_subclass(x):
    t = x.as_subclass(_Hands)
    return x + 1, torch.overrides.has_torch_function_unary(t), torch.overrides.has_torch_function_variadic(x, t)


def c_sc6m_handle_torch_function_plain(x):
    return _scaled_sum(x, x * 2)


def c_sc6m_handle_torch_function_subclass(x):
    return _scaled_sum(x.as_subclass(_Hands), x)


def c_sc6m_default_nowrap_membership(x):
    nowrap = torch.overrides.get_default_nowrap_functions()
    return x + 1, torch.Tensor._base.__get__ in nowrap, torch.add in nowrap


def c_sc6m_is_tensor_like(x):
    t = x.as_subclass(_Sub)
    return x + 1, torch.overrides.is_tensor_like(t), torch.overrides.is_tensor_like([x])


def c_sc6m_is_tensor_method(x):
    return x + 1, torch.overrides.is_tensor_method_or_property(torch.Tensor.add)


def c_sc6m_is_tensor_method_kinds(x):
    check = torch.overrides.is_tensor_method_or_property
    return x * 2, check(torch.add), check(torch.Tensor.ndim.__get__), check(torch.Tensor.sum)


def c_sc6m_wrapper_object_tf(x):
    class Box:
        def __init__(self, t):
            self.t = t

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            args = [a.t if isinstance(a, Box) else a for a in args]
            return func(*args, **(kwargs or {}))

    return torch.add(Box(x), 1.0, alpha=2.0)


class _Holder:
    """Not a tensor: hands every torch call to ``__torch_function__``, which unwraps it."""

    log: list = []

    def __init__(self, t):
        self.t = t

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.log.append(getattr(func, "__name__", "?"))
        args = [_unheld(a) for a in args]
        return func(*args, **(kwargs or {}))


def _unheld(a):
    if isinstance(a, (list, tuple)):
        return type(a)(_unheld(b) for b in a)
    return a.t if isinstance(a, _Holder) else a


def c_sc6m_wrapper_object_handed_in(x, h):
    _Holder.log = []
    return torch.add(h, x, alpha=2.0), torch.mul(h, 3), list(_Holder.log)


c_sc6m_wrapper_object_handed_in.extra_args = lambda: (_Holder(torch.ones(3)),)


def c_sc6m_wrapper_object_made_in_frame(x):
    _Holder.log = []
    h = _Holder(x * 2)
    return torch.sub(h, 1), list(_Holder.log)


def c_sc6m_wrapper_object_operator(x, h):
    _Holder.log = []
    return x + h, x * h, list(_Holder.log)


c_sc6m_wrapper_object_operator.extra_args = lambda: (_Holder(torch.ones(3)),)


def c_sc6m_wrapper_object_in_list(x, h):
    return torch.cat([x, h])


c_sc6m_wrapper_object_in_list.extra_args = lambda: (_Holder(torch.ones(3)),)


def c_sc6m_wrapper_object_subclass_disabled(x, h):
    try:
        with torch._C.DisableTorchFunctionSubclass():
            return torch.add(x, h)
    except TypeError:
        return x - 1


c_sc6m_wrapper_object_subclass_disabled.extra_args = lambda: (_Holder(torch.ones(3)),)


def c_sc6m_wrapper_object_has_torch_function(x, h):
    return x + 1, torch.overrides.has_torch_function((x, h)), torch.overrides.has_torch_function_unary(h)


c_sc6m_wrapper_object_has_torch_function.extra_args = lambda: (_Holder(torch.ones(3)),)


def c_sc6m_wrapper_object_under_mode(x, h):
    with _Names() as m:
        y = torch.add(h, x)
    return y, m.names


c_sc6m_wrapper_object_under_mode.extra_args = lambda: (_Holder(torch.ones(3)),)


class _TypeNames(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append(sorted(t.__name__ for t in types))
        return func(*args, **(kwargs or {}))


def c_sc6m_mode_sees_object_types(x, h):
    with _TypeNames() as m:
        y = torch.mul(h, x)
        z = torch.mul(x, 2)
    return y + z, m.seen


c_sc6m_mode_sees_object_types.extra_args = lambda: (_Holder(torch.ones(3)),)


def c_sc6m_mode_sees_subclass_types(x):
    t = x.as_subclass(_Sub)
    with _TypeNames() as m:
        y = torch.mul(t, 2)
        z = x.exp()
    return y, z, m.seen


def c_sc6m_mode_sees_method_types(x, p):
    t = x.as_subclass(_Sub)
    with _TypeNames() as m:
        a = t.mul(2) + 1
        b = p.exp()
        c = torch.cat([x, t])
    return a, b, c, m.seen


c_sc6m_mode_sees_method_types.extra_args = lambda: (torch.nn.Parameter(torch.ones(3)),)


# -- parametrizations -------------------------------------------------------------------------------------
class _Symmetric(torch.nn.Module):
    def forward(self, w):
        return w.triu() + w.triu(1).transpose(-1, -2)


class _Doubled(torch.nn.Module):
    def forward(self, w):
        return w * 2


def _parametrized_linear():
    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 3)
    parametrize.register_parametrization(lin, "weight", _Symmetric())
    return (lin,)


def c_sc6m_parametrized_forward(x, lin):
    return lin(x)


c_sc6m_parametrized_forward.extra_args = _parametrized_linear


def c_sc6m_parametrized_weight_read(x, lin):
    w = lin.weight
    return x @ w, parametrize.is_parametrized(lin), parametrize.is_parametrized(lin, "bias")


c_sc6m_parametrized_weight_read.extra_args = _parametrized_linear


def c_sc6m_parametrized_original(x, lin):
    return x @ lin.parametrizations.weight.original


c_sc6m_parametrized_original.extra_args = _parametrized_linear


def c_sc6m_parametrized_cached(x, lin):
    with parametrize.cached():
        a = lin(x)
        b = lin(a)
    return b


c_sc6m_parametrized_cached.extra_args = _parametrized_linear


def _bias_doubled():
    torch.manual_seed(1)
    lin = torch.nn.Linear(3, 2)
    parametrize.register_parametrization(lin, "bias", _Doubled())
    return (lin,)


def c_sc6m_parametrized_bias(x, lin):
    return lin(x) + lin.bias


c_sc6m_parametrized_bias.extra_args = _bias_doubled


def c_sc6m_parametrize_registered_in_frame(x):
    torch.manual_seed(2)
    lin = torch.nn.Linear(3, 3)
    parametrize.register_parametrization(lin, "weight", _Doubled())
    return lin(x)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
