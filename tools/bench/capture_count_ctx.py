"""Context managers, one small program each, for ``capture_count.py``: grad mode (``no_grad``,
``enable_grad``, ``set_grad_enabled``, ``inference_mode``) entered, stored, used as decorators and nested
around breaks; ``autocast``; user classes with ``__enter__``/``__exit__`` (state, suppression, breaks);
torch's own context objects (``DisableTorchFunctionSubclass``, ``fork_rng``, ``torch.device``, dispatch
modes, ``record_function``, the profilers, ``sdpa_kernel``). ``contextlib``'s are in
:mod:`capture_count_ctx_contextlib` (``--only ctx`` runs both).

A break is a ``print`` to a sink (torch.compile breaks there too). Where a construct changes global
state, it returns that state (``torch.is_grad_enabled()``, ``requires_grad``) so eager's answer covers it.
"""

from __future__ import annotations

import io

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

_SINK = io.StringIO()


def _weight():
    return (torch.ones(3, requires_grad=True),)


# -- grad mode ----------------------------------------------------------------------------------------
def c_no_grad_block(x, w):
    y = x * w
    with torch.no_grad():
        z = y * 2
        inside = torch.is_grad_enabled()
    return z + y, z.requires_grad, y.requires_grad, inside, torch.is_grad_enabled()


c_no_grad_block.extra_args = _weight


def c_enable_grad_in_no_grad(x, w):
    with torch.no_grad():
        a = x * w
        with torch.enable_grad():
            b = x * w
            inner = torch.is_grad_enabled()
        c = b + 1
    return a + b + c, a.requires_grad, b.requires_grad, c.requires_grad, inner


c_enable_grad_in_no_grad.extra_args = _weight


def c_set_grad_enabled_branch(x, w):
    out = x + 1
    with torch.set_grad_enabled(False):
        if torch.is_grad_enabled():
            out = out * w
        else:
            out = out - w
    return out, out.requires_grad, torch.is_grad_enabled()


c_set_grad_enabled_branch.extra_args = _weight


def c_set_grad_enabled_call(x, w):
    before = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    y = x * w
    torch.set_grad_enabled(before)
    z = x * w
    return y + z, y.requires_grad, z.requires_grad


c_set_grad_enabled_call.extra_args = _weight


def c_set_grad_enabled_call_break(x, w):
    before = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    y = x * w
    print("break", file=_SINK)
    z = y + w
    torch.set_grad_enabled(before)
    return z, z.requires_grad, torch.is_grad_enabled()


c_set_grad_enabled_call_break.extra_args = _weight


@torch.no_grad()
def _scaled_without_grad(t, w):
    return t * w


@torch.enable_grad()
def _scaled_with_grad(t, w):
    return t * w


def c_grad_decorators_outside(x, w):
    a = _scaled_without_grad(x, w)
    with torch.no_grad():
        b = _scaled_with_grad(x, w)
    return a + b, a.requires_grad, b.requires_grad, torch.is_grad_enabled()


c_grad_decorators_outside.extra_args = _weight


def c_grad_decorators_inside(x, w):
    with torch.enable_grad():
        @torch.no_grad()
        def called(t):
            return t * w

        @torch.no_grad
        def bare(t):
            return t + w

        still = torch.is_grad_enabled()
    a, b = called(x), bare(x)
    return a + b, a.requires_grad, b.requires_grad, still


c_grad_decorators_inside.extra_args = _weight


def c_set_grad_enabled_decorator(x, w):
    def inner(t):
        return t.sin() * w

    wrapped = torch.set_grad_enabled(False)(inner)
    unchanged = torch.is_grad_enabled()
    y = wrapped(x)
    return y, y.requires_grad, unchanged


c_set_grad_enabled_decorator.extra_args = _weight


def c_grad_ctx_stored(x, w):
    off = torch.no_grad()
    on = torch.enable_grad()
    with off:
        a = x * w
        with on:
            b = x * w
    return a + b, a.requires_grad, b.requires_grad


c_grad_ctx_stored.extra_args = _weight


