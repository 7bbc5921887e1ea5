"""More of ``capture_count_dynamo_tests_ctxexc5``: the same topics (test_ctx_manager.py, test_exceptions.py and
CPython's test_with.py, test_raise.py, test_contextlib.py, test_baseexception.py) across graph breaks: managers
that suppress or see an error raised after a break, ``ExitStack`` and ``suppress`` blocks broken inside,
``sys.exc_info()`` read after a break inside a handler, ``finally`` overrides around breaking calls, and a few
exception-object corners (``__notes__`` surviving a re-raise, ``with_traceback`` of another error's traceback,
``args`` rebound, OSError's errno mapping). Each is written afresh over one tensor.
"""

from __future__ import annotations

import contextlib
import errno
import io
import sys

import torch

_SINK = io.StringIO()


@torch._dynamo.disable
def _opaque(t):
    """A call neither compiler traces (a graph break)."""
    return t + 1


class _Logged:
    """A manager that logs and suppresses when ``swallow`` is set."""

    def __init__(self, log, swallow=False):
        self.log, self.swallow = log, swallow

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, kind, value, tb):
        self.log.append(kind.__name__ if kind else "clean")
        return self.swallow


# -- breaks inside managers that suppress ---------------------------------------------------------------
def c_cx5m_break_then_raise_inside_suppress(x):
    y = x * 2
    with contextlib.suppress(ValueError):
        y = _opaque(y)
        raise ValueError("dropped")
    return y.sin()


def c_cx5m_break_in_nested_suppress_outer_catches(x):
    y = x + 1
    with contextlib.suppress(KeyError):
        with contextlib.suppress(ValueError):
            y = _opaque(y)
            raise KeyError("outer one")
        y = y * 100
    return y


def c_cx5m_break_inside_user_manager_that_swallows(x):
    log = []
    with _Logged(log, swallow=True):
        print("break", file=_SINK)
        x = x + 3
        raise IndexError("swallowed")
    return x, log


def c_cx5m_break_inside_exit_stack_callbacks_run(x):
    log = []
    with contextlib.ExitStack() as stack:
        stack.callback(log.append, "cb")
        y = _opaque(x)
    return y, log


def c_cx5m_break_then_raise_through_exit_stack(x):
    log = []
    try:
        with contextlib.ExitStack() as stack:
            stack.callback(log.append, "closed")
            y = _opaque(x)
            raise ValueError(y.shape[0])
    except ValueError as e:
        return x + e.args[0], log


# -- sys.exc_info and handlers across breaks --------------------------------------------------------------
def c_cx5m_exc_info_after_break_in_handler(x):
    try:
        raise KeyError("k")
    except KeyError:
        y = _opaque(x)
        name = sys.exc_info()[0].__name__
    return y, name, sys.exc_info()[0]


def c_cx5m_exception_variable_used_after_break(x):
    try:
        raise ValueError("kept", 4)
    except ValueError as e:
        y = _opaque(x)
        return y + e.args[1], str(e)


def c_cx5m_context_of_error_raised_after_break(x):
    try:
        try:
            raise KeyError("first")
        except KeyError:
            y = _opaque(x)
            raise ValueError(y.shape[0])  # noqa: B904
    except ValueError as e:
        return x + e.args[0], type(e.__context__).__name__


def c_cx5m_from_none_after_break(x):
    try:
        try:
            raise KeyError("first")
        except KeyError:
            print("break", file=_SINK)
            raise ValueError("second") from None
    except ValueError as e:
        return x + 1, e.__suppress_context__, e.__cause__


def c_cx5m_exc_info_cleared_after_break_outside_handler(x):
    try:
        raise ValueError("v")
    except ValueError:
        pass
    y = _opaque(x)
    return y, sys.exc_info()


# -- finally overrides around breaks ----------------------------------------------------------------
def c_cx5m_finally_return_after_break_overrides(x):
    def pick(t):
        try:
            return t + 1
        finally:
            t = _opaque(t)
            return t * 10  # noqa: B012

    return pick(x)


def c_cx5m_finally_with_break_swallows_exception_in_loop(x):
    seen = []
    for i in range(3):
        try:
            print("break", file=_SINK)
            raise ValueError(i)
        finally:
            seen.append(i)
            break  # noqa: B012
    return x + len(seen), seen


def c_cx5m_break_in_try_finally_runs_once(x):
    log = []
    try:
        y = _opaque(x)
        log.append("try")
    finally:
        log.append("finally")
    return y, log


def c_cx5m_return_in_with_after_break_exit_sees_none(x):
    log = []

    def inner(t):
        with _Logged(log):
            t = _opaque(t)
            return t * 2

    return inner(x), log


# -- exception objects ----------------------------------------------------------------------------
def c_cx5m_notes_survive_reraise_from_helper(x):
    def helper():
        try:
            raise ValueError("v")
        except ValueError as e:
            e.add_note("from helper")
            raise

    try:
        helper()
    except ValueError as e:
        return x + 1, e.__notes__


def c_cx5m_args_rebound_changes_str(x):
    try:
        raise KeyError("old")
    except KeyError as e:
        e.args = ("new", 2)
        return x + e.args[1], str(e), repr(e)


def c_cx5m_with_traceback_of_other_error(x):
    try:
        raise ValueError("a")
    except ValueError as first:
        tb = first.__traceback__
    other = KeyError("b")
    same = other.with_traceback(tb) is other
    return x * 2, same, other.__traceback__ is tb


def c_cx5m_oserror_errno_picks_subclass(x):
    e = OSError(errno.ENOENT, "missing")
    return x + 1, type(e).__name__, e.errno, e.strerror


