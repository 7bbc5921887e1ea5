"""More programs after the CPython tests PyTorch runs under Dynamo, for ``capture_count.py --only cpython_with``:
test_with's ``contextlib.contextmanager`` managers, then test_except_star (``except*`` matching, splitting,
wrapping a naked exception, several clauses, raising in a clause, the rest re-raised). test_exception_group's
programs are in ``capture_count_cpython_with_groups.py``. Each program does tensor work before and after the construct and
feeds the construct's result into its output, so the frame is compiled.
"""

from __future__ import annotations

import contextlib
import sys


@contextlib.contextmanager
def _resource(log):
    log.append("yielded")
    try:
        yield len(log)
    finally:
        log.append("stopped")


@contextlib.contextmanager
def _swallowing(kind):
    try:
        yield
    except kind:
        pass



# ---- test_with: contextmanager-made managers ----

def c_cw_contextmanager_generator(x):
    x = x + 1
    log = []
    with _resource(log) as n:
        x = x + n
        inside = list(log)
    return x + len(inside) + len(log)


def c_cw_contextmanager_error_runs_finally(x):
    x = x.sin()
    log = []
    try:
        with _resource(log):
            raise RuntimeError("test exception")
    except RuntimeError:
        x = x + 1
    return x + (log == ["yielded", "stopped"])


def c_cw_contextmanager_swallows(x):
    x = x * 2
    with _swallowing(ZeroDivisionError):
        x = x + 1
        _ = 1 / 0
    return x + 1


def c_cw_contextmanager_does_not_swallow_other(x):
    x = x + 3
    try:
        with _swallowing(KeyError):
            raise IndexError("i")
    except IndexError:
        x = x - 1
    return x


def c_cw_suppress_then_continue(x):
    x = x + 1
    total = 0
    for i in range(4):
        with contextlib.suppress(ValueError):
            if i % 2:
                raise ValueError(i)
            total += i
    return x + total


def _shape(exc):
    """A comparable picture of a group: its message and its subexceptions' shapes, or a leaf's type and args."""
    if exc is None:
        return None
    if isinstance(exc, BaseExceptionGroup):
        return (type(exc).__name__, exc.message, tuple(_shape(sub) for sub in exc.exceptions))
    return (type(exc).__name__, exc.args)


# ---- test_except_star: matching and splitting ----

def c_cw_star_no_match_reraises_group(x):
    x = x + 1
    try:
        try:
            raise ExceptionGroup("test1", [ValueError("V"), TypeError("T")])
        except* SyntaxError:
            x = x + 100
    except ExceptionGroup as rest:
        x = x + len(rest.exceptions) + (rest.message == "test1")
    return x


def c_cw_star_match_all(x):
    x = x.sin()
    try:
        raise ExceptionGroup("test2", [ValueError("V1"), ValueError("V2")])
    except* ValueError as e:
        x = x + len(e.exceptions) + (e.message == "test2")
    return x


def c_cw_star_partial_match(x):
    x = x * 2
    matched = None
    try:
        try:
            raise ExceptionGroup("test3", [ValueError("V1"), OSError("OS"), ValueError("V2")])
        except* ValueError as e:
            matched = _shape(e)
    except ExceptionGroup as rest:
        x = x + len(rest.exceptions) + isinstance(rest.exceptions[0], OSError)
    return x + len(matched[2]) + (matched[1] == "test3")


def c_cw_star_nested_split(x):
    x = x + 2
    match = rest = None
    try:
        try:
            raise ExceptionGroup("g1", [ValueError("V1"), OSError("OS1"),
                                        ExceptionGroup("g2", [OSError("OS2"), ValueError("V2"), TypeError("T")])])
        except* ValueError as e:
            match = _shape(e)
    except ExceptionGroup as r:
        rest = _shape(r)
    return x + (match == ("ExceptionGroup", "g1", (("ValueError", ("V1",)),
                                                    ("ExceptionGroup", "g2", (("ValueError", ("V2",)),))))) \
        + len(rest[2]) + len(rest[2][1][2])


