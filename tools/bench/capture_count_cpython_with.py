"""Programs after the CPython tests PyTorch runs under Dynamo, for ``capture_count.py --only cpython_with``:
test_with (PEP 343: ``__enter__``/``__exit__`` order and arguments, binding targets, nesting, several managers in
one statement, exceptions in the body, in ``__enter__`` and in ``__exit__``, suppression, ``contextmanager``),
and test_except_star / test_exception_group (``except*`` matching and splitting, ``ExceptionGroup`` and
``BaseExceptionGroup`` construction, ``split``, ``subgroup``, ``derive``, nesting and notes). Each program does
tensor work before and after the construct and feeds the construct's result into its output, so the frame is
compiled. The ``contextmanager`` and ``except*`` programs are in ``capture_count_cpython_with_more.py``, the
``ExceptionGroup`` ones in ``capture_count_cpython_with_groups.py``.
"""

from __future__ import annotations

import contextlib
import sys


class _Tracked:
    """A manager that records what the with statement hands it."""

    def __init__(self, value=1, swallow=False):
        self.value = value
        self.swallow = swallow
        self.entered = False
        self.exit_args = None

    def __enter__(self):
        self.entered = True
        return self.value

    def __exit__(self, exc_type, exc, tb):
        self.exit_args = (exc_type, exc, tb)
        return self.swallow


class _ReturnsSelf:
    def __init__(self):
        self.n = 0

    def __enter__(self):
        self.n += 1
        return self

    def __exit__(self, *args):
        self.n += 10
        return False


class _Log:
    """A manager that appends its name to a shared log on entry and exit."""

    def __init__(self, log, name):
        self.log = log
        self.name = name

    def __enter__(self):
        self.log.append("enter " + self.name)
        return len(self.log)

    def __exit__(self, exc_type, exc, tb):
        self.log.append("exit " + self.name + (" " + exc_type.__name__ if exc_type else ""))
        return False


class _EnterThrows:
    def __enter__(self):
        raise RuntimeError("Enter threw")

    def __exit__(self, *args):
        return False


class _ExitThrows:
    def __enter__(self):
        return 5

    def __exit__(self, *args):
        raise RuntimeError(42)


class _LacksEnter:
    def __exit__(self, *args):
        return False


class _LacksExit:
    def __enter__(self):
        return 1


class _Nested:
    """Several managers entered in order and exited in reverse, as nested with statements would be."""

    def __init__(self, *managers):
        self.managers = managers
        self.entered = None

    def __enter__(self):
        if self.entered is not None:
            raise RuntimeError("Context is not reentrant")
        self.entered = []
        values = []
        for mgr in self.managers:
            values.append(mgr.__enter__())
            self.entered.insert(0, mgr)
        return values

    def __exit__(self, *exc_info):
        suppressed = False
        for mgr in self.entered:
            if mgr.__exit__(*exc_info):
                suppressed = True
                exc_info = (None, None, None)
        self.entered = None
        return suppressed


class _Truthy:
    """What ``__exit__`` returns need only be true, not ``True``."""

    def __init__(self, result):
        self.result = result

    def __enter__(self):
        return self

    def __exit__(self, *args):
        return self.result


# ---- test_with: failures ----

def c_cw_name_error_manager(x):
    x = x + 1
    try:
        with _cw_not_defined_anywhere:
            x = x + 100
    except NameError:
        x = x * 2
    return x


def c_cw_lacks_enter_type_error(x):
    x = x.sin()
    try:
        with _LacksEnter():
            x = x + 100
    except TypeError as exc:
        x = x + ("context manager" in str(exc))
    return x


def c_cw_lacks_exit_type_error(x):
    x = x.cos()
    try:
        with _LacksExit():
            x = x + 100
    except TypeError as exc:
        x = x + ("__exit__" in str(exc))
    return x


def c_cw_lacks_both_type_error(x):
    x = x * 3
    try:
        with object():
            x = x + 100
    except TypeError:
        x = x - 1
    return x


def c_cw_enter_throws_target_unbound(x):
    x = x + 2
    holder = _Tracked()
    holder.target = None
    try:
        with _EnterThrows() as holder.target:
            x = x + 100
    except RuntimeError as exc:
        x = x + len(str(exc))
    return x + (holder.target is None)


def c_cw_exit_throws(x):
    x = x.exp()
    try:
        with _ExitThrows() as v:
            x = x + v
    except RuntimeError as exc:
        x = x + exc.args[0]
    return x


def c_cw_exit_throws_replaces_body_error(x):
    x = x - 1
    try:
        with _ExitThrows():
            raise ValueError("body")
    except RuntimeError as exc:
        x = x + isinstance(exc.__context__, ValueError)
    return x


# ---- test_with: managers without errors ----

def c_cw_enter_exit_called(x):
    x = x + 1
    m = _Tracked(3)
    with m as v:
        x = x * v
        inside = m.entered and m.exit_args is None
    return x + inside + (m.exit_args == (None, None, None))


