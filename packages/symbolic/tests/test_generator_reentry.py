"""A generator resumed from its own body (``next``, ``send``, ``throw`` or ``close`` reaching it while it runs):
CPython raises ``ValueError('generator already executing')`` there and leaves the generator as it was; the trace
raises the same, catchable, in one graph (it resumed the translator mid-instruction and crashed)."""

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES
X = torch.ones(3)


@case(X)
def next_from_own_body_escapes_to_the_caller(x):
    def produce():
        value = next(me)
        yield value

    me = produce()
    try:
        next(me)
    except ValueError as exc:
        return x + 1, str(exc), next(me, "finished")
    return x, "", ""


@case(X)
def reentry_caught_in_the_body_keeps_the_generator_running(x):
    log = []

    def produce():
        try:
            next(me)
        except ValueError as exc:
            log.append(str(exc))
        yield 1
        try:
            me.send(None)
        except ValueError:
            log.append("send")
        try:
            me.close()
        except ValueError:
            log.append("close")
        yield 2

    me = produce()
    return x + sum(me), log


@case(X)
def throw_from_own_body(x):
    def produce():
        try:
            me.throw(KeyError("k"))
        except ValueError:
            yield 10
        yield 20

    me = produce()
    return x + sum(me)


@case(X)
def send_value_on_first_run_is_reentry_not_just_started(x):
    def produce():
        try:
            me.send(5)
        except ValueError:
            yield 1
        except TypeError:
            yield 2

    me = produce()
    return x + next(me)


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_generator_reentry_matches_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
