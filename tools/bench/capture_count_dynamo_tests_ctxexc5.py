"""Context managers and exceptions modelled on PyTorch's test/dynamo/test_ctx_manager.py and test_exceptions.py
and the CPython-derived test/dynamo/cpython/3_13/test_contextlib.py, test_exceptions.py, test_raise.py,
test_with.py and test_baseexception.py, for ``capture_count.py --only dynamo_tests_ctxexc5``: nested managers
that suppress, truthy ``__exit__`` results (``__bool__`` called, or raising), errors in ``__enter__``,
``ExitStack`` callbacks, ``push`` and ``pop_all``, exception attributes (``args``, ``__notes__``,
``with_traceback``, ``__traceback__``), ``BaseException`` subclasses with their own ``__init__``/``__str__``,
``KeyboardInterrupt``/``GeneratorExit``/``SystemExit`` semantics, ``raise ... from None``, re-raises in nested
handlers, exceptions across graph breaks, ``sys.exc_info()`` in and after handlers, and ``try``/``finally``
whose ``return``/``break``/``continue`` overrides. Each is written afresh over one tensor.
"""

from __future__ import annotations

import contextlib
import io
import sys

import torch

_SINK = io.StringIO()


@torch._dynamo.disable
def _opaque(t):
    """A call neither compiler traces (a graph break)."""
    return t + 1


class _Recorder:
    """A manager that logs its calls and returns ``result`` from ``__exit__``."""

    def __init__(self, log, name, result=False):
        self.log, self.name, self.result = log, name, result

    def __enter__(self):
        self.log.append(("enter", self.name))
        return self

    def __exit__(self, kind, value, tb):
        self.log.append(("exit", self.name, None if kind is None else kind.__name__))
        return self.result


# -- nested managers that suppress ------------------------------------------------------------------------
def c_cx5_inner_suppresses_outer_sees_nothing(x):
    log = []
    with _Recorder(log, "outer"):
        with _Recorder(log, "inner", True):
            x = x + 1
            raise ValueError("gone")
        x = x * 3
    return x, log


def c_cx5_outer_suppresses_inner_passes(x):
    log = []
    with _Recorder(log, "outer", True):
        with _Recorder(log, "inner"):
            x = x + 1
            raise KeyError("k")
        x = x * 100
    return x.cos(), log


def c_cx5_one_with_two_managers_second_suppresses(x):
    log = []
    with _Recorder(log, "a"), _Recorder(log, "b", 1):
        x = x.sin()
        raise IndexError
    return x, log


def c_cx5_suppress_nested_in_suppress(x):
    y = x + 1
    with contextlib.suppress(ZeroDivisionError):
        with contextlib.suppress(KeyError):
            y = y * 2
            1 / 0  # noqa: B018
        y = y * 100
    return y


# -- truthy __exit__ results ------------------------------------------------------------------------------
class _Truth:
    """An ``__exit__`` result whose ``__bool__`` counts its calls."""

    def __init__(self, answer, calls):
        self.answer, self.calls = answer, calls

    def __bool__(self):
        self.calls.append(self.answer)
        return self.answer


def c_cx5_exit_result_bool_called_on_error(x):
    calls = []

    class M:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return _Truth(True, calls)

    with M():
        x = x * 2
        raise RuntimeError("swallowed")
    return x, calls


def c_cx5_exit_result_bool_not_called_without_error(x):
    calls = []

    class M:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return _Truth(False, calls)

    with M():
        x = x * 2
    return x, calls


def c_cx5_exit_result_empty_list_does_not_suppress(x):
    class M:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return []

    try:
        with M():
            raise ValueError("kept")
    except ValueError as e:
        return x + len(e.args[0])


def c_cx5_exit_result_bool_raises(x):
    class Bad:
        def __bool__(self):
            raise TypeError("no truth")

    class M:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return Bad()

    try:
        with M():
            raise ValueError("body")
    except TypeError as e:
        return x - 1, str(e), type(e.__context__).__name__


# -- errors in __enter__ ----------------------------------------------------------------------------------
def c_cx5_enter_raises_exit_skipped(x):
    log = []

    class M:
        def __enter__(self):
            log.append("enter")
            raise LookupError("no entry")

        def __exit__(self, *exc):
            log.append("exit")

    try:
        with M():
            log.append("body")
    except LookupError:
        x = x + 5
    return x, log


def c_cx5_enter_raises_inside_outer_manager(x):
    log = []

    class Failing:
        def __enter__(self):
            raise OSError("busy")

        def __exit__(self, *exc):
            log.append("failing exit")

    with _Recorder(log, "outer", True):
        with Failing():
            x = x * 10
    return x + 1, log


