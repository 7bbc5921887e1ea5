"""More exception constructs for ``capture_count.py --only generators``, of the kinds PyTorch's
test/dynamo/test_exceptions.py exercises: context chains through ``finally`` and nested handlers, a
re-raised exception keeping its context, ``sys.exc_info()`` in a ``finally`` and after the block,
custom exceptions with keyword ``__init__``, exception groups with ``except*``, ``with_traceback``,
``KeyError`` raised ``from None`` in a mapping, and ``hasattr`` through a raising ``__getattr__``. Issue
29's: what ``gen.close()`` returns when the ``finally`` returns, ``send`` through ``yield from``, and the
messages of the TypeErrors iterating, unpacking or calling an int raises (read in the handler).
"""

from __future__ import annotations

import sys


def c_context_through_finally(x):
    try:
        try:
            raise TypeError(1)
        finally:
            x = x + 1
            raise ValueError(2)
    except ValueError as exc:
        return x, type(exc.__context__).__name__, exc.__context__.args


def c_context_except_and_finally(x):
    try:
        try:
            raise TypeError(1)
        except TypeError:
            raise ValueError(2)  # noqa: B904
        finally:
            x = x * 2
            raise OSError(3)
    except OSError as exc:
        return x, type(exc.__context__).__name__, type(exc.__context__.__context__).__name__


def c_exc_info_in_finally(x):
    seen = []
    try:
        try:
            raise KeyError("k")
        finally:
            seen.append(sys.exc_info()[0])
    except KeyError:
        seen.append(sys.exc_info()[0])
    seen.append(sys.exc_info()[0])
    return x + len(seen), seen


class _Wrapped(Exception):
    def __init__(self, msg, *, code=0):
        super().__init__(msg)
        self.code = code


def c_custom_exception_keyword_init(x):
    try:
        raise _Wrapped("bad", code=7)
    except _Wrapped as exc:
        return x + exc.code, exc.args, str(exc)


def c_except_star_group(x):
    hits = []
    try:
        raise ExceptionGroup("many", [ValueError(1), TypeError(2)])
    except* ValueError as group:
        hits.append(len(group.exceptions))
    except* TypeError:
        hits.append("type")
    return x + len(hits), hits


def c_with_traceback_none(x):
    try:
        raise RuntimeError("r").with_traceback(None)
    except RuntimeError as exc:
        return x + 1, exc.__traceback__ is not None, exc.args


class _Env:
    def __init__(self, d):
        self._d = d

    def __getitem__(self, key):
        try:
            return self._d[key]
        except KeyError:
            raise KeyError(key) from None


def c_mapping_keyerror_from_none(x):
    env = _Env({"a": 1})
    try:
        env["b"]
    except KeyError as exc:
        return x + env["a"], exc.args, exc.__suppress_context__, exc.__cause__


class _Lazy:
    def __getattr__(self, name):
        if name.startswith("opt_"):
            return 3
        raise AttributeError(name)


def c_hasattr_through_getattr(x):
    lazy = _Lazy()
    return x + (hasattr(lazy, "opt_a") + hasattr(lazy, "missing")), getattr(lazy, "other", 5)


def c_exception_isinstance_tuple(x):
    errors = []
    for exc in (KeyError("a"), IndexError(1), ValueError()):
        try:
            raise exc
        except (KeyError, IndexError) as caught:
            errors.append((isinstance(caught, LookupError), type(caught).__name__))
        except ValueError:
            errors.append("value")
    return x + len(errors), errors


def c_return_in_finally_swallows(x):
    def swallow(t):
        try:
            raise ValueError("lost")
        finally:
            return t * 2  # noqa: B012

    return swallow(x), sys.exc_info()[0]


CONSTRUCTS = [c_context_through_finally, c_context_except_and_finally, c_exc_info_in_finally,
              c_custom_exception_keyword_init, c_except_star_group, c_with_traceback_none,
              c_mapping_keyerror_from_none, c_hasattr_through_getattr, c_exception_isinstance_tuple,
              c_return_in_finally_swallows]


# -- issue 29: values through generators, and the messages of TypeErrors raised in the trace -------------
def c_gen_close_returns_finally_value(x):
    def steps(t):
        try:
            yield t + 1
        finally:
            return 5  # noqa: B012  (3.13's close() hands it back, 3.11/3.12's drops it)

    gen = steps(x)
    first = next(gen)
    closed = gen.close()
    return first + (closed or 0), closed


def c_gen_close_ignores_finally_value(x):
    def steps(t):
        try:
            yield t + 1
        except GeneratorExit:
            return t * 3

    gen = steps(x)
    first = next(gen)
    gen.close()
    return first * 2


def c_gen_send_into_yield_from(x):
    def inner():
        a = yield 1
        b = yield a + 1
        return a * b

    def outer(log):
        got = yield from inner()
        log.append(got)
        yield got * 10

    log = []
    gen = outer(log)
    values = [next(gen), gen.send(3), gen.send(4)]
    try:
        gen.send(5)
    except StopIteration:
        values.append("stopped")
    return x + values[2], values, log


def c_iter_int_message_branch(x):
    try:
        iter(3)
        msg = ""
    except TypeError as e:
        msg = str(e)
    return x + 1 if msg == "'int' object is not iterable" else x - 1


def c_for_over_int_message(x):
    try:
        for _ in 3:
            x = x + 1
    except TypeError as e:
        return x * 2, e.args
    return x


def c_unpack_int_message(x):
    try:
        a, b = 3
    except TypeError as e:
        return x + 1, str(e)
    return x + a + b


def c_call_int_message(x):
    f = 3
    try:
        f()
    except TypeError as e:
        return x + 1, str(e)
    return x


def c_dict_of_pairs_message(x):
    try:
        dict([(1, 2), 3])
    except TypeError as e:
        return x + 1, str(e)
    return x


CONSTRUCTS += [c_gen_close_returns_finally_value, c_gen_close_ignores_finally_value, c_gen_send_into_yield_from,
               c_iter_int_message_branch, c_for_over_int_message, c_unpack_int_message, c_call_int_message,
               c_dict_of_pairs_message]