def c_grad_ctx_stored_break(x, w):
    x = x + 1
    ctx = torch.set_grad_enabled(False)
    print("break", file=_SINK)
    with ctx:
        y = x * w
    return y, y.requires_grad, torch.is_grad_enabled()


c_grad_ctx_stored_break.extra_args = _weight


def c_nested_grad_breaks(x, w):
    before = torch.is_grad_enabled()
    with torch.set_grad_enabled(False):
        print("break", file=_SINK)
        with torch.set_grad_enabled(True):
            y = torch.mul(x, w)
            print("break", file=_SINK)
            y = torch.sqrt(y + 1)
            mid = torch.is_grad_enabled()
        after_inner = torch.is_grad_enabled()
    return y, y.requires_grad, mid, after_inner, torch.is_grad_enabled() == before


c_nested_grad_breaks.extra_args = _weight


def _no_grad_breaking(t):
    with torch.no_grad():
        print("break", file=_SINK)
        return torch.sin(t)


def c_no_grad_break_in_callee(x, w):
    a = x * w
    b = _no_grad_breaking(x * w)
    return a + b, a.requires_grad, b.requires_grad, torch.is_grad_enabled()


c_no_grad_break_in_callee.extra_args = _weight


def c_inference_mode_block(x, w):
    with torch.inference_mode():
        y = x * 2
        inside = torch.is_inference_mode_enabled()
    z = x * w
    return y + 1, z, inside, torch.is_inference_mode_enabled(), z.requires_grad


c_inference_mode_block.extra_args = _weight


def c_inference_mode_false(x, w):
    with torch.inference_mode(False):
        y = x * w
    return y, y.requires_grad


c_inference_mode_false.extra_args = _weight


@torch.inference_mode()
def _inferred(t):
    return t * 3


def c_inference_mode_decorator(x):
    y = _inferred(x)
    return y + 1, torch.is_inference_mode_enabled()


# -- autocast -----------------------------------------------------------------------------------------
def c_autocast_cpu(x):
    a = torch.outer(x, x + 1)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        b = torch.mm(a, a)
        flag = torch.is_autocast_enabled("cpu")
        if flag:
            b = b + 1
    return b, b.dtype, flag, torch.is_autocast_enabled("cpu")


def c_autocast_break(x):
    a = torch.outer(x, x + 1)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        b = torch.mm(a, a)
        print("break", file=_SINK)
        c = torch.mm(b.float(), a)
    return b, c, c.dtype


def c_autocast_nested_disabled(x):
    a = torch.outer(x, x + 1)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        with torch.autocast(device_type="cpu", enabled=False):
            f32 = torch.mm(a, a)
        bf16 = torch.mm(a, a)
    return f32, bf16, f32.dtype, bf16.dtype


def c_cpu_amp_autocast(x):
    a = torch.outer(x, x)
    with torch.autocast("cpu"):
        b = torch.mm(a, a)
    with torch.amp.autocast("cpu", dtype=torch.bfloat16):
        c = torch.mm(a, a)
    return b, c


@torch.autocast(device_type="cpu", dtype=torch.bfloat16)
def _mm_in_bf16(a, b):
    return torch.mm(a, b)


def c_autocast_decorator(x):
    a = torch.outer(x, x + 2)
    return _mm_in_bf16(a, a), torch.mm(a, a)


def _autocast_breaking(a):
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        b = torch.mm(a, a)
        print("break", file=_SINK)
        return torch.sin(b)


def c_autocast_break_in_callee(x):
    a = torch.outer(x, x)
    b = _autocast_breaking(a)
    return b + torch.mm(a, a), b.dtype


# -- user-defined context managers --------------------------------------------------------------------
class _GradSwitch:
    def __init__(self, mode):
        self.prev = torch.is_grad_enabled()
        self.mode = mode

    def __enter__(self):
        torch._C._set_grad_enabled(self.mode)

    def __exit__(self, exc_type, exc_value, tb):
        torch._C._set_grad_enabled(self.prev)