def c_cw_unbound_manager(x):
    x = x.sin()
    m = _Tracked(2)
    with m:
        x = x + 1
    return x * m.exit_args.count(None)


def c_cw_bound_to_dotted_target(x):
    x = x.cos()
    box = _Tracked()
    with _Tracked(4) as box.value:
        x = x + box.value
    return x


def c_cw_bound_to_subscript(x):
    x = x * 2
    slots = [0, 0]
    with _Tracked(7) as slots[1]:
        x = x + slots[1]
    return x + slots[0]


def c_cw_bound_to_tuple(x):
    x = x + 3
    with _Tracked((1, 2, 3)) as (a, b, c):
        x = x * a + b - c
    return x


def c_cw_bound_to_starred(x):
    x = x - 2
    with _Tracked((1, 2, 3, 4)) as (first, *rest):
        x = x + first + sum(rest)
    return x


def c_cw_bound_tuple_wrong_length(x):
    x = x.exp()
    m = _Tracked((1,))
    try:
        with m as (a, b):
            x = x + a + b
    except ValueError:
        x = x - 1
    return x + (m.exit_args[0] is ValueError)


def c_cw_returns_self(x):
    x = x + 1
    m = _ReturnsSelf()
    with m as same:
        x = x + (same is m) + m.n
    return x * m.n


def c_cw_nested_statements(x):
    x = x + 1
    log = []
    with _Log(log, "a") as a:
        with _Log(log, "b") as b:
            x = x * (a + b)
    return x + len(log) + (log[2] == "exit b")


def c_cw_multiple_in_one_statement(x):
    x = x.sin()
    log = []
    with _Log(log, "a") as a, _Log(log, "b") as b, _Log(log, "c") as c:
        x = x + a + b + c
    return x + sum(len(entry) for entry in log) + (log[-1] == "exit a")


def c_cw_parenthesized_managers(x):
    x = x * 2
    log = []
    with (
        _Log(log, "p") as p,
        _Log(log, "q") as q,
    ):
        x = x + p * q
    return x + len(log)


def c_cw_nested_helper_unbound(x):
    x = x + 1
    m, n = _Tracked(1), _Tracked(2)
    with _Nested(m, n):
        x = x + m.entered + n.entered
    return x + (m.exit_args == (None, None, None)) + (n.exit_args == (None, None, None))


def c_cw_nested_helper_bound(x):
    x = x.cos()
    with _Nested(_Tracked(1), _Tracked(2), _Tracked(3)) as (a, b, c):
        x = x + a * 100 + b * 10 + c
    return x


def c_cw_nested_helper_single_list(x):
    x = x - 1
    with _Nested(_Tracked(5)) as values:
        x = x + values[0] + len(values)
    return x


def c_cw_nested_helper_not_reentrant(x):
    x = x + 2
    nested = _Nested(_Tracked())
    with nested:
        try:
            with nested:
                x = x + 100
        except RuntimeError:
            x = x * 2
    return x


def c_cw_reuse_manager_twice(x):
    x = x + 1
    m = _ReturnsSelf()
    with m:
        x = x + 1
    with m:
        x = x + 1
    return x + m.n


def c_cw_in_loop(x):
    x = x * 2
    log = []
    for i in range(3):
        with _Log(log, str(i)) as n:
            x = x + n
    return x + len(log)


def c_cw_break_in_body_exits(x):
    x = x + 1
    log = []
    for i in range(5):
        with _Log(log, str(i)):
            if i == 1:
                break
            x = x + i
    return x + len(log) + (log[-1] == "exit 1")


def c_cw_continue_in_body_exits(x):
    x = x.sin()
    log = []
    for i in range(3):
        with _Log(log, str(i)):
            if i % 2:
                continue
            x = x + i
    return x + len(log)


def _cw_return_inside(log, x):
    with _Log(log, "r"):
        return x + 1


def c_cw_return_in_body_exits(x):
    x = x * 3
    log = []
    y = _cw_return_inside(log, x)
    return y + len(log) + (log[-1] == "exit r")


def c_cw_exit_result_ignored_without_error(x):
    x = x + 1
    with _Truthy(True):
        x = x + 2
    return x


def c_cw_nullcontext_value(x):
    x = x.cos()
    with contextlib.nullcontext(4) as v:
        x = x + v
    with contextlib.nullcontext() as none:
        x = x + (none is None)
    return x


# ---- test_with: exceptions in the body ----

def c_cw_body_error_exit_args(x):
    x = x + 1
    m = _Tracked()
    try:
        with m:
            raise RuntimeError("test exception")
    except RuntimeError:
        x = x * 2
    kind, value, tb = m.exit_args
    return x + (kind is RuntimeError) + isinstance(value, RuntimeError) + (tb is not None)


