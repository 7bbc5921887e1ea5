"""``gen.close()`` on a generator made in the trace and paused inside its own ``try`` block (issue 29):
GeneratorExit is raised at the paused ``yield`` in the trace, so its ``finally`` and handlers run where
eager runs them, in one graph; what escapes (GeneratorExit, another exception, a second ``yield``) does
what CPython does."""

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES
X = torch.ones(3)
LOG = []


def guarded():
    try:
        yield 1
        yield 2
    finally:
        LOG.append("finally")


def catches_exit():
    try:
        yield 1
    except GeneratorExit:
        LOG.append("caught")
        raise


def swallows_exit():
    try:
        yield 1
    except GeneratorExit:
        LOG.append("swallowed")


def yields_again():
    try:
        yield 1
    except GeneratorExit:
        yield 2


def raises_other():
    try:
        yield 1
    finally:
        raise KeyError("from finally")


@case(X)
def close_runs_the_finally(x):
    LOG.clear()
    gen = guarded()
    y = x + next(gen)
    try:
        gen.close()
    except Exception:
        y = y * 100
    LOG.append("after")
    return y + len(LOG), list(LOG), next(gen, "exhausted")


@case(X)
def close_through_handlers(x):
    LOG.clear()
    first, second = catches_exit(), swallows_exit()
    y = x + next(first) + next(second)
    first.close()
    second.close()
    second.close()  # closed already: nothing runs
    return y, list(LOG)


@case(X)
def close_of_a_generator_that_yields_again(x):
    gen = yields_again()
    y = x + next(gen)
    try:
        gen.close()
    except RuntimeError as exc:
        return y, type(exc).__name__


@case(X)
def close_raising_from_finally(x):
    gen = raises_other()
    y = x + next(gen)
    try:
        gen.close()
    except KeyError as exc:
        return y, exc.args


@case(X)
def next_on_generators_made_here(x):
    gen = (v * 2 for v in range(3))
    squares = guarded()
    a, b = next(gen), next(gen)
    c = next(squares)
    rest = list(gen)
    return x + a + b + c, rest, next(gen, None)


def delegating(inner):
    try:
        yield from inner
    finally:
        LOG.append("outer finally")


def plainly_delegating(inner):
    yield from inner


@case(X)
def close_closes_the_generator_yield_from_waits_on(x):
    LOG.clear()
    gen, plain = delegating(guarded()), plainly_delegating(guarded())
    y = x + next(gen) + next(plain)
    gen.close()
    plain.close()
    return y, list(LOG)


@case(X)
def close_raises_what_closing_the_inner_generator_raises(x):
    gen = plainly_delegating(raises_other())
    y = x + next(gen)
    try:
        gen.close()
    except KeyError as exc:
        return y, exc.args, next(gen, "exhausted")


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_generator_close_matches_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
