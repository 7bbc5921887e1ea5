"""Context managers modelled on PyTorch's test/dynamo/test_ctx_manager.py, for ``capture_count.py --only
dynamo_tests_ctx`` (its parts, ``capture_count_dynamo_tests_ctx_*.py``, hold the higher-order ops and the
repros): autocast around breaking callees, saved-tensor-hook switches as decorators, grad-mode decorators
made without a call, ``contextlib.contextmanager`` generators that close over their maker's locals and
globals, that are handed in entered or not, that never yield or yield twice, and that rewrap exceptions.
Each is written afresh as a small program over one tensor; a break is a ``print`` to a sink.
"""

from __future__ import annotations

import contextlib
import io
import sys

import torch

_SINK = io.StringIO()
_SEEN = []
_TOTAL = 0


def _breaking_mm(a, b):
    print("break", file=_SINK)
    return torch.mm(a, b)


# -- autocast -------------------------------------------------------------------------------------------
def c_dtc_autocast_nested_disabled_breaking_callee(x):
    a = torch.outer(x, x + 1)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        print("break", file=_SINK)
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=False):
            kept = torch.mm(a, a)
            with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
                inner = _breaking_mm(a, a)
        outer = _breaking_mm(a, a)
    return kept.dtype, inner.dtype, outer.dtype, outer.float()


def c_dtc_autocast_method_break_and_compare(x):
    a = torch.outer(x, x)
    bias = torch.ones(3, 3, dtype=torch.bfloat16)
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=False):
            plain = torch.mm(a, a)
        low = _breaking_mm(a, a) + bias
        same = bool(low[0][0] == (torch.mm(a, a) + bias)[0][0])
    return low.float(), plain, same


def c_dtc_autocast_disabled_binding(x):
    with torch.autocast(device_type="cpu", enabled=False):
        y = torch.cos(x + 1)
    with torch.autocast("cpu", torch.bfloat16, False):
        z = torch.mm(y[None], y[:, None])
    return y, z


def c_dtc_autocast_decorator_made_inside(x):
    def lowered(fn):
        @torch.autocast(device_type="cpu", dtype=torch.bfloat16)
        def wrapped(*args, **kwargs):
            return fn(*args, **kwargs)

        return wrapped

    mm = lowered(torch.mm)
    out = mm(x[None], x[:, None])
    return out.dtype, out.float()


class _Lowered(torch.nn.Module):
    def forward(self, x):
        a = torch.outer(x, x)
        with torch.amp.autocast("cpu", dtype=torch.bfloat16):
            b = torch.mm(a, a)
            c = torch.mm(a, b)
        return c


_LOWERED = _Lowered()


def c_dtc_amp_autocast_inside_module(x):
    return _LOWERED(x).float(), torch.is_autocast_enabled("cpu")


# -- saved-tensor hooks, grad-mode decorators -------------------------------------------------------------
def c_dtc_saved_hooks_disabled_decorator_nested(x):
    @torch.autograd.graph.disable_saved_tensors_hooks("outer message")
    def f(a, b):
        @torch.autograd.graph.disable_saved_tensors_hooks("inner message")
        def inner(p, q):
            return p + q

        return inner(a, b) + a

    return f(x, torch.zeros(3))


def c_dtc_grad_decorator_uncalled(x, w):
    def inner(t):
        return (t * w).sin()

    with torch.enable_grad():
        off = torch.no_grad(inner)
        during = torch.is_grad_enabled()
    with torch.enable_grad():
        y = off(x)
    return y, y.requires_grad, during


def c_dtc_grad_decorator_syntax_uncalled(x, w):
    with torch.no_grad():
        @torch.enable_grad
        def inner(t):
            return (t * w).sin()

        during = torch.is_grad_enabled()
    with torch.no_grad():
        y = inner(x)
    return y, y.requires_grad, during


def _weight():
    return (torch.ones(3, requires_grad=True),)


c_dtc_grad_decorator_uncalled.extra_args = _weight
c_dtc_grad_decorator_syntax_uncalled.extra_args = _weight


