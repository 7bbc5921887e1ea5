"""Generators made in the trace and dropped while paused inside their own ``try`` block (issue 29): CPython
closes such a generator when its last reference goes (``del``, a ``for`` loop left by ``break``, the name
bound again, the frame returning), so its ``finally``/``with`` exit runs there. The trace closes it at the
same point, in one graph; a generator still reachable is left alone."""

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES
X = torch.ones(3)


def logged(t, log, name="g"):
    try:
        yield t.sin()
        yield t.cos()
    finally:
        log.append(name)


def under_no_grad(t):
    with torch.no_grad():
        yield t * 2
        yield t * 3


@case(X)
def left_open_at_return(x):
    log = []
    gen = logged(x, log)
    return next(gen), log


@case(X)
def deleted(x):
    log = []
    gen = logged(x, log)
    first = next(gen)
    del gen
    log.append("after")
    return first, log


@case(X)
def loop_left_by_break(x):
    log = []
    out = x
    for item in logged(x, log):
        out = out + item
        break
    log.append("after")
    return out, log


@case(X)
def name_bound_again(x):
    log = []
    gen = logged(x, log, "first")
    a = next(gen)
    gen = logged(x, log, "second")
    b = next(gen)
    log.append("after")
    return a + b, log


@case(X)
def two_left_open_close_in_local_order(x):
    log = []
    second = logged(x, log, "second")
    first = logged(x, log, "first")
    return next(first) + next(second), log


@case(X)
def with_block_exited_when_dropped(x):
    gen = under_no_grad(x)
    inside = torch.is_grad_enabled()
    first = next(gen)
    paused = torch.is_grad_enabled()
    del gen
    return first, inside, paused, torch.is_grad_enabled()


def holder(t, log):
    inner = logged(t, log, "inner")
    try:
        yield next(inner)
    finally:
        log.append("holder")


@case(X)
def held_only_by_a_dropped_generator(x):
    log = []
    gen = holder(x, log)
    first = next(gen)
    del gen
    return first, log


def take_one(gen):
    return next(gen)


@case(X)
def still_held_after_a_helper(x):
    log = []
    gen = logged(x, log)
    a = take_one(gen)
    log.append("between")
    b = next(gen)
    return a + b, log


@case(X)
def kept_in_a_list(x):
    log = []
    keep = [logged(x, log)]
    a = next(keep[0])
    log.append("between")
    b = next(keep[0])
    keep.clear()
    log.append("after")
    return a + b, log


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_dropped_generator_matches_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
