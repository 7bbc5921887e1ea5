"""Programs after CPython's generator and contextlib tests PyTorch runs under Dynamo, for ``capture_count.py --only
cpython_exc``: test_generator_stop (PEP 479: StopIteration inside a generator becomes RuntimeError),
test_generators (send, throw, close, ``yield from``, gi_* state, return values) and test_contextlib
(``contextmanager``, ``suppress``, ``nullcontext``, ``ExitStack``, ``closing``, ``redirect_stdout``), each with
tensor work around the construct.
"""

from __future__ import annotations

import contextlib
import io

import torch  # noqa: F401

_SINK = io.StringIO()


# ---- test_generator_stop ----

def c_ce_gen_stop_iteration_becomes_runtime_error(x):
    def gen():
        yield 1
        raise StopIteration
    x = x + 1
    try:
        for v in gen():
            x = x + v
    except RuntimeError as exc:
        x = x * 2 + isinstance(exc.__cause__, StopIteration)
    return x


def c_ce_gen_next_on_exhausted_in_gen(x):
    def gen():
        it = iter(())
        yield next(it)
    x = x.sin()
    try:
        list(gen())
    except RuntimeError:
        x = x + 3
    return x


def c_ce_gen_return_ends_cleanly(x):
    def gen():
        yield 1
        return
    x = x.cos()
    return x + sum(gen())


# ---- test_generators ----

def c_ce_gen_send_accumulates(x):
    def acc():
        total = 0
        while True:
            v = yield total
            total += v
    x = x + 1
    g = acc()
    next(g)
    for k in (1, 2, 3):
        r = g.send(k)
    return x * r


def c_ce_gen_send_non_none_first_fails(x):
    def gen():
        yield 1
    x = x + 1
    try:
        gen().send(5)
    except TypeError:
        x = x * 2
    return x


def c_ce_gen_throw_caught_inside(x):
    def gen():
        try:
            yield 1
        except ValueError:
            yield 10
    x = x.exp()
    g = gen()
    next(g)
    return x + g.throw(ValueError("t"))


def c_ce_gen_throw_propagates(x):
    def gen():
        yield 1
    x = x + 1
    g = gen()
    next(g)
    try:
        g.throw(KeyError("k"))
    except KeyError as exc:
        x = x + len(exc.args)
    return x


def c_ce_gen_throw_unstarted(x):
    def gen():
        yield 1
    x = x * 3
    g = gen()
    try:
        g.throw(ValueError)
    except ValueError:
        x = x + 1
    return x + (next(g, 7))


def c_ce_gen_close_runs_finally(x):
    log = []

    def gen():
        try:
            yield 1
        finally:
            log.append("f")
    x = x + 1
    g = gen()
    next(g)
    g.close()
    return x + len(log)


def c_ce_gen_close_catching_generator_exit(x):
    def gen():
        try:
            yield 1
        except GeneratorExit:
            raise
    x = x.cos()
    g = gen()
    next(g)
    g.close()
    return x + 1


def c_ce_gen_close_yield_raises_runtime_error(x):
    def gen():
        try:
            yield 1
        except GeneratorExit:
            yield 2
    x = x + 1
    g = gen()
    next(g)
    try:
        g.close()
    except RuntimeError:
        x = x * 2
    return x


def c_ce_gen_return_value_in_stop_iteration(x):
    def gen():
        yield 1
        return 42
    x = x.sin()
    g = gen()
    next(g)
    try:
        next(g)
    except StopIteration as exc:
        x = x + exc.value
    return x


def c_ce_gen_yield_from_return_value(x):
    def inner():
        yield 1
        return 5

    def outer():
        r = yield from inner()
        yield r
    x = x + 1
    return x * sum(outer())


def c_ce_gen_yield_from_throw_delegated(x):
    def inner():
        try:
            yield 1
        except ValueError:
            yield 100

    def outer():
        yield from inner()
    x = x + 1
    g = outer()
    next(g)
    return x + g.throw(ValueError)


def c_ce_gen_yield_from_send_delegated(x):
    def inner():
        a = yield 0
        b = yield a
        return a + b

    def outer():
        r = yield from inner()
        yield r
    x = x * 2
    g = outer()
    next(g)
    g.send(3)
    return x + g.send(4)


def c_ce_gen_state_flags(x):
    def gen():
        yield 1
    x = x + 1
    g = gen()
    n = (g.gi_frame is not None) + (not g.gi_running)
    list(g)
    n += g.gi_frame is None
    return x + n


def c_ce_gen_exhausted_stays_exhausted(x):
    def gen():
        yield 1
    x = x.abs()
    g = gen()
    a = list(g)
    b = list(g)
    return x + len(a) + len(b)


def c_ce_gen_expression_lazy(x):
    x = x + 1
    seen = []
    g = (seen.append(i) or i for i in range(4))
    first = next(g)
    return x + first + len(seen)


def c_ce_gen_fibonacci(x):
    def fib():
        a, b = 0, 1
        while True:
            yield b
            a, b = b, a + b
    x = x + 1
    out = []
    for v in fib():
        if v > 20:
            break
        out.append(v)
    return x * sum(out)


def c_ce_gen_exception_in_body_propagates(x):
    def gen():
        yield 1
        raise KeyError("inside")
    x = x + 1
    got = []
    try:
        for v in gen():
            got.append(v)
    except KeyError:
        x = x + 5
    return x + len(got)


def c_ce_gen_tensor_yields(x):
    def gen(t):
        for k in range(3):
            yield t * k
    x = x.sin()
    return sum(gen(x)) + 1


# ---- test_contextlib ----

