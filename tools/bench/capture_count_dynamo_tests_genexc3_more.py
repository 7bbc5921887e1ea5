"""Managers driven by hand and delegation through ``yield from``, modelled on PyTorch's test/dynamo/test_ctx_manager.py
(its contextlib half) and test_generator.py (its delegation tests), for ``capture_count.py --only
dynamo_tests_genexc3`` (a part of ``capture_count_dynamo_tests_genexc3.py``): ``@contextmanager`` objects returned
fresh or entered, handed in entered or not, ``__exit__`` before a break, ``suppress``/``redirect_*`` around tensor
work, and ``throw``/``close`` forwarded to an iterator object a generator delegates to. Each is written afresh over
one tensor; a break is a ``print`` to a sink.
"""

from __future__ import annotations

import contextlib
import io
import sys

import torch

_SINK = io.StringIO()
_LOG: list = []


@contextlib.contextmanager
def _logged(t):
    try:
        _LOG.append("in")
        yield t.cos() + 1
    finally:
        _LOG.append("out")


class _Forwarding:
    """An iterator with the generator protocol's ``throw`` and ``close`` (not a generator)."""

    def __init__(self, log):
        self.log = log

    def __iter__(self):
        return self

    def __next__(self):
        return 1

    def send(self, value):
        return 1

    def throw(self, kind, value=None, tb=None):
        self.log.append("throw")
        return 2

    def close(self):
        self.log.append("close")


# -- contextmanager objects by hand ------------------------------------------------------------------------
def c_gx3m_return_fresh_contextmanager(x):
    _LOG.clear()
    ctx = _logged(x)
    return x + 1, type(ctx).__name__, list(_LOG)


def c_gx3m_enter_then_return_value_and_exit(x):
    _LOG.clear()
    ctx = _logged(x)
    y = ctx.__enter__()
    ctx.__exit__(None, None, None)
    return x + y, list(_LOG)


def c_gx3m_enter_break_exit_in_finally(x):
    _LOG.clear()
    ctx = _logged(x)
    try:
        y = ctx.__enter__()
        print("b", file=_SINK)
    finally:
        ctx.__exit__(None, None, None)
    return y, list(_LOG)


def c_gx3m_break_in_finally_of_manager(x):
    log = []

    @contextlib.contextmanager
    def whoo(t):
        try:
            log.append(1)
            yield t.sin()
        finally:
            print("b", file=_SINK)
            log.append(2)

    ctx = whoo(x)
    y = ctx.__enter__()
    ctx.__exit__(None, None, None)
    return y, log


def c_gx3m_argument_entered_and_exited(x, ctx):
    y = ctx.__enter__()
    ctx.__exit__(None, None, None)
    return x + y


c_gx3m_argument_entered_and_exited.extra_args = lambda: (_logged(torch.ones(3)),)


def c_gx3m_argument_entered_only(x, ctx):
    y = ctx.__enter__()
    return x + y


c_gx3m_argument_entered_only.extra_args = lambda: (_logged(torch.ones(3)),)


def c_gx3m_suppress_around_tensor_work(x):
    y = x.sin()
    with contextlib.suppress(ValueError):
        y = y + x.cos()
        raise ValueError
    return y.tan()


def c_gx3m_redirect_stdout_around_tensor_work(x):
    y = x.sin()
    with contextlib.redirect_stdout(_SINK):
        y = y + x.cos()
    return y.tan(), sys.stdout is _SINK


def c_gx3m_nullcontext_returns_inside(x):
    with contextlib.nullcontext(x) as same:
        return same.sin()


# -- delegation to an iterator object ----------------------------------------------------------------------
def c_gx3m_throw_forwarded_to_iterator(x):
    log = []

    def outer():
        yield from _Forwarding(log)

    g = outer()
    first = next(g)
    second = g.throw(ValueError)
    return x + first + second, log


def c_gx3m_close_forwarded_to_iterator(x):
    log = []

    def outer():
        yield from _Forwarding(log)

    g = outer()
    next(g)
    g.close()
    return x + 1, log


def c_gx3m_throw_into_plain_list_iterator(x):
    def outer():
        yield from iter([1, 2, 3])

    g = outer()
    next(g)
    try:
        g.throw(ValueError)
    except ValueError:
        return x.sin()
    return x.cos()