def c_cw_star_tuple_of_types(x):
    x = x.cos()
    count = 0
    try:
        try:
            raise ExceptionGroup("h1", [ValueError("V1"), OSError("OS1"), TypeError("T")])
        except* (ValueError, TypeError) as e:
            count = len(e.exceptions)
    except ExceptionGroup as rest:
        count = count * 10 + len(rest.exceptions)
    return x + count


def c_cw_star_empty_groups_removed(x):
    x = x - 1
    try:
        try:
            raise ExceptionGroup("eg", [ExceptionGroup("i1", [ValueError("V1")]),
                                        ExceptionGroup("i2", [ValueError("V2"), TypeError("T1")]),
                                        ExceptionGroup("i3", [TypeError("T2")])])
        except* TypeError as e:
            names = [sub.message for sub in e.exceptions]
    except ExceptionGroup as rest:
        names = names + [sub.message for sub in rest.exceptions]
    return x + len(names) + (names == ["i2", "i3", "i1", "i2"])


def c_cw_star_naked_exception_wrapped(x):
    x = x + 3
    try:
        raise ValueError("V")
    except* ValueError as e:
        wrapped = type(e) is ExceptionGroup and e.message == "" and len(e.exceptions) == 1
        leaf = e.exceptions[0].args[0]
    return x + wrapped + len(leaf)


def c_cw_star_naked_matched_by_exception(x):
    x = x * 3
    try:
        raise KeyError("k")
    except* Exception as e:
        kind = type(e.exceptions[0]) is KeyError
    return x + kind


def c_cw_star_group_not_rewrapped(x):
    x = x.exp()
    original = ExceptionGroup("eg", [ValueError("V")])
    try:
        raise original
    except* Exception as e:
        same = e is original
    return x + same


def c_cw_star_plain_not_matched_reraised_plain(x):
    x = x + 1
    try:
        try:
            raise ValueError("V")
        except* TypeError:
            x = x + 100
    except ValueError as exc:
        x = x + (type(exc) is ValueError) + len(exc.args)
    return x


def c_cw_star_supertype_match(x):
    x = x - 2
    try:
        try:
            raise ExceptionGroup("st", [BlockingIOError("io"), TypeError("T")])
        except* OSError as e:
            first = type(e.exceptions[0]).__name__
    except ExceptionGroup as rest:
        first = first + type(rest.exceptions[0]).__name__
    return x + len(first)


def c_cw_star_multiple_clauses_run(x):
    x = x + 1
    seen = []
    try:
        raise ExceptionGroup("mmn", [OSError("os"), BlockingIOError("io")])
    except* BlockingIOError as e:
        seen.append(("blocking", len(e.exceptions)))
    except* OSError as e:
        seen.append(("os", len(e.exceptions)))
    return x + len(seen) + (seen[0][0] == "blocking") + seen[1][1]


def c_cw_star_first_match_wins(x):
    x = x * 2
    seen = []
    try:
        raise ExceptionGroup("fst", [BlockingIOError("io")])
    except* OSError:
        seen.append("os")
    except* BlockingIOError:
        seen.append("blocking")
    return x + len(seen) + (seen == ["os"])


def c_cw_star_unnamed_exc_info(x):
    x = x.sin()
    try:
        raise ExceptionGroup("mmu", [OSError("os"), KeyError("k")])
    except* KeyError:
        current = sys.exc_info()[1]
        n = len(current.exceptions)
    except* OSError:
        n = n + 10
    return x + n


def c_cw_star_exc_info_restored(x):
    x = x + 2
    before = sys.exc_info()[0]
    try:
        raise ExceptionGroup("eg", [ValueError(1)])
    except* ValueError:
        pass
    return x + (sys.exc_info()[0] is before)


def c_cw_star_else_and_finally(x):
    x = x - 1
    log = []
    try:
        x = x + 1
    except* ValueError:
        log.append("except")
    else:
        log.append("else")
    finally:
        log.append("finally")
    return x + len(log) + (log[0] == "else")