def c_dtc_no_grad_object_entered_twice(x, w):
    # eager's __exit__ restores the one ``prev`` the inner __enter__ overwrote: grad stays off after
    cm = torch.no_grad()
    with cm:
        with cm:
            y = x * w
        z = x * w
    enabled = torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    return y.requires_grad, z.requires_grad, enabled


c_dtc_no_grad_object_entered_twice.extra_args = _weight


def c_dtc_grad_mode_restored_after_tolist(x):
    before = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    a = x + 1
    listed = a.tolist()
    out = a + len(listed)
    torch.set_grad_enabled(before)
    return out, torch.is_grad_enabled()


def c_dtc_sdpa_kernel_break_in_callee(x):
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q = torch.outer(x, x + 1)[None, None]

    def attend(t):
        print("break", file=_SINK)
        return torch.nn.functional.scaled_dot_product_attention(t, t, t)

    with sdpa_kernel([SDPBackend.MATH]):
        first = torch.nn.functional.scaled_dot_product_attention(q, q, q)
        second = attend(q)
    return first + second


# -- contextlib.contextmanager: closures, globals, breaks ----------------------------------------------------
def c_dtc_cm_finally_reads_parent_nonlocal(x):
    z, k = 1, 2

    def make():
        @contextlib.contextmanager
        def ctx(t):
            nonlocal k
            try:
                yield t.sin()
            finally:
                k = z

        return ctx

    def run(ctx, t):
        nonlocal z
        z = 100
        with ctx(t) as y:
            return y.cos()

    out = run(make(), x)
    return out, z, k


def c_dtc_cm_finally_writes_global(x):
    global _TOTAL

    def make():
        @contextlib.contextmanager
        def ctx(t):
            global _TOTAL
            try:
                yield t.sin()
            finally:
                _TOTAL = _TOTAL + 7

        return ctx

    _TOTAL = 1
    with make()(x) as y:
        out = y.cos() + _TOTAL
    return out, _TOTAL


def c_dtc_cm_closes_over_maker_argument(x):
    def make(t):
        @contextlib.contextmanager
        def ctx():
            try:
                yield t.sin()
            finally:
                pass

        return ctx

    def run(ctx):
        with ctx() as y:
            return y.cos()

    return run(make(x))


@contextlib.contextmanager
def _tan_after_break(t):
    y = t.tan()
    try:
        print("break", file=_SINK)
        yield y
    finally:
        pass


def c_dtc_cm_break_before_yield_in_callee(x):
    def bar(t):
        with _tan_after_break(t) as z:
            return z.neg()

    return x.sin() + bar(x) + x.cos()


def c_dtc_cm_break_before_yield_body_calls(x):
    def g(t):
        return t.neg() + t.exp()

    y = x.sin()
    with _tan_after_break(x) as z:
        y = y + g(z)
    return y + y.tanh()


@contextlib.contextmanager
def _logged(t, log):
    try:
        log.append(t.sin())
        yield t.cos() + 1
    finally:
        log.append(t.cos())


def _made_ctx():
    _SEEN.clear()
    return (contextlib.contextmanager(_plus_one)(torch.ones(3)),)


def _plus_one(t):
    try:
        yield t.cos() + 1
    finally:
        _SEEN.append("exit")


def c_dtc_cm_handed_in_entered_here(x, ctx):
    y = ctx.__enter__()
    ctx.__exit__(None, None, None)
    return x + y, list(_SEEN)


c_dtc_cm_handed_in_entered_here.extra_args = _made_ctx


def _entered_ctx():
    _SEEN.clear()
    ctx = contextlib.contextmanager(_plus_one)(torch.ones(3))
    ctx.__enter__()
    return (ctx,)


def c_dtc_cm_handed_in_exited_here(x, ctx):
    ctx.__exit__(None, None, None)
    return x.sin(), list(_SEEN)


c_dtc_cm_handed_in_exited_here.extra_args = _entered_ctx


def c_dtc_cm_handed_in_enter_only(x, ctx):
    y = ctx.__enter__()
    return x + y, list(_SEEN)


c_dtc_cm_handed_in_enter_only.extra_args = _made_ctx


def c_dtc_cm_manual_enter_break_exit_in_finally(x):
    log = []
    ctx = _logged(x, log)
    try:
        print("break", file=_SINK)
        y = ctx.__enter__()
        print("break", file=_SINK)
    finally:
        ctx.__exit__(None, None, None)
    return y, log