class _GradSwitchBreakingEnter(_GradSwitch):
    def __enter__(self):
        print("break", file=_SINK)
        super().__enter__()


def c_user_ctx_grad(x, w):
    with _GradSwitch(False):
        y = x * w
        inside = torch.is_grad_enabled()
    z = x * w
    return y + z, y.requires_grad, z.requires_grad, inside


c_user_ctx_grad.extra_args = _weight


def c_user_ctx_nested(x, w):
    with _GradSwitch(True):
        y = x * w
        with _GradSwitch(False):
            if torch.is_grad_enabled():
                y = y - 3
            y = y * 1.5
        y = torch.relu(y)
    return y - 1, y.requires_grad


c_user_ctx_nested.extra_args = _weight


def c_user_ctx_break_inside(x, w):
    with _GradSwitch(False):
        y = x * w
        print("break", file=_SINK)
        y = torch.relu(y)
        inside = torch.is_grad_enabled()
    return y - 1, y.requires_grad, inside, torch.is_grad_enabled()


c_user_ctx_break_inside.extra_args = _weight


def c_user_ctx_breaking_enter(x, w):
    with _GradSwitchBreakingEnter(False):
        if torch.is_grad_enabled():
            z = x + 1000
        else:
            z = (x * w).sin() + 3
    return z, z.requires_grad, torch.is_grad_enabled()


c_user_ctx_breaking_enter.extra_args = _weight


class _Recorder:
    def __init__(self, suppress=False):
        self.log = []
        self.suppress = suppress

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, exc_type, exc, tb):
        self.log.append(exc_type.__name__ if exc_type else "clean")
        return self.suppress


def c_user_ctx_suppresses(x):
    rec = _Recorder(suppress=True)
    y = x + 1
    with rec as r:
        y = y * 2
        raise ValueError("dropped")
    return y, r.log, r is rec


def c_user_ctx_exception_passes(x):
    rec = _Recorder()
    y = x + 1
    try:
        with rec:
            y = y * 2
            raise KeyError("k")
    except KeyError as e:
        y = y + len(e.args)
    return y, rec.log


def c_user_ctx_returned(x):
    cm = _GradSwitch(False)
    with cm:
        y = x + 1
    return y, cm.mode, cm.prev


def c_user_ctx_return_inside(x):
    rec = _Recorder()
    with rec:
        return x * 3, rec.log


# -- torch's own context objects ----------------------------------------------------------------------
def c_disable_torch_function_subclass(x):
    y = x + 1
    with torch._C.DisableTorchFunctionSubclass():
        z = y * 2
        inside = torch._C._is_torch_function_enabled()
    return z, inside


def c_fork_rng(x):
    with torch.random.fork_rng():
        torch.manual_seed(3)
        a = torch.randn(3)
    b = torch.randn(3)
    return x + a, b


def c_torch_device_ctx(x):
    with torch.device("cpu"):
        y = torch.ones(3) + x
    return y, y.device


def c_record_function(x):
    y = x ** 2
    with torch.profiler.record_function("block"):
        z = y ** 3
        print("break", file=_SINK)
        z = z + 1
    return z


def c_profiler_record_function_only(x):
    with torch.autograd.profiler.record_function("block"):
        y = x * 2
    return y + 1


class _CountingFunctionMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def c_torch_function_mode(x):
    with _CountingFunctionMode():
        y = torch.add(x, 1)
    return y * 2


class _PassThroughDispatch(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def c_torch_dispatch_mode(x):
    with _PassThroughDispatch():
        y = x + 1
    return y * 2


def c_saved_tensors_hooks_disabled(x):
    @torch.autograd.graph.disable_saved_tensors_hooks("no hooks here")
    def f(a, b):
        return a + b

    return f(x, x * 2)


def c_sdpa_kernel(x):
    q = x.reshape(1, 1, 1, 3)
    with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.MATH]):
        out = torch.nn.functional.scaled_dot_product_attention(q, q, q)
    return out


