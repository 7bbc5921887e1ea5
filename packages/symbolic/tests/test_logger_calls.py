"""Logging calls answered while tracing, as torch.compile answers them: ``logging.getLogger(name)`` is the
real logger (guarded by asking for it again), and a log call at a level the logger does not emit is
nothing in the graph, guarded on ``isEnabledFor`` so enabling the level compiles again."""

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
NAME = "loom.tests.logger_calls"
LOG = logging.getLogger(NAME)
LOG.propagate = False


@pytest.fixture
def stream():
    """The logger alone writes its records (with their call site) to a string; level INFO to start with."""
    buffer = io.StringIO()
    buffer.handler = logging.StreamHandler(buffer)
    buffer.handler.setFormatter(logging.Formatter("%(funcName)s:%(lineno)d:%(levelname)s:%(message)s"))
    level = LOG.level
    LOG.setLevel(logging.INFO)
    try:
        yield buffer
    finally:
        LOG.setLevel(level)


@contextlib.contextmanager
def only(handler, logger=LOG):
    """``handler`` alone on the logger (pytest adds its capturing handlers to every logger in a test)."""
    kept = logger.handlers[:]
    logger.handlers[:] = [handler]
    try:
        yield
    finally:
        logger.handlers[:] = kept


def _frame():
    return types.SimpleNamespace(f_locals={"x": X}, f_globals=globals(), closure=None)


def _eager_and_loom(fn, stream):
    """The translation of ``fn``, and (result, text logged) of eager and of the rewritten code."""
    with only(stream.handler):
        translation = translate_function(fn, X)
        out = []
        for run in (fn, lambda x: run_rewritten(fn, translation, (x,), {})):
            stream.seek(0)
            stream.truncate()
            out.append((run(X.clone()), stream.getvalue()))
    return translation, out[0], out[1]


def gets_the_logger_by_name(x):
    lg = logging.getLogger(NAME)
    lg.info("made %d", 3)
    return x + 1, lg is LOG, lg.name


def test_get_logger_with_a_constant_name_is_the_real_logger_and_its_calls_are_made(stream):
    translation, eager, loom = _eager_and_loom(gets_the_logger_by_name, stream)
    assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
    assert torch.equal(loom[0][0], eager[0][0]) and loom[0][1:] == eager[0][1:] == (True, NAME)
    assert loom[1] == eager[1] and "gets_the_logger_by_name" in eager[1] and "made 3" in eager[1], (loom, eager)


def test_a_logger_replaced_under_its_name_fails_the_guard(stream):
    with only(stream.handler):
        translation = translate_function(gets_the_logger_by_name, X)
        guard = loom_guards.compile(translation.guards)
        assert guard.why_failed(_frame()) is None
        loggers = logging.Logger.manager.loggerDict
        loggers[NAME] = logging.Logger(NAME)
        try:
            assert "getLogger" in str(guard.why_failed(_frame()))  # getLogger(NAME) now gives another logger
        finally:
            loggers[NAME] = LOG


def root_logger(x):
    return x * 2, logging.getLogger() is logging.root, logging.getLogger(name=None) is logging.root


def test_get_logger_without_a_name_is_the_root_logger(stream):
    translation, eager, loom = _eager_and_loom(root_logger, stream)
    assert not translation.breaks, translation.dump()
    assert loom[0][1:] == eager[0][1:] == (True, True)


def quiet_calls_with_tensors(x):
    y = x + 1
    LOG.debug("y is %s", y)  # a tensor argument: made where it is if DEBUG is on
    LOG.log(logging.DEBUG, "again %s", y)
    y.add_(1)
    return y * 2


def test_a_call_at_a_level_not_emitted_is_nothing_and_enabling_it_compiles_again(stream):
    translation, eager, loom = _eager_and_loom(quiet_calls_with_tensors, stream)
    assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
    assert torch.equal(loom[0], eager[0]) and loom[1] == eager[1] == ""
    guard = loom_guards.compile(translation.guards)
    with only(stream.handler):
        assert guard.why_failed(_frame()) is None
        LOG.setLevel(logging.DEBUG)
        assert "isEnabledFor" in str(guard.why_failed(_frame()))
    translation, eager, loom = _eager_and_loom(quiet_calls_with_tensors, stream)
    assert translation.breaks and "logging" in str(translation.breaks[0]), translation.dump()
    assert torch.equal(loom[0], eager[0]) and loom[1] == eager[1] and eager[1].count("tensor([1., 2., 3.])") == 2


def test_an_emitted_call_is_asked_at_run_time_not_guarded(stream):
    """Made after the graph, the call asks the logger then (as eager does): ``logging.disable`` later needs
    no new compile, and the rewritten code logs nothing, as eager does."""
    with only(stream.handler):
        translation = translate_function(gets_the_logger_by_name, X)
        guard = loom_guards.compile(translation.guards)
        logging.disable(logging.CRITICAL)
        try:
            assert guard.why_failed(_frame()) is None
            stream.seek(0)
            stream.truncate()
            run_rewritten(gets_the_logger_by_name, translation, (X,), {})
            assert stream.getvalue() == ""
        finally:
            logging.disable(logging.NOTSET)


def _inlined_debug(y):
    LOG.debug("inside %s", y)
    return y - 1


def calls_a_helper_that_logs_quietly(x):
    return _inlined_debug(x + 1) * 3


def test_a_quiet_call_in_an_inlined_function_is_nothing(stream):
    translation, eager, loom = _eager_and_loom(calls_a_helper_that_logs_quietly, stream)
    assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
    assert torch.equal(loom[0], eager[0]) and loom[1] == eager[1] == ""


def root_functions(x):
    logging.debug("root %s", x)
    return x + 5


def test_the_module_functions_are_nothing_while_the_root_logger_has_a_handler(stream):
    root = logging.getLogger()
    handler = logging.NullHandler()
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.WARNING)
    try:
        translation = translate_function(root_functions, X)
        assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
        guard = loom_guards.compile(translation.guards)
        assert guard.why_failed(_frame()) is None
        root.setLevel(logging.DEBUG)
        assert guard.why_failed(_frame()) is not None
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def bad_level(x):
    LOG.log("DEBUG", "text")  # a TypeError in eager (logging.raiseExceptions)
    return x


def test_a_level_that_is_not_an_int_raises_as_in_eager(stream):
    translation = translate_function(bad_level, X)
    with pytest.raises(TypeError, match="level must be an integer"):
        bad_level(X)
    with pytest.raises(TypeError, match="level must be an integer"):
        run_rewritten(bad_level, translation, (X,), {})


class Loud(logging.Logger):
    """A logger class that answers ``isEnabledFor`` its own way."""

    def isEnabledFor(self, level):
        return True


LOUD = Loud("loom.tests.logger_calls.loud")
LOUD.propagate = False


def loud_debug(x):
    LOUD.debug("v %s", x)
    return x + 1


def test_a_logger_class_with_its_own_is_enabled_for_is_not_answered():
    records = []
    handler = logging.Handler()
    handler.emit = lambda record: records.append(record.getMessage())
    with only(handler, LOUD):
        translation = translate_function(loud_debug, X)
        assert translation.breaks and "logging" in str(translation.breaks[0]), translation.dump()
        run_rewritten(loud_debug, translation, (X,), {})
    assert records == ["v tensor([0., 1., 2.])"]
