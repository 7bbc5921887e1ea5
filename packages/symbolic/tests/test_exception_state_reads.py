"""``sys.exc_info()`` / ``sys.exception()`` read outside every handler of the trace (issue 29, exceptions):
the exception the frame's caller handles, ``None`` when it handles none, answered while tracing under a
guard instead of a graph break; read inside a handler, the traced exception."""

import sys

import pytest
import torch
from harness import CaseRegistry, check

from loom_symbolic import translate_function

CASES = CaseRegistry(default_graphs=1)
case = CASES
X = torch.ones(3)


@case(X)
def exc_info_around_a_handler(x):
    before = sys.exc_info()[0]
    try:
        raise TypeError("t")
    except TypeError:
        kind, value, _ = sys.exc_info()
        inside = (kind.__name__, str(value))
    after = sys.exc_info()
    return x + 1, before, inside, after


@case(X)
def exception_outside_handlers(x):
    return x * 2, sys.exception() is None, sys.exception()


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_exception_state_reads_match_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)


def test_read_outside_handlers_is_guarded_on_the_callers_exception():
    translation = translate_function(exception_outside_handlers, X)
    assert any("handled where the frame is called" in str(guard) for guard in translation.guards)
