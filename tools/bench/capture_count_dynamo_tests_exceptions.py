"""Exceptions modelled on PyTorch's test/dynamo/test_exceptions.py, for ``capture_count.py --only dynamo_tests``
(with ``capture_count_dynamo_tests.py``): context managers turning one exception into another, handlers in
helpers, ``__getattr__`` fallbacks, ``raise ... from None`` in a mapping, and ``__context__`` chains
(cycles the program makes, ``else`` and ``finally`` blocks), each written afresh over one tensor.
"""

from __future__ import annotations

import torch


# -- exceptions: chains, contexts, handlers in helpers ----------------------------------------------------
def c_exc_cm_converts_to_value_error(x):
    import contextlib

    @contextlib.contextmanager
    def converting():
        try:
            yield
        except BaseException:
            raise ValueError  # noqa: B904

    @contextlib.contextmanager
    def plain():
        try:
            yield
        finally:
            pass

    z = 0
    with plain():
        try:
            with converting():
                raise IndexError
        except ValueError:
            z = 1
        except IndexError:
            z = 2
    return x + z


def c_exc_helper_reraises(x):
    def helper(t):
        try:
            t = t.cos()
            raise NotImplementedError("no")
        except NotImplementedError:
            t = t.sigmoid()
            raise

    try:
        x = x.cos()
        helper(x)
    except Exception:
        pass
    return x


def c_exc_kw_call_raises_then_loop(x):
    def g(t, k=None):
        if k:
            raise TypeError("k")
        return t.sin()

    d = {"a": x, "b": x + 1}
    try:
        g(x, k=True)
    except Exception:
        y = 0
        for _, v in d.items():
            y = y + v.sum()
    return y


def c_exc_custom_args_in_handler(x):
    class Failed(Exception):
        pass

    try:
        raise Failed(1, 2.0)
    except Failed as e:
        return x.sin() + e.args[0] + e.args[1]
    except Exception:
        return x.cos()


class _Prefixed:
    def __init__(self):
        self._b = 20

    def __getattr__(self, name):
        fixed = "_" + name
        if fixed in self.__dict__:
            return self.__dict__[fixed]
        raise AttributeError(f"{name} absent")


class _Defaulted(_Prefixed):
    def __init__(self):
        super().__init__()
        self.a = 10

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return 30


_DEFAULTED = _Defaulted()


def c_exc_getattr_chain_fallback(x):
    return x * _DEFAULTED.a * _DEFAULTED.b * _DEFAULTED.c


class _Lookup:
    def __init__(self, d):
        self._d = d

    def __getitem__(self, key):
        try:
            return self._d[key]
        except KeyError:
            raise KeyError(key) from None


_LOOKUP = _Lookup({"a": 10})


def c_exc_mapping_get_from_none(x):
    def get(obj, key, default=None):
        try:
            return obj.__getitem__(key)
        except KeyError:
            return default

    return (x + 1).sin(), get(_LOOKUP, "m"), get(_LOOKUP, "a")


def c_exc_user_zip_longest(x):
    def longest(*iterables, fill=None):
        its = [iter(it) for it in iterables]
        out = []
        while True:
            for it in its:
                try:
                    value = next(it)
                except StopIteration:
                    out.append(fill)
                    return out
                out.append(value)

    return x.cos(), tuple(longest([1, 2, 3, 4], [10, 11, 12]))


def c_exc_context_inside_nested_loop(x):
    seen = []
    try:
        try:
            _ = 1 / 0
        except ZeroDivisionError:
            for kind in (KeyError, IndexError):
                try:
                    raise kind
                except kind as e:
                    seen.append(type(e.__context__).__name__)
            raise
    except ZeroDivisionError:
        pass
    return x + len(seen), seen


def c_exc_else_then_finally_context(x):
    try:
        try:
            pass
        except Exception:
            pass
        else:
            raise ValueError(1)
        finally:
            raise OSError(2)
    except Exception as e:
        return x + 1, type(e).__name__, type(e.__context__).__name__


def c_exc_raise_earlier_no_cycle(x):
    try:
        try:
            raise AssertionError
        except AssertionError as a_:
            a = a_
            try:
                raise BytesWarning
            except BytesWarning as b_:
                b = b_
                try:
                    raise ConnectionError
                except ConnectionError as c_:
                    c = c_
                    raise a  # noqa: B904
    except AssertionError as e:
        exc = e
    return (x + 1, exc is a, type(a.__context__).__name__, a.__context__ is c,
            c.__context__ is b, b.__context__ is None)


def c_exc_context_self_cycle(x):
    def cycle():
        try:
            raise ValueError(1)
        except ValueError as ex:
            ex.__context__ = ex
            raise TypeError(2)  # noqa: B904

    try:
        cycle()
    except Exception as e:
        exc = e
    return x + 1, type(exc).__name__, exc.__context__.__context__ is exc.__context__


def c_exc_returned_with_context(x):
    v = ValueError(1, 2, 3)
    v.__context__ = TypeError()
    return x.sin(), v.args, type(v.__context__).__name__


def c_exc_suppress_context_descriptor(x):
    try:
        raise Exception
    except Exception as exc:
        e = exc
    before = (e.__context__, e.__cause__, e.__suppress_context__)
    e.__context__ = NameError()
    e.__cause__ = None
    after = e.__suppress_context__
    e.__suppress_context__ = False
    return x + 1, before, after, e.__suppress_context__


def c_exc_sequential_no_context(x):
    try:
        raise TypeError
    except TypeError as e:
        first = e
    try:
        raise ValueError
    except ValueError as e:
        second = e
    return x + 1, first.__context__ is None, second.__context__ is None


def c_exc_loop_try_lookup(x):
    params = {"a": 3, "b": 4, "c": 5}
    dt = {"c": 5}
    for name in params:
        try:
            x = x * dt[name]
        except KeyError:
            x = x * torch.sin(x)
    return x


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
