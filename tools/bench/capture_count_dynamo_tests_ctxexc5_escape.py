"""Exceptions leaving the compiled function, for ``capture_count_dynamo_tests_ctxexc5`` (test_exceptions.py's
``test_raise_*`` and CPython's test_raise.py/test_with.py): what a manager's ``__exit__``, a ``finally`` block and
a generator-made manager do on the way out (as draws of Python's RNG, whose state the runner compares), the
exception's type and ``args`` as raised, after a graph break or not, from ``__exit__``, ``__enter__`` or a
``finally`` that replaces the body's error. Each is written afresh over one tensor.
"""

from __future__ import annotations

import contextlib
import random

import torch


def _bump(step):
    """What a manager's exit leaves: ``step`` draws of Python's RNG, whose state the runner compares."""
    for _ in range(step):
        random.random()


@torch._dynamo.disable
def _opaque(t):
    """A call neither compiler traces (a graph break)."""
    return t + 1


class _Counting:
    """A manager that draws ``step`` times on exit and suppresses nothing."""

    def __init__(self, step):
        self.step = step

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        _bump(self.step)
        return False


@contextlib.contextmanager
def _counting_cm(step):
    try:
        yield step
    finally:
        _bump(step)


def c_cx5x_escapes_through_exit(x):
    with _Counting(3):
        y = x.sin()
        raise ValueError("out", int(y.shape[0]))


def c_cx5x_escapes_through_nested_exits_in_order(x):
    with _Counting(1):
        with _Counting(10):
            _bump(2)
            raise KeyError(x.shape[0])


def c_cx5x_escapes_after_break_through_exit(x):
    with _Counting(5):
        y = _opaque(x)
        raise IndexError(int(y.shape[0]))


def c_cx5x_escapes_through_generator_manager(x):
    with _counting_cm(7) as step:
        raise LookupError(step, x.shape[0])


def c_cx5x_escapes_through_generator_manager_after_break(x):
    with _counting_cm(4):
        x = _opaque(x)
        raise LookupError("late")


def c_cx5x_exit_replaces_escaping_error(x):
    class Replacing:
        def __enter__(self):
            return self

        def __exit__(self, kind, value, tb):
            _bump(1)
            raise RuntimeError("from exit", kind.__name__)

    with Replacing():
        raise ValueError(x.shape[0])


def c_cx5x_finally_replaces_escaping_error(x):
    try:
        raise ValueError("body")
    finally:
        _bump(2)
        raise KeyError("finally", x.shape[0])


def c_cx5x_enter_error_escapes_outer_exit_runs(x):
    class Refusing:
        def __enter__(self):
            raise PermissionError("refused", x.shape[0])

        def __exit__(self, *exc):
            _bump(100)
            return False

    with _Counting(1):
        with Refusing():
            _bump(1000)


def c_cx5x_suppress_wrong_kind_escapes(x):
    with contextlib.suppress(KeyError):
        _bump(1)
        raise ValueError("not suppressed", x.shape[0])


def c_cx5x_exit_stack_callbacks_run_on_escape(x):
    with contextlib.ExitStack() as stack:
        stack.callback(_bump, 9)
        stack.enter_context(_Counting(1))
        raise OSError("stack", x.shape[0])


def c_cx5x_reraise_with_note_escapes(x):
    try:
        raise ValueError("noted", x.shape[0])
    except ValueError as e:
        e.add_note("on the way out")
        _bump(len(e.__notes__))
        raise


def c_cx5x_raise_from_escapes(x):
    try:
        {}["k"]
    except KeyError as e:
        _bump(1)
        raise RuntimeError("converted", x.shape[0]) from e


def c_cx5x_keyboard_interrupt_caught_after_exits(x):
    try:
        with _Counting(2), _Counting(3):
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        return x + random.random()


def c_cx5x_system_exit_code_after_break(x):
    try:
        y = _opaque(x)
        raise SystemExit(int(y.shape[0]))
    except SystemExit as e:
        return y + e.code


def c_cx5x_loop_escapes_on_third_iteration(x):
    total = x
    for i in range(5):
        with _Counting(1):
            if i == 2:
                raise StopIteration(i)  # a plain raise outside generators: it escapes as itself
            total = total + i
    return total


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
