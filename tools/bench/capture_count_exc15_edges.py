"""Edge protocols of exceptions after PyTorch's test_exceptions.py and test_ctx_manager.py (round exc15), for
``capture_count.py --only exc15``: ExceptionGroup split/subgroup, tracebacks of caught errors, exc_info in a
helper, errors raised in ``__eq__``/``__hash__``/``__next__``/sort keys, contextmanager generators that do not
yield or yield twice, ``with`` over an object without the protocol, ``return``/``break`` in ``finally`` and
``continue`` in handlers, each written afresh over one tensor.
"""

from __future__ import annotations

import contextlib
import sys


class _BadEq:
    def __eq__(self, other):
        raise TypeError("eq")

    __hash__ = object.__hash__


class _Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n == 0:
            raise StopIteration
        if self.n == 2:
            self.n -= 1
            raise KeyError("two")
        self.n -= 1
        return self.n


class _NoProtocol:
    pass


def c_exc15_group_split_subgroup(x):
    g = ExceptionGroup("g", [ValueError(1), KeyError(2), ValueError(3)])
    vals, rest = g.split(ValueError)
    sub = g.subgroup(KeyError)
    return x + len(vals.exceptions) * 10 + len(rest.exceptions) + len(sub.exceptions)


def c_exc15_traceback_present(x):
    try:
        raise ValueError
    except ValueError as e:
        has_tb = e.__traceback__ is not None
        e2 = e.with_traceback(None)
    return x + has_tb, e2.__traceback__ is None


def c_exc15_exc_info_in_helper(x):
    def kind():
        return sys.exc_info()[0].__name__

    try:
        raise LookupError
    except LookupError:
        k = kind()
    return x + 1, k, sys.exc_info()[0] is None


def c_exc15_eq_raises_in_contains(x):
    items = [_BadEq()]
    try:
        found = 3 in items
    except TypeError:
        found = None
    return x + 1, found


def c_exc15_unhashable_key_caught(x):
    d = {}
    try:
        d[[1, 2]] = 1
        ok = True
    except TypeError:
        ok = False
    return x + ok, len(d)


def c_exc15_sort_key_raises(x):
    def key(v):
        if v == 2:
            raise ValueError(v)
        return -v

    try:
        out = sorted([1, 2, 3], key=key)
    except ValueError as e:
        out = [e.args[0]]
    return x + sum(out)


def c_exc15_next_raises_mid_loop(x):
    seen = []
    try:
        for v in _Countdown(4):
            seen.append(v)
    except KeyError as e:
        seen.append(e.args[0])
    return x + len(seen), tuple(seen)


def c_exc15_cm_gen_does_not_yield(x):
    @contextlib.contextmanager
    def empty():
        if False:
            yield

    y = x.sin()
    try:
        with empty():
            y = y + 100
        msg = ""
    except RuntimeError as e:
        msg = str(e)
    return y, msg


def c_exc15_cm_gen_yields_twice(x):
    @contextlib.contextmanager
    def twice():
        yield
        yield

    try:
        with twice():
            x = x + 1
        msg = ""
    except RuntimeError as e:
        msg = str(e)
    return x, msg


def c_exc15_with_without_protocol(x):
    try:
        with _NoProtocol():
            x = x + 100
        kind = ""
    except (TypeError, AttributeError) as e:
        kind = type(e).__name__
    return x + 1, kind


def c_exc15_return_in_finally_swallows(x):
    def f(t):
        try:
            raise ValueError
        finally:
            return t * 2  # noqa: B012

    return f(x)


def c_exc15_break_in_finally_swallows(x):
    for i in range(3):
        try:
            x = x + i
            raise KeyError
        finally:
            break  # noqa: B012
    return x


def c_exc15_continue_in_handler(x):
    acc = []
    for i in range(5):
        try:
            if i % 2:
                raise ValueError
        except ValueError:
            continue
        else:
            acc.append(i)
        finally:
            x = x + 1
    return x, tuple(acc)


def c_exc15_while_retry_until_success(x):
    tries = 0
    while True:
        try:
            tries += 1
            if tries < 3:
                raise ConnectionError
            break
        except ConnectionError:
            x = x * 2
    return x, tries


def c_exc15_finally_nonlocal_closure(x):
    state = []

    def run(t):
        try:
            return t + 1
        finally:
            state.append(len(state))

    a = run(x)
    b = run(a)
    return b, tuple(state)


def c_exc15_exception_in_comprehension(x):
    def safe(v):
        try:
            return 10 // v
        except ZeroDivisionError:
            return -1

    vals = [safe(v) for v in (5, 0, 2)]
    return x + sum(vals), vals


def c_exc15_map_raises_stopiteration(x):
    def f(v):
        if v == 3:
            raise StopIteration
        return v

    out = list(map(f, [1, 2, 3, 4]))
    return x + sum(out), out


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
