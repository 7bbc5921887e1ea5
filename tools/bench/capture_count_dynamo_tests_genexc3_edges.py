"""Edges of the exception and generator protocols that PyTorch's test/dynamo/test_exceptions.py,
test_generator.py and test_ctx_manager.py lean on, for ``capture_count.py --only dynamo_tests_genexc3`` (a part of
``capture_count_dynamo_tests_genexc3.py``): what ``throw`` refuses, generator state queries, the ``args`` of user
exceptions, causes that are classes or invalid, notes, exceptions swallowed by ``break`` in ``finally``,
``__exit__`` arguments and suppression, managers whose ``__enter__`` or ``__exit__`` raise, and a
``@contextmanager`` that returns before yielding. Each is written afresh over one tensor.
"""

from __future__ import annotations

import contextlib
import inspect
import sys

import torch


# -- throw() and generator state -----------------------------------------------------------------------------
def c_gx3d_throw_non_exception_type_error(x):
    def gen():
        while True:
            try:
                yield
            except ValueError:
                pass

    g = gen()
    next(g)
    out = []
    for bad in ("abc", 0, list):
        try:
            g.throw(bad)
        except TypeError as e:
            out.append(str(e)[:40])
    return x + len(out), out


def c_gx3d_generator_state_queries(x):
    def gen():
        yield inspect.getgeneratorstate(g)
        yield 2

    g = gen()
    states = [inspect.getgeneratorstate(g)]
    states.append(next(g))
    states.append(inspect.getgeneratorstate(g))
    g.close()
    states.append(inspect.getgeneratorstate(g))
    return x + 1, states


def c_gx3d_generator_running_flag(x):
    def gen():
        yield g.gi_running
        yield 2

    g = gen()
    before = g.gi_running
    inside = next(g)
    return x.sin(), before, inside, g.gi_running


def c_gx3d_generator_names(x):
    def counting():
        yield 1

    g = counting()
    return x + 1, g.__name__, g.__qualname__.split(".")[-1]


def c_gx3d_yield_inside_with_closed(x):
    log = []

    class Block:
        def __enter__(self):
            log.append("enter")
            return self

        def __exit__(self, kind, value, tb):
            log.append(kind.__name__ if kind else None)
            return False

    def gen(t):
        with Block():
            yield t.sin()
            yield t.cos()

    g = gen(x)
    a = next(g)
    g.close()
    return a, log


def c_gx3d_yield_from_finally_return_value(x):
    def sub(t):
        try:
            yield t.sin()
        finally:
            return t.cos()  # noqa: B012

    def outer(t):
        r = yield from sub(t)
        yield r

    return list(outer(x))


def c_gx3d_exc_info_inside_generator_during_throw(x):
    def gen():
        try:
            yield 1
        except KeyError:
            yield sys.exc_info()[0].__name__

    g = gen()
    next(g)
    return x + 1, g.throw(KeyError("k")), sys.exc_info()[0]


def c_gx3d_suppress_inside_generator(x):
    def gen(t):
        with contextlib.suppress(ZeroDivisionError):
            yield t.sin()
            1 / 0  # noqa: B018
            yield t.cos()
        yield t.tan()

    return list(gen(x))


# -- user exceptions: args, causes, notes --------------------------------------------------------------------
def c_gx3d_user_exception_args_without_super(x):
    class Tagged(Exception):
        def __init__(self, a, b=2):
            self.a = a

    try:
        raise Tagged(5, b=7)
    except Tagged as e:
        return x + e.a, e.args, str(e)


def c_gx3d_user_exception_args_from_super(x):
    class Wrapped(ValueError):
        def __init__(self, code):
            super().__init__(f"code {code}")
            self.code = code

    try:
        raise Wrapped(3)
    except ValueError as e:
        return x * e.code, e.args, str(e), repr(e)


def c_gx3d_cause_given_as_class(x):
    try:
        raise KeyError("k") from ValueError
    except KeyError as e:
        return x + 1, type(e.__cause__).__name__, e.__cause__.args, e.__suppress_context__


def c_gx3d_cause_invalid_type_error(x):
    try:
        raise KeyError("k") from 5  # type: ignore[misc]
    except TypeError as e:
        return x + 1, str(e)
    return x, ""


def c_gx3d_add_note_and_read(x):
    try:
        e = ValueError("v")
        e.add_note("first")
        e.add_note("second")
        raise e
    except ValueError as caught:
        return x + len(caught.__notes__), caught.__notes__


def c_gx3d_key_error_str_and_repr(x):
    try:
        {}["missing"]
    except KeyError as e:
        return x + 1, str(e), repr(e), e.args


def c_gx3d_attribute_error_name_obj(x):
    class Thing:
        pass

    t = Thing()
    try:
        t.nothing  # noqa: B018
    except AttributeError as e:
        return x + 1, e.name, e.obj is t


