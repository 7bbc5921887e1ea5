"""More of ``capture_count_dynamo_tests_ctxexc5`` (CPython's test_exceptions.py, test_raise.py and
test_contextlib.py, as copied into test/dynamo/cpython/3_13): ``try``/``finally`` whose ``return``, ``break`` or
``continue`` overrides the ``try`` block's return or exception, and corners of ``contextlib.contextmanager``
(``StopIteration`` raised in the body, a generator that yields again after ``throw``, one that re-raises).
Each is written afresh over one tensor.
"""

from __future__ import annotations

import contextlib
import sys

from capture_count_dynamo_tests_ctxexc5 import _Recorder


# -- try/finally overrides ------------------------------------------------------------------------------------
def c_cx5_finally_return_overrides_return(x):
    def pick(t):
        try:
            return t + 1
        finally:
            return t * 10  # noqa: B012

    return pick(x)


def c_cx5_finally_return_swallows_raise(x):
    def pick(t):
        try:
            raise ValueError("dropped")
        finally:
            return t - 1  # noqa: B012

    return pick(x), sys.exc_info()[0]


def c_cx5_finally_rebinds_after_return_value_taken(x):
    def pick(t):
        y = t + 1
        try:
            return y
        finally:
            y = y * 100

    return pick(x)


def c_cx5_continue_in_finally_discards_return(x):
    def run(t):
        count = 0
        for _ in range(3):
            try:
                count += 1
                return t * 0
            finally:
                continue  # noqa: B012
        return t + count

    return run(x)


def c_cx5_break_in_finally_drops_exception_in_with(x):
    log = []
    for i in range(2):
        try:
            with _Recorder(log, i):
                raise ValueError(i)
        finally:
            break  # noqa: B012
    return x + len(log), log


def c_cx5_nested_finally_order_with_managers(x):
    log = []
    try:
        with _Recorder(log, "m"):
            try:
                x = x + 1
                raise KeyError("k")
            finally:
                log.append("inner finally")
    except KeyError:
        log.append("handler")
    finally:
        log.append("outer finally")
    return x, log


# -- contextmanager corners --------------------------------------------------------------------------------
def c_cx5_contextmanager_body_stop_iteration_propagates(x):
    from contextlib import contextmanager

    @contextmanager
    def plain():
        yield

    try:
        with plain():
            raise StopIteration("body")
    except StopIteration as e:
        return x + 1, e.args
    except RuntimeError:
        return x - 1, ()


def c_cx5_contextmanager_yields_again_after_throw(x):
    from contextlib import contextmanager

    @contextmanager
    def stubborn():
        try:
            yield
        except ValueError:
            yield

    try:
        with stubborn():
            raise ValueError("v")
    except RuntimeError as e:
        return x * 2, str(e)


def c_cx5_contextmanager_reraises_same_error_not_suppressed(x):
    from contextlib import contextmanager

    log = []

    @contextmanager
    def watching():
        try:
            yield
        except KeyError as e:
            log.append(e.args[0])
            raise

    try:
        with watching():
            raise KeyError("seen")
    except KeyError as e:
        return x + 1, log, e.args


def c_cx5_nullcontext_enter_result_tensor(x):
    with contextlib.nullcontext(x.sin()) as y:
        z = y * 2
    return z


def c_cx5_context_decorator_on_user_class(x):
    log = []

    class Logged(contextlib.ContextDecorator):
        def __enter__(self):
            log.append("in")
            return self

        def __exit__(self, *exc):
            log.append("out")
            return False

    @Logged()
    def work(t):
        return t.exp()

    return work(x), log


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
