"""Exceptions and context managers modelled on PyTorch's test/dynamo/test_exceptions.py and test_ctx_manager.py,
for ``capture_count.py --only dynamo_tests_genexc3`` (a part of ``capture_count_dynamo_tests_genexc3.py``):
``sys.exc_info()`` once handlers that re-raise or raise in ``finally`` are done, a bare re-raise of the first
exception after a nested one, ``__context__`` set on an exception that leaves the frame, ExitStack-style
fixing of context chains, a raising ``nn.Module.__getattr__`` fallback, modules raising under hooks, grad-mode
decorators applied inside a block of the inverse mode, managers handed through breaking helpers, and
saved-tensor-hook decorators nested. Each is written afresh over one tensor; a break is a ``print`` to a sink.
"""

from __future__ import annotations

import contextlib
import io
import sys

import torch

_SINK = io.StringIO()


class _WithFields(Exception):
    def __init__(self, a, b=None):
        self.a = a
        self.b = b


# -- exception state after handlers ---------------------------------------------------------------------------
def c_gx3e_exc_info_clear_after_reraise(x):
    try:
        try:
            raise ValueError
        except ValueError:
            raise
    except ValueError:
        pass
    return x + 1, sys.exc_info()[0]


def c_gx3e_exc_info_clear_after_finally_raise(x):
    def fn():
        try:
            raise ValueError
        except ValueError:
            try:
                raise TypeError
            finally:
                pass

    try:
        fn()
    except TypeError:
        pass
    return x.sin(), sys.exc_info()[0]


def c_gx3e_bare_raise_is_first_exception(x):
    def fn():
        try:
            1 / 0  # noqa: B018
        except ZeroDivisionError:
            try:
                raise ValueError
            except ValueError:
                pass
            raise

    try:
        fn()
    except ZeroDivisionError as e:
        return x + 1, type(e).__name__, sys.exc_info()[0]
    return x, None, None


def c_gx3e_exc_info_after_gen_throw_handled(x):
    def cm():
        try:
            yield 1
        except ValueError:
            try:
                raise TypeError
            finally:
                pass

    try:
        gen = cm()
        next(gen)
        gen.throw(ValueError)
    except TypeError as e:
        ctx = type(e.__context__).__name__
    return x + 1, ctx, sys.exc_info()[0]


def c_gx3e_reraise_from_helper_caught(x):
    def gn(t):
        try:
            t = torch.cos(t)
            raise NotImplementedError("n")
        except NotImplementedError:
            t = torch.sigmoid(t)
            raise

    try:
        x = torch.cos(x)
        gn(x)
    except Exception:
        pass
    return x


def c_gx3e_raise_inside_no_grad_block(x):
    x = torch.cos(x)
    try:
        with torch.no_grad():
            x = torch.sin(x)
            raise NotImplementedError("n")
    except NotImplementedError:
        x = torch.sigmoid(x)
    return x, torch.is_grad_enabled()


def c_gx3e_nested_handler_in_handler(x):
    x = torch.cos(x)
    try:
        x = torch.sin(x)
        raise NotImplementedError("n")
    except NotImplementedError:
        x = torch.sigmoid(x)
        try:
            x = torch.cos(x)
            raise AssertionError
        except AssertionError as e:
            x = torch.cos(x)
            inner_ctx = type(e.__context__).__name__
    return x, inner_ctx


def c_gx3e_custom_exception_keyword_fields(x):
    z = 0
    try:
        raise _WithFields(2, b=3)
    except ValueError:
        z = 1
    except _WithFields as e:
        z = e.a + e.b
    return x + z


def c_gx3e_fresh_subclass_of_oserror_chain(x):
    class Mine(OSError):
        pass

    e = Mine()
    t = TypeError()
    return x + 1, e.__context__, e.__cause__, t.__cause__, e.__suppress_context__


def c_gx3e_context_set_on_returned_exception(x):
    v = ValueError(1, 2, 3)
    v.__context__ = TypeError("t")
    return x.sin(), type(v).__name__, v.args, type(v.__context__).__name__


def c_gx3e_exitstack_style_context_fix(x):
    def raiser(a, b):
        try:
            raise a
        finally:
            raise b

    def fix(frame_exc, new_exc, old_exc):
        while 1:
            exc_context = new_exc.__context__
            if exc_context is None or exc_context is old_exc:
                return
            if exc_context is frame_exc:
                break
            new_exc = exc_context
        new_exc.__context__ = old_exc

    @contextlib.contextmanager
    def ctx():
        try:
            yield
        finally:
            frame_exc = prev_exc = sys.exc_info()
            for a, b in [(DeprecationWarning, ConnectionError), (BytesWarning, AttributeError)]:
                try:
                    raiser(a, b)
                except BaseException:
                    new_exc = sys.exc_info()
                    fix(frame_exc[1], new_exc[1], prev_exc[1])
                    prev_exc = new_exc
            try:
                fixed_ctx = prev_exc[1].__context__
                raise prev_exc[1]
            except BaseException:
                prev_exc[1].__context__ = fixed_ctx
                raise

    names = []
    try:
        with ctx():
            raise Exception
    except Exception as exc:
        e = exc
        while e is not None and len(names) < 6:
            names.append(type(e).__name__)
            e = e.__context__
    return x + len(names), names


