"""``gen.throw(exc)`` on a generator made in the trace (issue 29, second hidden set: test_generator's
throw programs, and ``@contextmanager`` exits with an exception): ``exc`` is raised at the paused
``yield``, inside the ``yield from`` it waits on first, so handlers and ``finally`` blocks run where
eager runs them, in one graph; what leaves the generator reaches the caller as CPython raises it."""

import contextlib

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES
X = torch.ones(3)
LOG = []


def resilient(t):
    while True:
        try:
            yield t.sin()
        except ValueError as exc:
            LOG.append(("caught", exc.args))


def guarded(t):
    try:
        yield t + 1
        yield t + 2
    finally:
        LOG.append("finally")


def handles_one(t):
    try:
        yield t
    except KeyError:
        LOG.append("KeyError")
    LOG.append("done")


def inner(t):
    try:
        yield t * 2
    except IndexError:
        LOG.append("inner caught")
        yield t * 3
    finally:
        LOG.append("inner finally")


def outer(t):
    try:
        yield from inner(t)
    except KeyError:
        LOG.append("outer caught")
        yield t * 4


@case(X)
def throw_caught_in_a_loop(x):
    LOG.clear()
    gen = resilient(x)
    a = next(gen)
    b = gen.throw(ValueError("one"))
    c = gen.throw(ValueError)
    return a + b + c, list(LOG)


@case(X)
def throw_runs_finally_and_propagates(x):
    LOG.clear()
    gen = guarded(x)
    y = next(gen)
    try:
        gen.throw(KeyError("k"))
    except KeyError as exc:
        y = y + len(exc.args)
    return y, list(LOG), next(gen, "exhausted")


@case(X)
def throw_ends_the_generator(x):
    LOG.clear()
    gen = handles_one(x)
    y = next(gen)
    try:
        gen.throw(KeyError)
    except StopIteration:
        y = y * 2
    return y, list(LOG)


@case(X)
def throw_before_start_and_after_end(x):
    fresh = guarded(x)
    try:
        fresh.throw(TypeError("early"))
    except TypeError as exc:
        early = exc.args
    done = guarded(x)
    items = list(done)
    try:
        done.throw(TypeError)
    except TypeError:
        late = "raised"
    return x + len(items), early, late, next(fresh, None)


@case(X)
def throw_through_yield_from(x):
    LOG.clear()
    gen = outer(x)
    a = next(gen)
    b = gen.throw(IndexError)
    c = gen.throw(KeyError)
    return a + b + c, list(LOG)


@contextlib.contextmanager
def converting():
    try:
        yield
    except IndexError as exc:
        LOG.append(("converting", exc.args))
        raise ValueError("converted")  # noqa: B904 (the implicit chain is part of the outcome)


@contextlib.contextmanager
def swallowing():
    try:
        yield
    except KeyError:
        LOG.append("swallowed")
    finally:
        LOG.append("cleanup")


@case(X)
def contextmanager_exits_with_an_exception(x):
    LOG.clear()
    with swallowing():
        x = x + 1
        raise KeyError("k")
    try:
        with converting():
            raise IndexError("i")
    except ValueError as exc:
        seen = (exc.args, type(exc.__context__).__name__)
    return x, seen, list(LOG)


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_generator_throw_matches_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