def c_cw_star_finally_after_match(x):
    x = x * 2
    log = []
    try:
        raise ExceptionGroup("eg", [ValueError(1)])
    except* ValueError:
        log.append("except")
    finally:
        log.append("finally")
    return x + len(log)


def c_cw_star_break_continue_inside_clause(x):
    x = x + 1
    try:
        raise ValueError(42)
    except* Exception as e:
        count = 0
        for i in range(5):
            if i == 0:
                continue
            if i == 4:
                break
            count += 1
        exc = e
    return x + count + i + isinstance(exc, ExceptionGroup)


def c_cw_star_call_inside_clause(x):
    x = x.cos()
    try:
        raise ValueError(42)
    except* Exception:
        def double(v):
            return 2 * v
        r = double(3)
    return x + r


def c_cw_star_raise_new_in_clause(x):
    x = x + 1
    try:
        try:
            raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
        except* ValueError:
            raise KeyError("new")  # noqa: B904
    except ExceptionGroup as outer:
        kinds = sorted(type(sub).__name__ for sub in outer.exceptions)
    return x + len(kinds) + (kinds == ["ExceptionGroup", "KeyError"])


def c_cw_star_raise_new_only_clause(x):
    x = x * 3
    try:
        try:
            raise ExceptionGroup("eg", [ValueError(1)])
        except* ValueError:
            raise KeyError("new")  # noqa: B904
    except KeyError as exc:
        x = x + isinstance(exc.__context__, ExceptionGroup)
    except ExceptionGroup as group:
        x = x + 10 * len(group.exceptions)
    return x


def c_cw_star_bare_reraise(x):
    x = x - 3
    try:
        try:
            raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
        except* ValueError:
            raise
    except ExceptionGroup as group:
        x = x + len(group.exceptions) + (group.message == "eg")
    return x


def c_cw_star_nested_except_star(x):
    x = x + 1
    log = []
    try:
        raise ExceptionGroup("n", [BlockingIOError("io")])
    except* BlockingIOError:
        try:
            raise ExceptionGroup("n", [ValueError("v")])
        except* ValueError:
            log.append("inner")
        log.append("outer")
    return x + len(log)


def c_cw_star_exception_group_type_error(x):
    x = x.exp()
    try:
        try:
            raise OSError("blah")
        except* ExceptionGroup:
            x = x + 100
    except TypeError:
        x = x + 1
    return x


def c_cw_star_invalid_type_error(x):
    x = x * 2
    try:
        try:
            raise ValueError
        except* (ValueError, 42):  # noqa: B030
            x = x + 100
    except TypeError:
        x = x - 1
    return x


CONSTRUCTS = [
    c_cw_contextmanager_generator, c_cw_contextmanager_error_runs_finally, c_cw_contextmanager_swallows,
    c_cw_contextmanager_does_not_swallow_other, c_cw_suppress_then_continue,
    c_cw_star_no_match_reraises_group, c_cw_star_match_all, c_cw_star_partial_match, c_cw_star_nested_split,
    c_cw_star_tuple_of_types, c_cw_star_empty_groups_removed, c_cw_star_naked_exception_wrapped,
    c_cw_star_naked_matched_by_exception, c_cw_star_group_not_rewrapped, c_cw_star_plain_not_matched_reraised_plain,
    c_cw_star_supertype_match, c_cw_star_multiple_clauses_run, c_cw_star_first_match_wins,
    c_cw_star_unnamed_exc_info, c_cw_star_exc_info_restored, c_cw_star_else_and_finally,
    c_cw_star_finally_after_match, c_cw_star_break_continue_inside_clause, c_cw_star_call_inside_clause,
    c_cw_star_raise_new_in_clause, c_cw_star_raise_new_only_clause, c_cw_star_bare_reraise,
    c_cw_star_nested_except_star, c_cw_star_exception_group_type_error, c_cw_star_invalid_type_error,
]