def c_gx3d_catch_non_exception_class_type_error(x):
    try:
        try:
            raise ValueError
        except int:  # type: ignore[misc]
            pass
    except TypeError as e:
        return x + 1, str(e)
    return x, ""


def c_gx3d_except_tuple_from_variable(x):
    kinds = (KeyError, IndexError)
    out = []
    for bad in ([], {}):
        try:
            bad[1]
        except kinds as e:
            out.append(type(e).__name__)
    return x + len(out), out


def c_gx3d_base_exception_subclass_skips_except_exception(x):
    class Stop(BaseException):
        pass

    try:
        try:
            raise Stop
        except Exception:
            return x.sin()
    except Stop:
        return x.cos()


def c_gx3d_break_in_finally_swallows(x):
    n = 0
    for i in range(3):
        try:
            n += i
            raise ValueError(i)
        finally:
            break  # noqa: B012
    return x + n, sys.exc_info()[0]


def c_gx3d_continue_in_finally_swallows(x):
    n = 0
    for i in range(3):
        try:
            raise ValueError(i)
        finally:
            n += 1
            continue  # noqa: B012
    return x + n


def c_gx3d_traceback_present_and_cleared(x):
    try:
        raise ValueError("v")
    except ValueError as e:
        had = e.__traceback__ is not None
        e2 = e.with_traceback(None)
        return x + 1, had, e2 is e, e.__traceback__


def c_gx3d_exception_in_list_by_identity(x):
    errs = []
    for k in range(2):
        try:
            raise IndexError(k)
        except IndexError as e:
            errs.append(e)
    return x + len(errs), errs[0] in errs, errs[0] == errs[1], [e.args for e in errs]


# -- context managers: __exit__ arguments, raising enter/exit ------------------------------------------------------
def c_gx3d_exit_sees_exception_and_suppresses(x):
    seen = []

    class Catch:
        def __enter__(self):
            return "token"

        def __exit__(self, kind, value, tb):
            seen.append((kind.__name__, value.args, tb is not None))
            return True

    with Catch() as tok:
        x = x + 1
        raise KeyError("k")
    return x, tok, seen, sys.exc_info()[0]


def c_gx3d_second_enter_raises_first_exits(x):
    log = []

    class Ok:
        def __enter__(self):
            log.append("ok-in")

        def __exit__(self, kind, value, tb):
            log.append(("ok-out", kind.__name__ if kind else None))

    class Bad:
        def __enter__(self):
            raise RuntimeError("no")

        def __exit__(self, *exc):
            log.append("bad-out")

    try:
        with Ok(), Bad():
            log.append("body")
    except RuntimeError:
        log.append("caught")
    return x + len(log), log


def c_gx3d_exit_raises_new_exception_chain(x):
    class Converting:
        def __enter__(self):
            return self

        def __exit__(self, kind, value, tb):
            if kind is not None:
                raise TypeError("from exit")
            return False

    try:
        with Converting():
            raise ValueError("body")
    except TypeError as e:
        return x + 1, type(e.__context__).__name__, e.__context__.args
    return x, None, None


def c_gx3d_contextmanager_returns_before_yield(x):
    @contextlib.contextmanager
    def early(flag):
        if flag:
            return
        yield

    try:
        with early(True):
            x = x + 100
    except RuntimeError as e:
        return x + 1, str(e)
    return x, ""


def c_gx3d_contextmanager_catches_and_raises_other(x):
    @contextlib.contextmanager
    def convert():
        try:
            yield
        except KeyError as e:
            raise LookupError("converted") from e

    try:
        with convert():
            x = x.sin()
            raise KeyError("k")
    except LookupError as e:
        return x, str(e), type(e.__cause__).__name__
    return x, "", None


def c_gx3d_closing_calls_close(x):
    log = []

    class Res:
        def close(self):
            log.append("closed")

    with contextlib.closing(Res()) as r:
        x = x + 1
        log.append(type(r).__name__)
    return x, log


def c_gx3d_exit_stack_callback_raises(x):
    log = []

    def fail():
        raise ValueError("cb")

    try:
        with contextlib.ExitStack() as stack:
            stack.callback(log.append, "second")
            stack.callback(fail)
            x = x.cos()
    except ValueError as e:
        log.append(str(e))
    return x, log


def c_gx3d_set_grad_enabled_called_and_restored(x):
    x = x.clone().requires_grad_(True)
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    y = x * 2
    torch.set_grad_enabled(prev)
    z = x * 3
    return y.requires_grad, z.requires_grad, torch.is_grad_enabled()


def c_gx3d_enter_returns_other_object(x):
    class Holder:
        def __init__(self, t):
            self.t = t

    class Opener:
        def __init__(self, t):
            self.t = t

        def __enter__(self):
            return Holder(self.t * 2)

        def __exit__(self, *exc):
            return None

    with Opener(x) as h:
        out = h.t + 1
    return out, type(h).__name__


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