def c_cw_body_error_normalized(x):
    x = x.exp()
    m = _Tracked()
    try:
        with m:
            _ = 1 // 0
    except ZeroDivisionError:
        x = x - 1
    return x + (m.exit_args[0] is ZeroDivisionError) + isinstance(m.exit_args[1], ZeroDivisionError)


def c_cw_swallowed_by_true(x):
    x = x + 2
    m = _Tracked(swallow=True)
    with m:
        x = x * 2
        raise ValueError("gone")
    return x + (m.exit_args[0] is ValueError)


def c_cw_swallowed_by_truthy_value(x):
    x = x - 3
    with _Truthy([1]):
        raise KeyError("k")
    with _Truthy(3):
        raise IndexError
    return x + 1


def c_cw_not_swallowed_by_falsy_value(x):
    x = x * 4
    try:
        with _Truthy(0):
            raise KeyError("k")
    except KeyError as exc:
        x = x + len(exc.args)
    return x


def c_cw_nested_error_both_exit(x):
    x = x + 1
    outer, inner = _Tracked(), _Tracked()
    try:
        with outer:
            with inner:
                raise RuntimeError("test exception")
    except RuntimeError:
        x = x + 1
    return x + (outer.exit_args[0] is RuntimeError) + (inner.exit_args[1] is outer.exit_args[1])


def c_cw_inner_swallows_outer_sees_none(x):
    x = x.sin()
    outer, inner = _Tracked(), _Tracked(swallow=True)
    with outer:
        with inner:
            raise RuntimeError("x")
        x = x + 1
    return x + (outer.exit_args == (None, None, None)) + (inner.exit_args[0] is RuntimeError)


def c_cw_multiple_resources_error(x):
    x = x + 1
    log = []
    try:
        with _Log(log, "a"), _Log(log, "b"):
            raise ValueError("v")
    except ValueError:
        x = x * 2
    return x + (log == ["enter a", "enter b", "exit b ValueError", "exit a ValueError"])


def c_cw_error_in_second_enter(x):
    x = x * 2
    log = []
    try:
        with _Log(log, "a"), _EnterThrows():
            x = x + 100
    except RuntimeError:
        x = x + 1
    return x + len(log) + (log[-1] == "exit a RuntimeError")


def c_cw_break_after_error_swallowed(x):
    x = x + 1
    for i in range(4):
        with _Tracked(swallow=True):
            if i == 2:
                raise ValueError
            x = x + i
        if i == 2:
            break
    return x + i


def c_cw_exception_context_in_exit(x):
    x = x.cos()
    seen = []

    class Inspect:
        def __enter__(self):
            return self

        def __exit__(self, kind, value, tb):
            seen.append(sys.exc_info()[0])
            return True

    with Inspect():
        raise KeyError("z")
    return x + len(seen)


def c_cw_exit_raises_new_error_in_handler(x):
    x = x + 1
    try:
        try:
            raise ValueError("first")
        except ValueError:
            with _ExitThrows():
                x = x + 1
    except RuntimeError as exc:
        x = x + isinstance(exc.__context__, ValueError)
    return x


def c_cw_assignment_in_body_persists(x):
    x = x.exp()
    with _Tracked(2) as k:
        y = x * k
        z = [k] * 3
    return y + sum(z) + k


CONSTRUCTS = [
    c_cw_name_error_manager, c_cw_lacks_enter_type_error, c_cw_lacks_exit_type_error, c_cw_lacks_both_type_error,
    c_cw_enter_throws_target_unbound, c_cw_exit_throws, c_cw_exit_throws_replaces_body_error,
    c_cw_enter_exit_called, c_cw_unbound_manager, c_cw_bound_to_dotted_target, c_cw_bound_to_subscript,
    c_cw_bound_to_tuple, c_cw_bound_to_starred, c_cw_bound_tuple_wrong_length, c_cw_returns_self,
    c_cw_nested_statements, c_cw_multiple_in_one_statement, c_cw_parenthesized_managers,
    c_cw_nested_helper_unbound, c_cw_nested_helper_bound, c_cw_nested_helper_single_list,
    c_cw_nested_helper_not_reentrant, c_cw_reuse_manager_twice, c_cw_in_loop, c_cw_break_in_body_exits,
    c_cw_continue_in_body_exits, c_cw_return_in_body_exits, c_cw_exit_result_ignored_without_error,
    c_cw_nullcontext_value, c_cw_body_error_exit_args, c_cw_body_error_normalized, c_cw_swallowed_by_true,
    c_cw_swallowed_by_truthy_value, c_cw_not_swallowed_by_falsy_value, c_cw_nested_error_both_exit,
    c_cw_inner_swallows_outer_sees_none, c_cw_multiple_resources_error, c_cw_error_in_second_enter,
    c_cw_break_after_error_swallowed, c_cw_exception_context_in_exit, c_cw_exit_raises_new_error_in_handler,
    c_cw_assignment_in_body_persists,
]
