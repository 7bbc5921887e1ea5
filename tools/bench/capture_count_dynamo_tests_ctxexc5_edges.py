"""Edges of ``capture_count_dynamo_tests_ctxexc5`` (test_with.py, test_exceptions.py and test_baseexception.py
of CPython's 3.13 copies in test/dynamo/cpython): the special-method lookup of ``__enter__``/``__exit__`` (on the
type, through static and class methods, never the instance), ``with`` over objects that are no managers, an
``except ... as e`` name cleared under a closure, keyword-only exception constructors, comprehensions raising
inside ``try`` (inlined since 3.12), and ``else``/``finally`` orders. Each is written afresh over one tensor.
"""

from __future__ import annotations

import contextlib
import sys


# -- how with finds __enter__ and __exit__ -----------------------------------------------------------------
def c_cx5e_enter_as_staticmethod(x):
    class M:
        @staticmethod
        def __enter__():
            return 7

        def __exit__(self, *exc):
            return False

    with M() as v:
        y = x + v
    return y


def c_cx5e_exit_as_classmethod(x):
    class M:
        seen = []

        def __enter__(self):
            return self

        @classmethod
        def __exit__(cls, kind, value, tb):
            cls.seen.append(kind.__name__)
            return True

    with M():
        raise KeyError("k")
    return x + 1, list(M.seen)


def c_cx5e_instance_enter_ignored(x):
    class M:
        def __enter__(self):
            return "type's"

        def __exit__(self, *exc):
            return False

    m = M()
    m.__enter__ = lambda: "instance's"
    with m as v:
        y = x * 2
    return y, v


def c_cx5e_with_over_tensor_type_error(x):
    try:
        with x:
            y = x + 1
    except TypeError as e:
        return x - 1, "context manager" in str(e)
    return y, False


def c_cx5e_with_over_none_type_error(x):
    manager = None
    try:
        with manager:
            pass
    except (TypeError, AttributeError) as e:
        return x + 1, type(e).__name__


def c_cx5e_enter_returns_tuple_unpacked(x):
    class Pair:
        def __enter__(self):
            return (2, 3)

        def __exit__(self, *exc):
            return None

    with Pair() as (a, b):
        y = x * a + b
    return y


def c_cx5e_empty_suppress_suppresses_nothing(x):
    try:
        with contextlib.suppress():  # noqa: B022
            raise ValueError("kept")
    except ValueError:
        return x + 1
    return x - 1


# -- the name of except ... as ------------------------------------------------------------------------------
def c_cx5e_handler_name_cleared_under_closure(x):
    try:
        raise ValueError("v")
    except ValueError as e:  # noqa: F841
        def read():
            return e  # noqa: F821

        first = type(read()).__name__
    try:
        read()
    except NameError as n:
        return x + 1, first, type(n).__name__
    return x - 1, first, None


def c_cx5e_handler_name_shadows_then_unbound(x):
    e = "before"
    try:
        raise KeyError("k")
    except KeyError as e:  # noqa: F841
        pass
    try:
        return x + len(e), "bound"
    except UnboundLocalError:
        return x * 2, "unbound"


# -- construction ----------------------------------------------------------------------------------------
def c_cx5e_keyword_only_constructor_leaves_args_empty(x):
    class Err(Exception):
        def __init__(self, *, code):
            self.code = code

    try:
        raise Err(code=3)
    except Err as e:
        return x + e.code, e.args, str(e)


def c_cx5e_base_exception_keyword_type_error(x):
    try:
        BaseException(code=3)
    except TypeError as e:
        return x + 1, "keyword" in str(e)
    return x - 1, False


def c_cx5e_key_error_str_forms(x):
    return x + 1, str(KeyError()), str(KeyError("a")), str(KeyError("a", "b")), repr(KeyError("a"))


def c_cx5e_exception_args_tuple_from_list(x):
    e = ValueError(*[1, 2, 3])
    return x + sum(e.args), e.args