def c_gx3m_throw_generator_exit_closes_subgen(x):
    log = []

    def sub():
        try:
            yield 1
        finally:
            log.append("sub finally")

    def outer():
        yield from sub()

    g = outer()
    next(g)
    try:
        g.throw(GeneratorExit)
    except GeneratorExit:
        log.append("exit")
    return x + len(log), log


def c_gx3m_throw_through_two_delegations(x):
    log = []

    def leaf():
        try:
            yield 1
        except ValueError:
            log.append("leaf")
            yield 2

    def mid():
        yield from leaf()

    def outer():
        yield from mid()

    g = outer()
    next(g)
    return x * g.throw(ValueError), log


def c_gx3m_send_forwarded_records(x):
    got = []

    def sub():
        v = yield 1
        got.append(v)
        yield 2

    def outer():
        yield from sub()

    g = outer()
    a = next(g)
    b = g.send(x.sum())
    return a + b, got


# -- autocast and generic managers around breaks ----------------------------------------------------------
class _GradSwitch:
    def __init__(self, mode):
        self.prev = torch.is_grad_enabled()
        self.mode = mode

    def __enter__(self):
        torch._C._set_grad_enabled(self.mode)

    def __exit__(self, *exc):
        torch._C._set_grad_enabled(self.prev)


class _BreakingGradSwitch(_GradSwitch):
    def __enter__(self):
        print("b", file=_SINK)
        super().__enter__()


def c_gx3m_autocast_nested_disabled_with_breaking_static(x):
    class Mixer(torch.nn.Module):
        @staticmethod
        def mm_breaks(a, b):
            print("b", file=_SINK)
            return torch.mm(a, b)

        def forward(self, t):
            a = t.reshape(3, 1) * torch.ones(1, 3)
            with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
                print("b", file=_SINK)
                with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=False):
                    g32 = torch.mm(a, a)
                    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
                        f16_1 = self.mm_breaks(a, a)
                f16 = self.mm_breaks(a, a)
            return f16, f16_1, g32

    return Mixer()(x)


def c_gx3m_autocast_method_break_then_compare(x):
    a = x.reshape(3, 1) * torch.ones(1, 3)
    bias = torch.ones(3, 3, dtype=torch.bfloat16)

    def plain(p, q):
        return torch.mm(p, q) + bias

    def breaking(p, q):
        print("b", file=_SINK)
        return torch.mm(p, q) + bias

    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        f16 = breaking(a, a)
        same = bool(f16[0][0] == plain(a, a)[0][0])
    return f16, same


def c_gx3m_breaking_enter_of_subclass_switch(x):
    x = x.clone().requires_grad_(True)
    with _BreakingGradSwitch(False):
        if torch.is_grad_enabled():
            z = x + 1000
        else:
            z = (x * 2).sin() + 3
    return z.detach(), z.requires_grad, torch.is_grad_enabled()


def c_gx3m_returned_switch_after_use(x):
    cm = _GradSwitch(False)
    with cm:
        y = x * 2
    return y, cm.mode, type(cm).__name__


# -- torch._dynamo.disable and graph_break around generators and managers -------------------------------------
def c_gx3m_disabled_generator_function(x):
    @torch._dynamo.disable
    def gen(t):
        yield t + 1
        yield t + 2

    return list(gen(x))


def c_gx3m_disabled_subgenerator(x):
    @torch._dynamo.disable
    def sub(t):
        yield t + 2
        yield t + 3

    def gen(t):
        yield t + 1
        yield from sub(t)

    return list(gen(x))


def c_gx3m_dynamo_graph_break_inside_generator(x):
    def gen():
        yield 1
        torch._dynamo.graph_break()
        yield 2

    g = gen()
    s = next(g)
    s += next(g)
    return x + s


def c_gx3m_disabled_helper_enters_manager(x):
    @contextlib.contextmanager
    def whoo(t):
        try:
            yield t + 1
        finally:
            pass

    @torch._dynamo.disable
    def g(t):
        with whoo(t) as y:
            return y

    return g(x)


def c_gx3m_advanced_generator_argument(x, gen):
    return x + next(gen)


def _advanced():
    def counting():
        yield 1
        yield 2
        yield 3

    g = counting()
    next(g)
    return (g,)


c_gx3m_advanced_generator_argument.extra_args = _advanced


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