def c_cx5_contextmanager_raises_before_yield(x):
    from contextlib import contextmanager

    @contextmanager
    def refusing():
        raise PermissionError("denied")
        yield

    try:
        with refusing():
            x = x * 0
    except PermissionError as e:
        return x + 1, e.args


# -- ExitStack -------------------------------------------------------------------------------------------
def c_cx5_exitstack_pop_all_moves_callbacks(x):
    log = []
    with contextlib.ExitStack() as stack:
        stack.callback(log.append, "first")
        stack.callback(log.append, "second")
        moved = stack.pop_all()
    log.append("after with")
    moved.close()
    return x + len(log), log


def c_cx5_exitstack_push_exit_suppresses(x):
    log = []

    def swallow(kind, value, tb):
        log.append(kind.__name__)
        return True

    with contextlib.ExitStack() as stack:
        stack.push(swallow)
        stack.enter_context(_Recorder(log, "r"))
        x = x.exp()
        raise ValueError("inside stack")
    return x, log


def c_cx5_exitstack_callback_keyword_arguments(x):
    seen = {}

    def record(key, *, value):
        seen[key] = value

    with contextlib.ExitStack() as stack:
        stack.callback(record, "a", value=1)
        stack.callback(record, key="b", value=2)
        y = x * 2
    return y, seen


def c_cx5_exitstack_enter_context_returns_value(x):
    log = []
    with contextlib.ExitStack() as stack:
        r = stack.enter_context(_Recorder(log, "value"))
        y = x + len(r.name)
    return y, log


def c_cx5_exitstack_callback_error_replaces_body_error(x):
    def fail():
        raise KeyError("from callback")

    try:
        with contextlib.ExitStack() as stack:
            stack.callback(fail)
            raise ValueError("from body")
    except KeyError as e:
        return x + 2, type(e.__context__).__name__


# -- exception attributes --------------------------------------------------------------------------------
def c_cx5_fresh_exception_has_no_traceback(x):
    e = ValueError("made")
    fresh = e.__traceback__ is None
    try:
        raise e
    except ValueError as caught:
        raised = caught.__traceback__ is not None
    return x + 1, fresh, raised


def c_cx5_with_traceback_none_returns_same(x):
    e = KeyError("k")
    same = e.with_traceback(None) is e
    return x * 2, same, e.__traceback__ is None


def c_cx5_add_note_twice_and_reraise(x):
    try:
        try:
            raise ValueError("base")
        except ValueError as e:
            e.add_note("first")
            e.add_note("second")
            raise
    except ValueError as outer:
        return x + len(outer.__notes__), outer.__notes__


def c_cx5_add_note_rejects_non_string(x):
    e = RuntimeError("r")
    try:
        e.add_note(42)
    except TypeError:
        return x - 1, hasattr(e, "__notes__")


def c_cx5_args_of_custom_init_without_super(x):
    class Code(Exception):
        def __init__(self, code, text):
            self.code = code
            self.text = text

    try:
        raise Code(7, "seven")
    except Code as e:
        return x + e.code, e.args, str(e)


def c_cx5_base_exception_subclass_custom_str(x):
    class Halt(BaseException):
        def __init__(self, level):
            super().__init__("halt", level)
            self.level = level

        def __str__(self):
            return f"halt at {self.level}"

    try:
        raise Halt(3)
    except Exception:
        return x * 0
    except BaseException as e:
        return x + e.level, str(e), e.args


def c_cx5_exception_carries_tensor(x):
    class Carrier(Exception):
        pass

    try:
        raise Carrier(x.sin(), "payload")
    except Carrier as e:
        t, label = e.args
        return t * 2, label


def c_cx5_system_exit_code_forms(x):
    codes = [SystemExit().code, SystemExit(3).code, SystemExit(1, 2).code]
    return x + codes[1], codes


def c_cx5_stop_iteration_value(x):
    e = StopIteration(5, 6)
    return x + e.value, StopIteration().value


def c_cx5_raise_class_needing_arguments(x):
    class Needs(Exception):
        def __init__(self, a):
            super().__init__(a)

    try:
        raise Needs
    except TypeError as e:
        return x + 1, type(e).__name__
    except Needs:
        return x - 1, "needs"


# -- KeyboardInterrupt, GeneratorExit and friends ---------------------------------------------------------
def c_cx5_keyboard_interrupt_skips_except_exception(x):
    log = []
    try:
        try:
            raise KeyboardInterrupt
        except Exception:
            log.append("exception")
        finally:
            log.append("finally")
    except KeyboardInterrupt:
        log.append("interrupt")
        x = x + 1
    return x, log