CONSTRUCTS = [
    c_no_grad_block, c_enable_grad_in_no_grad, c_set_grad_enabled_branch, c_set_grad_enabled_call,
    c_set_grad_enabled_call_break, c_grad_decorators_outside, c_grad_decorators_inside,
    c_set_grad_enabled_decorator, c_grad_ctx_stored, c_grad_ctx_stored_break, c_nested_grad_breaks,
    c_no_grad_break_in_callee, c_inference_mode_block, c_inference_mode_false, c_inference_mode_decorator,
    c_autocast_cpu, c_autocast_break, c_autocast_nested_disabled, c_cpu_amp_autocast, c_autocast_decorator,
    c_autocast_break_in_callee,
    c_user_ctx_grad, c_user_ctx_nested, c_user_ctx_break_inside, c_user_ctx_breaking_enter,
    c_user_ctx_suppresses, c_user_ctx_exception_passes, c_user_ctx_returned, c_user_ctx_return_inside,
    c_disable_torch_function_subclass, c_fork_rng, c_torch_device_ctx, c_record_function,
    c_profiler_record_function_only, c_torch_function_mode, c_torch_dispatch_mode,
    c_saved_tensors_hooks_disabled, c_sdpa_kernel,
]


# -- more shapes from test_ctx_manager: managers crossing breaks, manual __enter__/__exit__ -----------------
def _hands_back(ctx):
    print("break", file=_SINK)
    return ctx


def c_grad_ctx_through_breaking_callee(x, w):
    x = x + 1
    ctx = _hands_back(torch.set_grad_enabled(False))
    with ctx:
        y = x * w
    return y, y.requires_grad, torch.is_grad_enabled()


c_grad_ctx_through_breaking_callee.extra_args = _weight


def _uses_ctx(t, ctx, a, b, dummy):
    with ctx:
        return t * a * b


def c_grad_ctx_argument_beside_break(x, w):
    y = _uses_ctx(x * w, torch.set_grad_enabled(False), 2, 3, print("break", file=_SINK))
    return y, y.requires_grad, torch.is_grad_enabled()


c_grad_ctx_argument_beside_break.extra_args = _weight


def c_autocast_nested_breaks(x):
    a = torch.outer(x, x + 1)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        print("break", file=_SINK)
        with torch.autocast(device_type="cpu", enabled=False):
            print("break", file=_SINK)
            f32 = torch.mm(a, a)
        bf16 = torch.mm(a, a)
    return f32, bf16, torch.mm(a, a)


def c_user_ctx_returned_after_break(x):
    cm = _GradSwitch(False)
    print("break", file=_SINK)
    with cm:
        y = x + 1
    return y, cm.mode, torch.is_grad_enabled()




def c_profiler_enabled_branch(x):
    if torch.autograd._profiler_enabled():
        return x + 1
    return x - 1


def c_is_autocast_cpu_enabled(x):
    a = torch.outer(x, x)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        b = torch.mm(a, a)
        if torch.is_autocast_cpu_enabled():
            b = b + 1
    return b


CONSTRUCTS += [
    c_grad_ctx_through_breaking_callee, c_grad_ctx_argument_beside_break, c_autocast_nested_breaks,
    c_user_ctx_returned_after_break,
    c_profiler_enabled_branch, c_is_autocast_cpu_enabled,
]


def c_profiler_profile_break(x):
    y = x**2
    with torch.profiler.profile():
        y = y + 2
        with torch.profiler.record_function("inner"):
            z = y**3
            print("break", file=_SINK)
            z = z + 1
    return z


def c_autograd_profiler_profile(x):
    with torch.autograd.profiler.profile():
        y = x * 2
        with torch.autograd.profiler.record_function("inner"):
            z = y + 1
    return z


CONSTRUCTS += [c_profiler_profile_break, c_autograd_profiler_profile]


def c_profiler_object_used_after_break(x):
    with torch.profiler.profile() as prof:
        y = x * 2
    print("break", file=_SINK)
    return y + 1, type(prof).__name__


CONSTRUCTS += [c_profiler_object_used_after_break]