# -- comprehensions and handlers ------------------------------------------------------------------------
def c_cx5e_comprehension_raises_inside_try(x):
    try:
        values = [10 // i for i in (2, 1, 0)]
    except ZeroDivisionError as e:
        return x + 1, str(e)
    return x + sum(values), ""


def c_cx5e_comprehension_reads_exc_info_in_handler(x):
    try:
        raise ValueError("v")
    except ValueError:
        names = [sys.exc_info()[0].__name__ for _ in range(2)]
    return x + len(names), names


def c_cx5e_comprehension_variable_kept_after_error(x):
    i = "outer"
    try:
        [1 // i for i in (1, 0)]
    except ZeroDivisionError:
        pass
    return x + 1, i


# -- else and finally orders ----------------------------------------------------------------------------
def c_cx5e_else_raises_caught_outside_finally_sees_it(x):
    seen = []
    try:
        try:
            y = x + 1
        except ValueError:
            seen.append("handler")
        else:
            raise KeyError("from else")
        finally:
            seen.append(sys.exc_info()[0].__name__)
    except KeyError:
        seen.append("outer")
    return y, seen


def c_cx5e_return_in_handler_finally_mutates_returned_list(x):
    def pick():
        out = []
        try:
            raise ValueError
        except ValueError:
            return out
        finally:
            out.append("finally")

    got = pick()
    return x + len(got), got


def c_cx5e_loop_continue_in_handler_with_manager(x):
    log = []
    total = x
    for i in range(3):
        try:
            with contextlib.nullcontext():
                if i == 1:
                    raise ValueError(i)
                total = total + i
        except ValueError:
            log.append(i)
            continue
        log.append(-i)
    return total, log


def c_cx5e_exit_guard_issubclass_of_none(x):
    class M:
        def __enter__(self):
            return self

        def __exit__(self, kind, value, tb):
            return issubclass(kind, ValueError)

    try:
        with M():
            y = x + 1
    except TypeError as e:
        return x - 1, "issubclass" in str(e)
    return y, None


def c_cx5e_suppress_context_after_exit_raises_from_none(x):
    class M:
        def __enter__(self):
            return self

        def __exit__(self, kind, value, tb):
            raise RuntimeError("replaced") from None

    try:
        with M():
            raise KeyError("body")
    except RuntimeError as e:
        return x + 1, e.__suppress_context__, type(e.__context__).__name__


# -- managers of module level (the frame makes no class) ------------------------------------------------------
_LOG = []


class _Decorating(contextlib.ContextDecorator):
    """A module-level ContextDecorator that logs into ``_LOG`` and suppresses KeyError."""

    def __enter__(self):
        _LOG.append("in")
        return self

    def __exit__(self, kind, value, tb):
        _LOG.append(kind.__name__ if kind else "out")
        return kind is KeyError


def c_cx5e_context_decorator_suppresses_in_decorated(x):
    _LOG.clear()

    @_Decorating()
    def work(t):
        raise KeyError(t.shape[0])

    got = work(x)
    return x + 1, got, list(_LOG)


def c_cx5e_contextmanager_as_decorator_sees_error(x):
    _LOG.clear()

    @contextlib.contextmanager
    def logging_cm():
        try:
            yield
        except ValueError as e:
            _LOG.append(e.args[0])
            raise

    @logging_cm()
    def work(t):
        raise ValueError("inside")

    try:
        work(x)
    except ValueError:
        return x * 2, list(_LOG)


def c_cx5e_exit_stack_push_manager_object(x):
    _LOG.clear()
    with contextlib.ExitStack() as stack:
        stack.push(_Decorating())  # only its __exit__ is pushed: no "in"
        raise KeyError("swallowed by the pushed exit")
    return x + len(_LOG), list(_LOG)


def c_cx5e_exit_stack_enter_context_non_manager(x):
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(object())
    except TypeError as e:
        return x + 1, "context manager" in str(e)
    return x - 1, False


def c_cx5e_nested_exit_stacks_order(x):
    _LOG.clear()
    with contextlib.ExitStack() as outer:
        outer.callback(_LOG.append, "outer")
        with contextlib.ExitStack() as inner:
            inner.callback(_LOG.append, "inner")
            inner.enter_context(_Decorating())
            y = x.sin()
    return y, list(_LOG)


def c_cx5e_nullcontext_reused(x):
    ctx = contextlib.nullcontext(5)
    total = x
    for _ in range(2):
        with ctx as v:
            total = total + v
    return total


# -- the same protocols with module-level classes (a class made in the frame over a list of the call breaks) --
class _Verdict:
    """An ``__exit__`` result whose truth is logged into ``_LOG``."""

    def __init__(self, answer):
        self.answer = answer

    def __bool__(self):
        _LOG.append(("bool", self.answer))
        return self.answer


class _Judging:
    """A manager whose ``__exit__`` returns a :class:`_Verdict` and logs what ``sys.exc_info()`` shows there."""

    def __init__(self, answer, enter_error=None):
        self.answer, self.enter_error = answer, enter_error

    def __enter__(self):
        _LOG.append("enter")
        if self.enter_error is not None:
            raise self.enter_error
        return self

    def __exit__(self, kind, value, tb):
        info = sys.exc_info()[0]
        _LOG.append(("exit", None if kind is None else kind.__name__, None if info is None else info.__name__))
        return _Verdict(self.answer)


def c_cx5e_module_exit_verdict_suppresses(x):
    _LOG.clear()
    with _Judging(True):
        x = x * 2
        raise RuntimeError("swallowed")
    return x, list(_LOG)


def c_cx5e_module_exit_verdict_unasked_without_error(x):
    _LOG.clear()
    with _Judging(False):
        x = x * 2
    return x, list(_LOG)


def c_cx5e_module_exit_verdict_false_propagates(x):
    _LOG.clear()
    try:
        with _Judging(False):
            raise KeyError("kept")
    except KeyError:
        return x + 1, list(_LOG)


def c_cx5e_module_enter_raises_exit_skipped(x):
    _LOG.clear()
    try:
        with _Judging(True, LookupError("no entry")):
            _LOG.append("body")
    except LookupError as e:
        return x + 5, list(_LOG), e.args


def c_cx5e_module_exc_info_in_exit_inside_handler(x):
    _LOG.clear()
    try:
        raise ValueError("outer")
    except ValueError:
        with _Judging(True):
            raise KeyError("inner")  # noqa: B904
        with _Judging(True):
            x = x + 1
    return x, list(_LOG)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
