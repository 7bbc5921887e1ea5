"""A generator's state read in the trace: ``gi_running`` (True only from its own body), ``gi_suspended`` (paused
at a ``yield``) and ``gi_frame`` once it has finished (None) are known to the translator for a generator made
while tracing, so reading them is no graph break (after CPython's test_generators)."""

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES
X = torch.ones(3)


def two():
    yield 1
    yield 2


@case(X)
def state_through_a_life(x):
    g = two()
    states = [(g.gi_running, g.gi_suspended)]
    next(g)
    states.append((g.gi_running, g.gi_suspended))
    list(g)
    states.append((g.gi_running, g.gi_suspended, g.gi_frame))
    return x + 1, states


@case(X)
def running_seen_from_own_body(x):
    def watch():
        yield me.gi_running
        yield me.gi_suspended
    me = watch()
    return x * 2, list(me)


@case(X)
def frame_gone_after_close_and_after_an_error(x):
    closed = two()
    next(closed)
    closed.close()

    def fails():
        yield 1
        raise KeyError("k")
    failed = fails()
    try:
        list(failed)
    except KeyError:
        pass
    return x - 1, closed.gi_frame, failed.gi_frame, closed.gi_suspended


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_generator_state_matches_eager_in_one_graph(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