def c_ce_ctx_contextmanager_basic(x):
    log = []

    @contextlib.contextmanager
    def cm():
        log.append("enter")
        yield 5
        log.append("exit")
    x = x + 1
    with cm() as v:
        x = x * v
    return x + len(log)


def c_ce_ctx_contextmanager_finally_on_raise(x):
    log = []

    @contextlib.contextmanager
    def cm():
        try:
            yield
        finally:
            log.append("f")
    x = x + 1
    try:
        with cm():
            raise ZeroDivisionError
    except ZeroDivisionError:
        x = x * 2
    return x + len(log)


def c_ce_ctx_contextmanager_swallows(x):
    @contextlib.contextmanager
    def cm():
        try:
            yield
        except ValueError:
            pass
    x = x.cos()
    with cm():
        raise ValueError
    return x + 1


def c_ce_ctx_contextmanager_no_yield_error(x):
    @contextlib.contextmanager
    def cm():
        if False:
            yield
    x = x + 1
    try:
        with cm():
            pass
    except RuntimeError:
        x = x * 3
    return x


def c_ce_ctx_contextmanager_reraise_different(x):
    @contextlib.contextmanager
    def cm():
        try:
            yield
        except KeyError as exc:
            raise ValueError("translated") from exc
    x = x + 1
    try:
        with cm():
            raise KeyError
    except ValueError as exc:
        x = x + isinstance(exc.__cause__, KeyError)
    return x


def c_ce_ctx_contextmanager_as_decorator(x):
    log = []

    @contextlib.contextmanager
    def cm():
        log.append(1)
        yield
        log.append(2)

    @cm()
    def f(t):
        return t + 1
    x = x.sin()
    return f(x) + len(log)


def c_ce_ctx_suppress_one(x):
    x = x + 1
    with contextlib.suppress(KeyError):
        {}["missing"]
        x = x + 100
    return x * 2


def c_ce_ctx_suppress_base_class(x):
    x = x + 1
    with contextlib.suppress(LookupError):
        [][1]
    return x * 2


def c_ce_ctx_suppress_not_matching(x):
    x = x + 1
    try:
        with contextlib.suppress(KeyError):
            raise ValueError
    except ValueError:
        x = x + 3
    return x


def c_ce_ctx_nullcontext(x):
    x = x + 1
    with contextlib.nullcontext(4) as v:
        x = x * v
    return x


def c_ce_ctx_exit_stack_callbacks_order(x):
    order = []
    x = x + 1
    with contextlib.ExitStack() as stack:
        for k in range(3):
            stack.callback(order.append, k)
        x = x * 2
    return x + order[0] * 10 + order[2]


def c_ce_ctx_exit_stack_enter_context(x):
    log = []

    @contextlib.contextmanager
    def cm(k):
        yield k
        log.append(k)
    x = x + 1
    with contextlib.ExitStack() as stack:
        a = stack.enter_context(cm(1))
        b = stack.enter_context(cm(2))
        x = x + a + b
    return x * log[0]


def c_ce_ctx_closing(x):
    class Thing:
        closed = False

        def close(self):
            self.closed = True
    t = Thing()
    x = x.cos()
    with contextlib.closing(t) as got:
        x = x + (got is t)
    return x + t.closed


def c_ce_ctx_redirect_stdout(x):
    x = x + 1
    with contextlib.redirect_stdout(_SINK):
        pass
    return x * 2


def c_ce_ctx_user_exit_suppresses(x):
    class Quiet:
        def __enter__(self):
            return self

        def __exit__(self, kind, value, tb):
            return kind is KeyError
    x = x + 1
    with Quiet():
        raise KeyError
    return x * 2


def c_ce_ctx_user_exit_sees_exception(x):
    seen = []

    class Watch:
        def __enter__(self):
            return self

        def __exit__(self, kind, value, tb):
            seen.append(kind)
            return True
    x = x.sin()
    with Watch():
        raise IndexError
    return x + (seen[0] is IndexError)


CONSTRUCTS = [
    c_ce_gen_stop_iteration_becomes_runtime_error, c_ce_gen_next_on_exhausted_in_gen, c_ce_gen_return_ends_cleanly,
    c_ce_gen_send_accumulates, c_ce_gen_send_non_none_first_fails, c_ce_gen_throw_caught_inside,
    c_ce_gen_throw_propagates, c_ce_gen_throw_unstarted, c_ce_gen_close_runs_finally,
    c_ce_gen_close_catching_generator_exit, c_ce_gen_close_yield_raises_runtime_error,
    c_ce_gen_return_value_in_stop_iteration, c_ce_gen_yield_from_return_value, c_ce_gen_yield_from_throw_delegated,
    c_ce_gen_yield_from_send_delegated, c_ce_gen_state_flags, c_ce_gen_exhausted_stays_exhausted,
    c_ce_gen_expression_lazy, c_ce_gen_fibonacci, c_ce_gen_exception_in_body_propagates, c_ce_gen_tensor_yields,
    c_ce_ctx_contextmanager_basic, c_ce_ctx_contextmanager_finally_on_raise, c_ce_ctx_contextmanager_swallows,
    c_ce_ctx_contextmanager_no_yield_error, c_ce_ctx_contextmanager_reraise_different,
    c_ce_ctx_contextmanager_as_decorator, c_ce_ctx_suppress_one, c_ce_ctx_suppress_base_class,
    c_ce_ctx_suppress_not_matching, c_ce_ctx_nullcontext, c_ce_ctx_exit_stack_callbacks_order,
    c_ce_ctx_exit_stack_enter_context, c_ce_ctx_closing, c_ce_ctx_redirect_stdout, c_ce_ctx_user_exit_suppresses,
    c_ce_ctx_user_exit_sees_exception,
]