def c_cx5_generator_exit_raised_by_hand(x):
    try:
        raise GeneratorExit("by hand")
    except Exception:
        return x * 0
    except BaseException as e:
        return x + 2, e.args, isinstance(e, Exception)


def c_cx5_suppress_base_exception_catches_interrupt(x):
    with contextlib.suppress(BaseException):
        x = x + 1
        raise KeyboardInterrupt
    return x


# -- raise ... from -------------------------------------------------------------------------------------
def c_cx5_from_none_keeps_context(x):
    try:
        try:
            {}["missing"]
        except KeyError:
            raise ValueError("clean") from None
    except ValueError as e:
        return x + 1, e.__cause__ is None, e.__suppress_context__, type(e.__context__).__name__


def c_cx5_from_cause_then_cause_cleared(x):
    try:
        raise RuntimeError("top") from IndexError("root")
    except RuntimeError as e:
        before = type(e.__cause__).__name__
        e.__cause__ = None
        return x * 3, before, e.__suppress_context__


def c_cx5_suppress_context_reset_by_hand(x):
    e = ValueError("v")
    e.__suppress_context__ = True
    e.__cause__ = TypeError("t")
    e.__suppress_context__ = False
    return x + 1, e.__suppress_context__, type(e.__cause__).__name__


# -- re-raise in nested handlers --------------------------------------------------------------------------
def c_cx5_bare_raise_after_inner_handled_is_outer(x):
    try:
        try:
            raise ValueError("outer")
        except ValueError:
            try:
                raise KeyError("inner")
            except KeyError:
                x = x + 1
            raise
    except ValueError as e:
        return x, e.args
    except KeyError:
        return x * 0, ()


def c_cx5_reraise_caught_by_name_in_loop(x):
    caught = []
    for i in range(3):
        try:
            try:
                if i % 2:
                    raise IndexError(i)
                raise KeyError(i)
            except IndexError:
                raise
        except LookupError as e:
            caught.append((type(e).__name__, e.args[0]))
    return x + len(caught), caught


def c_cx5_handler_raises_new_context_is_old(x):
    try:
        try:
            raise ValueError("first")
        except ValueError:
            raise KeyError("second")  # noqa: B904
    except KeyError as e:
        return x + 1, type(e.__context__).__name__, e.__context__.args


# -- exceptions across graph breaks ------------------------------------------------------------------------
def c_cx5_raise_after_break_caught(x):
    y = x.sin()
    try:
        y = _opaque(y)
        raise ValueError("after break")
    except ValueError as e:
        y = y * len(e.args[0])
    return y


def c_cx5_exception_made_before_break_raised_after(x):
    e = KeyError("early")
    y = _opaque(x)
    try:
        raise e
    except KeyError as caught:
        return y + 1, caught is e


def c_cx5_handler_breaks_then_reraises(x):
    try:
        try:
            raise IndexError("idx")
        except IndexError:
            x = _opaque(x)
            raise
    except IndexError as e:
        return x * 2, e.args


def c_cx5_user_manager_sees_error_after_break(x):
    log = []
    with _Recorder(log, "m", True):
        x = _opaque(x)
        raise ValueError("late")
    return x.cos(), log


# -- sys.exc_info ---------------------------------------------------------------------------------------
def c_cx5_exc_info_in_handler_and_after(x):
    try:
        raise ValueError("v")
    except ValueError:
        inside = sys.exc_info()[0].__name__
    after = sys.exc_info()
    return x + 1, inside, after == (None, None, None)


def c_cx5_exc_info_in_finally_while_propagating(x):
    seen = []
    try:
        try:
            raise KeyError("k")
        finally:
            seen.append(sys.exc_info()[0])
    except KeyError:
        pass
    return x * 2, [None if s is None else s.__name__ for s in seen]


def c_cx5_exc_info_restored_after_nested_handler(x):
    names = []
    try:
        raise ValueError("outer")
    except ValueError:
        try:
            raise TypeError("inner")
        except TypeError:
            names.append(sys.exc_info()[0].__name__)
        names.append(sys.exc_info()[0].__name__)
    names.append(sys.exc_info()[0])
    return x + len(names), names


def c_cx5_exc_info_inside_exit(x):
    seen = []

    class M:
        def __enter__(self):
            return self

        def __exit__(self, kind, value, tb):
            info = sys.exc_info()[0]
            seen.append(None if info is None else info.__name__)
            return True

    with M():
        raise ValueError("v")
    with M():
        x = x + 1
    return x, seen


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
