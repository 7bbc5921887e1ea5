"""A generator's state read in the trace: ``gi_running`` (True only from its own body), ``gi_suspended`` (paused
at a ``yield``) and ``gi_frame`` once it has finished (None) are known to the translator for a generator made
while tracing, so reading them is no graph break (after CPython's test_generators). A live one's ``gi_frame`` is a
frame the trace only tests for None (``inspect.getgeneratorstate``, after PyTorch's test/dynamo/test_generator.py):
that read was a break, and every later read of the generator's state, in the resumed code, broke again."""

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


@case(X)
def getgeneratorstate_through_a_life(x):
    import inspect

    def watch():
        yield inspect.getgeneratorstate(me)
        yield 2

    me = watch()
    states = [inspect.getgeneratorstate(me), next(me), inspect.getgeneratorstate(me)]
    me.close()
    states.append(inspect.getgeneratorstate(me))
    unstarted = two()
    unstarted.close()
    return x + 1, states, inspect.getgeneratorstate(unstarted)


@case(X)
def live_frame_tested_for_none(x):
    g = two()
    before = (g.gi_frame is None, g.gi_frame is not None, bool(g.gi_frame))
    list(g)
    return x * 3, before, g.gi_frame is None


def test_reading_from_a_live_frame_breaks():
    """What the trace has no stand-in for (the frame's locals) is a graph break, never a made-up value."""
    from loom_symbolic import translate_function

    def reads_locals(x):
        g = two()
        next(g)
        return x + 1, dict(g.gi_frame.f_locals)

    translation = translate_function(reads_locals, X)
    assert translation.breaks and "f_locals" in translation.breaks[0].reason.what


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_generator_state_matches_eager_in_one_graph(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
