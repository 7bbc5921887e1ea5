"""Log calls in compiled code (issue 29): a call made by the compiled frame itself, with arguments that
cannot change afterwards, is made by the rewritten code after the graph, at the same line of the same
frame, in program order with the other side effects, so its record (message, level, file, function,
line) is eager's and the graph is not split. Where a handler could feed the record back into the
program, or the arguments may change, the call stays a graph break."""

import contextlib
import io
import logging
import types

import pytest
import torch
from harness import run_rewritten

import loom_guards
from loom_symbolic import translate_function

X = torch.arange(3.0)
LOG = logging.getLogger("loom.tests.deferred")
LOG.propagate = False
EVENTS = []


@pytest.fixture
def stream():
    """The logger writes every field of its records that depends on the call to a string."""
    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(logging.Formatter("%(filename)s:%(lineno)d:%(funcName)s:%(levelname)s:%(message)s"))
    LOG.setLevel(logging.DEBUG)
    buffer.handler = handler
    return buffer


@contextlib.contextmanager
def only(handler):
    """``handler`` alone on the logger (pytest adds its capturing handlers to every logger in a test)."""
    kept = LOG.handlers[:]
    LOG.handlers[:] = [handler]
    try:
        yield
    finally:
        LOG.handlers[:] = kept


def logs_around_the_work(x):
    LOG.info("start %s of %d", "run", x.shape[0])
    y = x + 1
    EVENTS.append("between")
    LOG.debug("middle")
    LOG.log(logging.WARNING, "end %.1f", 2.5)
    return y * 2


def logs_then_raises(x):
    LOG.error("about to fail")
    raise ValueError("failed")


def logs_a_tensor(x):
    y = x + 1
    LOG.info("value %s", y)  # the tensor could still change in place: made where it is
    y.add_(1)
    return y


def _run(fn, stream):
    with only(stream.handler):
        translation = translate_function(fn, X)
        eager_text = _logged(stream, fn)
        return translation, eager_text, _logged(stream, lambda x: run_rewritten(fn, translation, (x,), {}))


def _logged(stream, fn):
    stream.seek(0)
    stream.truncate()
    EVENTS.clear()
    try:
        fn(X.clone())
    except ValueError:
        pass
    return stream.getvalue(), list(EVENTS)


def test_log_calls_are_made_after_the_graph_with_eager_records(stream):
    translation, eager, loom = _run(logs_around_the_work, stream)
    assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
    assert loom == eager and eager[0].count("logs_around_the_work") == 3, (loom, eager)
    assert "test_deferred_logging.py:" in eager[0]


def test_a_log_call_before_a_raise_is_made_before_it(stream):
    translation, eager, loom = _run(logs_then_raises, stream)
    assert loom == eager and "about to fail" in eager[0], (loom, eager)


def test_a_log_call_with_a_tensor_argument_is_a_graph_break(stream):
    translation, eager, loom = _run(logs_a_tensor, stream)
    assert translation.breaks and "logging" in str(translation.breaks[0]), translation.dump()
    assert loom == eager


class Collecting(logging.Handler):
    """A handler that writes records where the program can read them."""

    def __init__(self):
        super().__init__()
        self.records = []

    def emit(self, record):
        self.records.append(record.getMessage())


def test_a_handler_that_feeds_records_back_keeps_the_break_and_the_guard_notices_one(stream):
    with only(stream.handler):
        translation = translate_function(logs_around_the_work, X)
        guard = loom_guards.compile(translation.guards)
        frame = types.SimpleNamespace(f_locals={"x": X}, f_globals=globals(), closure=None)
        assert guard.why_failed(frame) is None
    with only(Collecting()):
        assert "logs to streams only" in str(guard.why_failed(frame))  # a handler of the program's own: compiled again, breaking
        again = translate_function(logs_around_the_work, X)
        assert again.breaks and "logging" in str(again.breaks[0]), again.dump()


def logs_shapes(x):
    LOG.debug("shape %s, pair %s", x.shape, (x.shape[0], "rows"))  # tuples of fixed values cannot change
    return x + 1


def test_a_log_call_with_a_shape_or_a_tuple_of_constants_is_made_after_the_graph(stream):
    translation, eager, loom = _run(logs_shapes, stream)
    assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
    assert loom == eager and "torch.Size([3])" in eager[0] and "(3, 'rows')" in eager[0], (loom, eager)


def asks_the_level(x):
    if LOG.isEnabledFor(logging.DEBUG):
        x = x + 100
    return x * 2 + LOG.getEffectiveLevel()


def test_is_enabled_for_is_answered_while_tracing_and_a_level_change_fails_the_guard(stream):
    with only(stream.handler):
        translation = translate_function(asks_the_level, X)
        assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
        assert torch.equal(run_rewritten(asks_the_level, translation, (X,), {}), asks_the_level(X))
        guard = loom_guards.compile(translation.guards)
        frame = types.SimpleNamespace(f_locals={"x": X}, f_globals=globals(), closure=None)
        assert guard.why_failed(frame) is None
        LOG.setLevel(logging.WARNING)
        assert guard.why_failed(frame) is not None  # compiled again for the new level