def c_gx3e_module_getattr_fallback_reraise(x):
    class Scaled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_parameter("w", torch.nn.Parameter(torch.ones(3) * 2))

        def __getattr__(self, name):
            try:
                return super().__getattr__(name)
            except AttributeError:
                if name == "w_alias":
                    return self.w
                raise

        def forward(self, t):
            return t * self.w * self.w_alias

    m = Scaled()
    out = m(x)
    try:
        m.missing  # noqa: B018
    except AttributeError:
        out = out + 1
    return out.detach()


def c_gx3e_module_raises_under_pre_hook(x):
    class Raiser(torch.nn.Module):
        def forward(self, t):
            raise ValueError("woof")

    m = Raiser()
    m.register_forward_pre_hook(lambda mod, args: None)
    try:
        m(x)
    except ValueError as e:
        return x + 1, str(e)
    return x, ""


def c_gx3e_cycle_at_head_of_chain(x):
    try:
        try:
            raise AssertionError()
        except AssertionError as a_:
            a = a_
            try:
                raise BytesWarning()
            except BytesWarning as b_:
                b = b_
                try:
                    raise ConnectionError()
                except ConnectionError as c_:
                    c = c_
                    a.__context__ = c
                    raise c  # noqa: B904
    except ConnectionError as e:
        caught = e
    return x + 1, caught is c, c.__context__ is b, b.__context__ is a, a.__context__ is c


# -- context managers ---------------------------------------------------------------------------------------
def c_gx3e_no_grad_decorator_inside_enable_grad_block(x):
    def inner(t):
        return t.sin()

    with torch.enable_grad():
        inner = torch.no_grad()(inner)
        mode_inside = torch.is_grad_enabled()
    with torch.enable_grad():
        out = inner(x)
    return out, mode_inside, out.requires_grad


def c_gx3e_enable_grad_nested_decorator_in_no_grad(x):
    x = x.clone().requires_grad_(True)
    with torch.no_grad():

        @torch.enable_grad()
        def inner(t):
            return t.sin()

        mode_inside = torch.is_grad_enabled()
    with torch.no_grad():
        out = inner(x)
    return out.detach(), mode_inside, out.requires_grad


def c_gx3e_set_grad_enabled_wraps_function(x):
    x = x.clone().requires_grad_(True)

    def inner(t):
        return t.sin()

    with torch.set_grad_enabled(True):
        inner = torch.set_grad_enabled(False)(inner)
        mode_inside = torch.is_grad_enabled()
    with torch.set_grad_enabled(True):
        out = inner(x)
    return out.detach(), mode_inside, out.requires_grad


def c_gx3e_ctx_returned_by_breaking_helper(x):
    def gn(ctx):
        print("b", file=_SINK)
        return ctx

    x = x + 1
    ctx = gn(torch.set_grad_enabled(False))
    with ctx:
        x = x + 1
        inside = torch.is_grad_enabled()
    return x, inside


def c_gx3e_ctx_argument_beside_breaking_call(x):
    def gn(t, ctx, a, b, dummy):
        with ctx:
            return t * a * b, torch.is_grad_enabled()

    return gn(x + 1, torch.set_grad_enabled(False), 2, 3, print("b", file=_SINK))


def c_gx3e_nullcontext_after_breaking_list_helper(x):
    def gn():
        print("b", file=_SINK)
        return [0, 1, 2]

    x = x + 1
    ctx = contextlib.nullcontext()
    lst = gn()
    with ctx:
        x = x + lst[1]
    return x


def c_gx3e_saved_hooks_disabled_nested_decorators(x):
    @torch.autograd.graph.disable_saved_tensors_hooks("outer")
    def f(a, b):
        @torch.autograd.graph.disable_saved_tensors_hooks("inner")
        def g(a, b):
            return a + b

        return g(a, b) + a

    return f(x, x * 2)


def c_gx3e_saved_hooks_disabled_break_inside(x):
    with torch.autograd.graph.disable_saved_tensors_hooks("no"):
        y = x + 1
        print("b", file=_SINK)
        return y * 2


def c_gx3e_no_grad_break_return_in_callee(x):
    def gn(z):
        with torch.no_grad():
            print("b", file=_SINK)
            return torch.sin(z)

    a = x * 2
    b = gn(x)
    return a, b, torch.is_grad_enabled()


def c_gx3e_generic_ctx_nested_break_under_no_grad(x):
    class Switch:
        def __init__(self, mode):
            self.prev = torch.is_grad_enabled()
            self.mode = mode

        def __enter__(self):
            torch._C._set_grad_enabled(self.mode)

        def __exit__(self, *exc):
            torch._C._set_grad_enabled(self.prev)

    with torch.no_grad():
        with Switch(True):
            x = x + 1
            if torch.is_grad_enabled():
                x = x * 2
            with Switch(False):
                if torch.is_grad_enabled():
                    x = x - 3
                print("b", file=_SINK)
                x = x * 1.5
            x = torch.relu(x)
        return x - 1


def c_gx3e_contextmanager_break_before_yield_side_effects(x):
    log = []

    @contextlib.contextmanager
    def whoo(t):
        y = t.tan()
        try:
            log.append(t.sin())
            print("b", file=_SINK)
            yield y
        finally:
            log.append(t.cos())

    y = x.sin()
    with whoo(x) as z:
        y = y + z.neg()
    y = y + x.cos()
    return y, log


def c_gx3e_contextmanager_break_returned_from_helper(x):
    @contextlib.contextmanager
    def whoo(t):
        y = t.tan()
        try:
            print("b", file=_SINK)
            yield y
        finally:
            pass

    def bar(t):
        with whoo(t) as z:
            return z.neg()

    return x.sin() + bar(x) + x.cos()


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
