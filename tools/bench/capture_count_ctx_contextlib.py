"""Context managers from ``contextlib``, one small program each, for ``capture_count.py`` (``--only ctx`` runs
these with :mod:`capture_count_ctx`'s): ``@contextlib.contextmanager`` generators made outside and inside the
compiled function (values yielded, state changed, exceptions caught or rewrapped, breaks in the generator,
its body and its ``finally``; ``__enter__``/``__exit__`` called by hand), ``nullcontext``, ``suppress``,
``redirect_stdout``, ``ExitStack``, ``ContextDecorator`` and ``AbstractContextManager``.

A break is a ``print`` to a sink (torch.compile breaks there too); state a construct changes is returned.
"""

from __future__ import annotations

import contextlib
import io

import torch

_SINK = io.StringIO()


def _weight():
    return (torch.ones(3, requires_grad=True),)


# -- contextlib ---------------------------------------------------------------------------------------
@contextlib.contextmanager
def _default_dtype(dtype):
    old = torch.get_default_dtype()
    try:
        torch.set_default_dtype(dtype)
        yield
    finally:
        torch.set_default_dtype(old)


def c_contextmanager_default_dtype(x):
    with _default_dtype(torch.float64):
        y = torch.ones(3) + x.double()
    return y, y.dtype, torch.get_default_dtype()


@contextlib.contextmanager
def _sined(t):
    try:
        yield t.sin()
    finally:
        pass


def c_contextmanager_yields_value(x):
    with _sined(x) as y:
        return y.cos()


@contextlib.contextmanager
def _grad_switch_gen(mode):
    prev = torch.is_grad_enabled()
    try:
        yield torch._C._set_grad_enabled(mode)
    finally:
        torch._C._set_grad_enabled(prev)


def c_contextmanager_grad(x, w):
    with _grad_switch_gen(False):
        y = x * w
        with _grad_switch_gen(True):
            z = x * w
    return y + z, y.requires_grad, z.requires_grad, torch.is_grad_enabled()


c_contextmanager_grad.extra_args = _weight


def c_contextmanager_defined_inside(x):
    log = []

    @contextlib.contextmanager
    def tagged(name):
        log.append(("in", name))
        try:
            yield len(name)
        finally:
            log.append(("out", name))

    with tagged("abc") as n:
        y = x + n
    return y, log


def c_contextmanager_nonlocal(x):
    state = {"k": 0}
    z = 0

    def create():
        @contextlib.contextmanager
        def ctx(t):
            nonlocal z
            try:
                state["k"] = 100
                z = 7
                yield t.sin()
            finally:
                state["k"] += 1

        return ctx

    def run(ctx, t):
        with ctx(t) as y:
            return y.cos() + state["k"]

    out = run(create(), x)
    return out, state["k"], z


_COUNT = [0]


@contextlib.contextmanager
def _bump_global():
    _COUNT[0] += 1
    yield _COUNT[0]


def c_contextmanager_globals(x):
    _COUNT[0] = 0
    with _bump_global():
        pass
    with _bump_global() as n:
        return x * n


@contextlib.contextmanager
def _breaking_gen(t, log):
    y = t.tan()
    try:
        log.append("before")
        print("break", file=_SINK)
        yield y
    finally:
        log.append("after")


def c_contextmanager_break_in_generator(x):
    log = []
    y = x.sin()
    with _breaking_gen(x, log) as z:
        y = y + z.neg()
    return y + x.cos(), log


def c_contextmanager_break_in_body(x):
    log = []
    with _grad_switch_gen(False):
        y = x * 2
        print("break", file=_SINK)
        with _default_dtype(torch.float64):
            z = torch.ones(3)
        log.append(torch.is_grad_enabled())
    return y + z, log, torch.is_grad_enabled(), torch.get_default_dtype()


def c_contextmanager_manual_calls(x):
    ctx = _sined(x + 1)
    y = ctx.__enter__()
    suppressed = ctx.__exit__(None, None, None)
    return y, suppressed


def c_contextmanager_argument(x, ctx):
    y = ctx.__enter__()
    ctx.__exit__(None, None, None)
    return x + y


c_contextmanager_argument.extra_args = lambda: (_sined(torch.ones(3)),)


@contextlib.contextmanager
def _catching(log):
    log.append(1)
    try:
        yield 42
    except ZeroDivisionError as e:
        log.append(e.args[0])