def c_cx5m_exception_str_of_several_args(x):
    return x - 1, str(ValueError(1, "two")), str(ValueError()), str(ValueError("one"))


def c_cx5m_base_exception_repr_custom_class(x):
    class Odd(BaseException):
        pass

    return x + 2, repr(Odd("a", 1)), repr(Odd())


def c_cx5m_exception_compares_by_identity(x):
    a, b = ValueError("same"), ValueError("same")
    return x + 1, a == b, a == a, a in [b], a in [a]


def c_cx5m_exception_isinstance_checks(x):
    checks = [isinstance(KeyboardInterrupt(), Exception), isinstance(SystemExit(), BaseException),
              issubclass(GeneratorExit, Exception), issubclass(StopIteration, Exception),
              issubclass(FileNotFoundError, OSError)]
    return x + sum(checks), checks


def c_cx5m_keyboard_interrupt_in_with_exit_sees_it(x):
    log = []
    try:
        with _Logged(log):
            raise KeyboardInterrupt
    except BaseException as e:
        return x + 1, log, type(e).__name__


def c_cx5m_system_exit_through_finally(x):
    log = []
    try:
        try:
            raise SystemExit(4)
        finally:
            log.append("finally")
    except SystemExit as e:
        return x + e.code, log


def c_cx5m_generator_exit_not_caught_by_suppress_exception(x):
    try:
        with contextlib.suppress(Exception):
            raise GeneratorExit
    except GeneratorExit:
        return x + 1
    return x - 1


# -- managers and exceptions in __exit__ -------------------------------------------------------------
def c_cx5m_exit_handles_its_own_error(x):
    log = []

    class M:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            try:
                raise KeyError("inside exit")
            except KeyError:
                log.append(sys.exc_info()[0].__name__)
            log.append(sys.exc_info()[0].__name__)
            return True

    with M():
        raise ValueError("body")
    return x + 1, log


def c_cx5m_exit_raises_with_body_error_as_context(x):
    class M:
        def __enter__(self):
            return self

        def __exit__(self, kind, value, tb):
            raise RuntimeError("from exit") from value

    try:
        with M():
            raise ValueError("body")
    except RuntimeError as e:
        return x * 2, type(e.__cause__).__name__, type(e.__context__).__name__


def c_cx5m_exit_stack_pop_all_after_error_in_enter(x):
    log = []

    class Bad:
        def __enter__(self):
            raise OSError("cannot")

        def __exit__(self, *exc):
            log.append("bad exit")

    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(_Logged(log))
            stack.enter_context(Bad())
            stack.pop_all()
    except OSError:
        log.append("caught")
    return x + len(log), log


def c_cx5m_suppress_tuple_of_types_subclass(x):
    y = x
    for kind in (KeyError, IndexError, ZeroDivisionError):
        with contextlib.suppress(LookupError, ArithmeticError):
            y = y + 1
            raise kind
    return y


def c_cx5m_redirect_stdout_restored_after_error(x):
    buffer = io.StringIO()
    before = sys.stdout
    try:
        with contextlib.redirect_stdout(buffer):
            print("inside")
            raise ValueError
    except ValueError:
        pass
    return x + 1, buffer.getvalue(), sys.stdout is before


# -- exceptions kept past their handler, generator managers across breaks ----------------------------------
def c_cx5m_exception_saved_and_raised_again_later(x):
    saved = []
    for i in range(2):
        try:
            raise KeyError(i)
        except KeyError as e:
            saved.append(e)
    try:
        raise saved[0]
    except KeyError as again:
        return x + again.args[0] + len(saved), again is saved[0], type(again.__context__).__name__


def c_cx5m_exception_kept_traceback_not_none(x):
    kept = None
    try:
        raise ValueError("kept")
    except ValueError as e:
        kept = e
    return x + 1, kept.__traceback__ is not None, kept.args


def c_cx5m_generator_manager_suppresses_after_break(x):
    @contextlib.contextmanager
    def swallowing():
        try:
            yield
        except KeyError:
            pass

    y = x.sin()
    with swallowing():
        y = _opaque(y)
        raise KeyError("gone")
    return y * 2


def c_cx5m_generator_manager_break_before_yield_then_raise(x):
    log = []

    @contextlib.contextmanager
    def noisy():
        print("enter", file=_SINK)
        log.append("entered")
        try:
            yield 3
        finally:
            log.append("left")

    try:
        with noisy() as v:
            raise ValueError(v)
    except ValueError as e:
        return x + e.args[0], log


def c_cx5m_exit_stack_pop_all_across_break(x):
    log = []
    with contextlib.ExitStack() as stack:
        stack.callback(log.append, "moved")
        y = _opaque(x)
        moved = stack.pop_all()
    log.append("between")
    moved.close()
    return y, log


def c_cx5m_exception_in_list_comprehension_in_handler(x):
    try:
        raise ValueError("outer")
    except ValueError as e:
        try:
            [1 // 0 for _ in range(1)]
        except ZeroDivisionError as inner:
            return x + 1, type(inner.__context__).__name__, e.args


def c_cx5m_with_in_loop_break_exit_runs_each_time(x):
    log = []
    total = x
    for i in range(4):
        with _Logged(log):
            if i == 2:
                break
            total = total + i
    return total, log


def c_cx5m_exit_swallows_then_loop_continues(x):
    log = []
    total = x
    for i in range(3):
        with _Logged(log, swallow=True):
            total = total + 1
            if i == 1:
                raise RuntimeError(i)
            total = total * 2
    return total, log


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