def c_dtc_redirect_stderr(x):
    y = x.sin()
    with contextlib.redirect_stderr(_SINK):
        y = y + x.cos()
    return y.tan()


# -- contextmanager protocol corners (CPython's test_contextlib) ----------------------------------------------
def c_dtc_cm_finally_runs_on_raise(x):
    state = []

    @contextlib.contextmanager
    def woohoo():
        state.append(1)
        try:
            yield 42
        finally:
            state.append(999)

    y = x.sum()
    try:
        with woohoo() as v:
            state.append(v)
            raise ZeroDivisionError
    except ZeroDivisionError:
        y = y + 1
    return y, state


def c_dtc_cm_exit_with_exception_returns_false(x):
    @contextlib.contextmanager
    def whee():
        yield

    ctx = whee()
    ctx.__enter__()
    swallowed = ctx.__exit__(TypeError, TypeError("foo"), None)
    return x.sum(), swallowed


def c_dtc_cm_yield_after_throw(x):
    @contextlib.contextmanager
    def whoo():
        try:
            yield
        except Exception:
            yield

    ctx = whoo()
    ctx.__enter__()
    try:
        ctx.__exit__(TypeError, TypeError("foo"), None)
        caught = None
    except RuntimeError as e:
        caught = str(e)
    return x.sum(), caught


def c_dtc_cm_never_yields(x):
    @contextlib.contextmanager
    def whoo():
        if x.shape[0] < 0:
            yield

    try:
        whoo().__enter__()
        caught = None
    except RuntimeError as e:
        caught = str(e)
    return x.sum(), caught


def c_dtc_cm_yields_twice(x):
    @contextlib.contextmanager
    def whoo():
        yield
        yield

    ctx = whoo()
    ctx.__enter__()
    try:
        ctx.__exit__(None, None, None)
        caught = None
    except RuntimeError as e:
        caught = str(e)
    return x.sum(), caught


def c_dtc_cm_swallows_in_except(x):
    state = []

    @contextlib.contextmanager
    def woohoo():
        state.append(1)
        try:
            yield 42
        except ZeroDivisionError as e:
            state.append(e.args[0])

    with woohoo() as v:
        state.append(v)
        raise ZeroDivisionError(999)
    return x + len(state), state


def c_dtc_cm_chains_but_not_stopiteration(x):
    @contextlib.contextmanager
    def chaining():
        try:
            yield
        except Exception as exc:
            raise RuntimeError("chained") from exc

    out = []
    try:
        with chaining():
            raise ZeroDivisionError
    except Exception as ex:
        out.append((type(ex).__name__, ex.args, type(ex.__cause__).__name__))
    try:
        with chaining():
            raise StopIteration("unchained")
    except Exception as ex:
        out.append((type(ex).__name__, ex.args, ex.__cause__ is None))
    return x + len(out), out


def c_dtc_cm_keyword_arguments(x):
    @contextlib.contextmanager
    def woohoo(self, func, args, kwds):
        yield (self, func, args, kwds)

    with woohoo(self=11, func=22, args=33, kwds=44) as target:
        y = x + sum(target)
    return y, target


def c_dtc_cm_decorating_recursion(x):
    depth, entered = 0, 0

    @contextlib.contextmanager
    def deeper():
        nonlocal depth, entered
        entered += 1
        depth += 1
        yield
        depth -= 1

    @deeper()
    def recurse():
        if depth < 5:
            recurse()

    recurse()
    return x + entered, depth


def c_dtc_cm_traceback_frames(x):
    import traceback

    @contextlib.contextmanager
    def plain():
        yield

    try:
        with plain():
            raise KeyError("k")
    except KeyError as e:
        frames = traceback.extract_tb(e.__traceback__)
    return x + len(frames)


def c_dtc_exit_stack_callbacks(x):
    log = []
    with contextlib.ExitStack() as stack:
        stack.callback(log.append, "first")
        stack.enter_context(_logged(x, log))
        y = x * 2
    return y, len(log), log[-1]


def c_dtc_stdout_written_in_body(x):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        y = x + 1
        print("inside")
    return y, sys.stdout is not buf


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
