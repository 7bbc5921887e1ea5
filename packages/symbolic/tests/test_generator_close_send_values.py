"""Values that travel through a generator made in the trace (issue 29): what ``gen.close()`` returns when
the generator returns on GeneratorExit (the value on CPython 3.13, None on 3.11 and 3.12: eager decides
which here), and a value ``send`` hands a generator paused in ``yield from``, which goes on to the inner
generator (PEP 380), and what ``yield from`` evaluates to (the inner's return value, None for a generator
already exhausted). Each is one graph with no break, with eager's answer."""

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES
X = torch.ones(3)


def returns_from_finally(t):
    try:
        yield t + 1
    finally:
        return 5  # noqa: B012


def returns_on_exit(t):
    try:
        yield t + 1
        yield t + 2
    except GeneratorExit:
        return t * 3


@case(X)
def close_value_used(x):
    gen = returns_from_finally(x)
    first = next(gen)
    closed = gen.close()
    return first + (closed or 0), closed, next(gen, "exhausted")


@case(X)
def close_value_is_a_tensor(x):
    gen = returns_on_exit(x)
    first = next(gen)
    closed = gen.close()
    return first, closed, gen.close()


@case(X)
def close_value_ignored(x):
    gen = returns_from_finally(x)
    first = next(gen)
    gen.close()
    return first * 2


def _inner():
    a = yield 1
    b = yield a + 1
    return a * b


def _outer(log):
    got = yield from _inner()
    log.append(got)
    last = yield got * 10
    log.append(last)


@case(X)
def send_goes_through_yield_from(x):
    log = []
    gen = _outer(log)
    first = next(gen)
    second = gen.send(3)
    third = gen.send(4)  # the inner returns 12: the value of the yield from
    try:
        gen.send(5)
        stopped = False
    except StopIteration as stop:
        stopped = stop.value is None
    return x + first + second + third, log, stopped


def _two_levels(t):
    got = yield from _outer([])
    yield got


@case(X)
def send_goes_through_two_yield_froms(x):
    gen = _two_levels(x)
    return x + next(gen) + gen.send(2) + gen.send(7)


@case(X)
def send_none_then_a_value(x):
    gen = _outer([])
    return x + gen.send(None) + gen.send(None is None)


def _returns_five(t):
    yield t
    return 5


def _delegates(inner):
    got = yield from inner
    yield got


@case(X)
def yield_from_an_exhausted_generator_is_none(x):
    inner = _returns_five(x)
    list(inner)  # its return value went with the StopIteration that ended it
    return x + 1, list(_delegates(inner)), list(_delegates(_returns_five(x)))


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_generator_values_match_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