def c_contextmanager_catches(x):
    log = []
    with _catching(log) as v:
        log.append(v)
        raise ZeroDivisionError(999)
    return x + len(log), log


@contextlib.contextmanager
def _rewrapping():
    try:
        yield
    except Exception as exc:
        raise RuntimeError(f"caught {type(exc).__name__}") from exc


def c_contextmanager_rewraps(x):
    try:
        with _rewrapping():
            raise KeyError("k")
    except RuntimeError as e:
        return x + 1, e.args, type(e.__cause__)


def c_contextmanager_plain_yield(x):
    state = []

    @contextlib.contextmanager
    def woohoo():
        state.append(1)
        yield 42
        state.append(999)

    y = x.sum()
    with woohoo() as v:
        state.append(v)
        y = y + v
    return y, state


@contextlib.contextmanager
def _counting(log):
    log.append("in")
    yield
    log.append("out")


def c_contextmanager_as_decorator(x):
    log = []

    @_counting(log)
    def work(t):
        return t * 2

    return work(x) + work(x), log


def c_nullcontext(x):
    with contextlib.nullcontext():
        a = x.sin()
    with contextlib.nullcontext(5) as n:
        return a + n


def c_nullcontext_stored_break(x):
    x = x + 1
    ctx = contextlib.nullcontext()
    print("break", file=_SINK)
    with ctx:
        x = x + 1
    return x


def c_suppress(x):
    y = x.sin()
    with contextlib.suppress(ValueError, KeyError):
        y = y + x.cos()
        raise KeyError("gone")
    return y.tan()


def c_redirect_stdout(x):
    buffer = io.StringIO()
    y = x.sin()
    with contextlib.redirect_stdout(buffer):
        y = y + x.cos()
    return y.tan()


def c_exit_stack(x, w):
    log = []
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.no_grad())
        n = stack.enter_context(contextlib.nullcontext(3))
        stack.callback(log.append, "closed")
        y = x * w + n
    return y, y.requires_grad, log, torch.is_grad_enabled()


c_exit_stack.extra_args = _weight


def c_exit_stack_left_by_exception(x, w):
    log = []
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch.no_grad())
            stack.callback(log.append, "closed")
            y = x * w
            raise ValueError("leave")
    except ValueError as exc:  # 3.13's ExitStack.__exit__ reads exc.__traceback__
        z = x * w + len(exc.args)
    return y, z, z.requires_grad, log, torch.is_grad_enabled()


c_exit_stack_left_by_exception.extra_args = _weight


class _Traced(contextlib.ContextDecorator):
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, *exc):
        self.log.append("exit")
        return False


def c_context_decorator(x):
    log = []

    @_Traced(log)
    def work(t):
        return t + 1

    return work(x), log


def c_abstract_context_manager(x):
    class Counted(contextlib.AbstractContextManager):
        def __init__(self):
            self.n = 0

        def __exit__(self, *exc):
            self.n += 1

    c = Counted()
    with c as same:
        y = x + 1
    return y, c.n, same is c


def c_contextmanager_enter_then_break(x):
    log = []
    ctx = _breaking_gen(x, log)
    try:
        y = ctx.__enter__()
        print("break", file=_SINK)
    finally:
        ctx.__exit__(None, None, None)
    return y, log


def c_contextmanager_break_in_finally(x):
    log = []

    @contextlib.contextmanager
    def whoo(t):
        try:
            log.append(1)
            yield t.sin()
        finally:
            print("break", file=_SINK)
            log.append(2)

    ctx = whoo(x)
    y = ctx.__enter__()
    ctx.__exit__(None, None, None)
    return y, log


CONSTRUCTS = [
    c_contextmanager_default_dtype,
    c_contextmanager_yields_value,
    c_contextmanager_grad,
    c_contextmanager_defined_inside,
    c_contextmanager_nonlocal,
    c_contextmanager_globals,
    c_contextmanager_break_in_generator,
    c_contextmanager_break_in_body,
    c_contextmanager_manual_calls,
    c_contextmanager_argument,
    c_contextmanager_catches,
    c_contextmanager_rewraps,
    c_contextmanager_plain_yield,
    c_contextmanager_as_decorator,
    c_nullcontext,
    c_nullcontext_stored_break,
    c_suppress,
    c_redirect_stdout,
    c_exit_stack,
    c_exit_stack_left_by_exception,
    c_context_decorator,
    c_abstract_context_manager,
    c_contextmanager_enter_then_break,
    c_contextmanager_break_in_finally,
]
