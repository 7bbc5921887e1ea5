"""Round 11's exception-chain programs (a part of ``capture_count_gens11.py``): written afresh after the ideas of
PyTorch's test/dynamo/test_exceptions.py: contexts set by ``raise`` in ``except``/``else``/``finally``, a raise
that would close a context cycle, ``__context__``/``__cause__`` assigned by hand, exceptions returned from the
compiled frame with their chain, ``sys.exc_info()`` around handlers, and a ``__getattr__`` that raises. Each runs
over one tensor.
"""

from __future__ import annotations

import sys


def c_gens11_context_else_finally(x):
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
        exc = e
    return x + 1, type(exc).__name__, type(exc.__context__).__name__, exc.__context__.__context__


def c_gens11_raise_breaks_context_cycle(x):
    try:
        try:
            raise KeyError("a")
        except KeyError as a_:
            a = a_
            try:
                raise IndexError("b")
            except IndexError as b_:
                b = b_
                raise a  # noqa: B904
    except KeyError as e:
        got = e
    return x * 2, got is a, a.__context__ is b, b.__context__ is None


def c_gens11_self_context_cycle(x):
    def cycle():
        try:
            raise ValueError(1)
        except ValueError as ex:
            ex.__context__ = ex
            raise TypeError(2)  # noqa: B904

    try:
        cycle()
    except TypeError as e:
        inner = e.__context__
        return x + 1, type(inner).__name__, inner.__context__ is inner


def c_gens11_chain_assigned_by_hand(x):
    e = RuntimeError("r")
    e.__cause__ = KeyError("k")
    sup = e.__suppress_context__
    e.__suppress_context__ = False
    e.__context__ = ValueError("v")
    return x - 1, type(e.__cause__).__name__, sup, e.__suppress_context__, str(e.__context__)


def c_gens11_return_exception_with_context(x):
    v = ValueError(1, 2)
    v.__context__ = TypeError("t")
    return x.sin(), v.args, type(v.__context__).__name__


def c_gens11_exc_info_around_handlers(x):
    seen = [sys.exc_info()[0]]
    try:
        raise LookupError("l")
    except LookupError:
        seen.append(sys.exc_info()[0].__name__)
        try:
            raise KeyError("k")
        except KeyError:
            seen.append(sys.exc_info()[0].__name__)
        seen.append(sys.exc_info()[0].__name__)
    seen.append(sys.exc_info()[0])
    return x + len(seen), seen


def c_gens11_getattr_raises_attribute_error(x):
    class Lazy:
        def __init__(self):
            self._known = {"scale": 3}

        def __getattr__(self, name):
            try:
                return self._known[name]
            except KeyError:
                raise AttributeError(name) from None

    obj = Lazy()
    missing = getattr(obj, "shift", 0)
    return x * obj.scale + missing, hasattr(obj, "scale"), hasattr(obj, "nope")


def c_gens11_mapping_raise_from_none(x):
    class Env:
        def __init__(self, d):
            self._d = d

        def __getitem__(self, key):
            try:
                return self._d[key]
            except KeyError:
                raise KeyError(key) from None

    env = Env({"a": 2})
    try:
        env["zz"]
        info = None
    except KeyError as e:
        info = (e.args, e.__suppress_context__, type(e.__context__).__name__)
    return x * env["a"], info


def c_gens11_exception_args_mutated(x):
    try:
        raise ValueError("a", 1)
    except ValueError as e:
        e.args = ("b", *e.args[1:])
        saved = e
    return x + saved.args[1], saved.args, str(saved)


def c_gens11_exception_in_finally_of_loop(x):
    out = []
    for i in range(3):
        try:
            try:
                if i == 1:
                    raise ValueError(i)
                out.append(i)
            finally:
                if i == 1:
                    raise KeyError(i)
        except KeyError as e:
            out.append(("K", e.args[0], type(e.__context__).__name__))
    return x * len(out), out


def c_gens11_except_group_nested_raise(x):
    try:
        try:
            raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
        except* ValueError:
            raise KeyError("from handler")  # noqa: B904
    except BaseExceptionGroup as eg:
        kinds = sorted(type(e).__name__ for e in eg.exceptions)
        return x + 1, type(eg).__name__, kinds


def c_gens11_traceback_frames_names(x):
    def inner():
        raise ValueError("v")

    try:
        inner()
    except ValueError as e:
        tb = e.__traceback__
        names = []
        while tb is not None:
            names.append(tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
    return x + len(names), names


def c_gens11_with_traceback_none(x):
    try:
        raise ValueError("v")
    except ValueError as e:
        stripped = e.with_traceback(None)
        same = stripped is e
        has_tb = e.__traceback__ is not None
    return x + 1, same, has_tb


def c_gens11_softmax_bad_dim_caught(x):
    out = []
    for op in (lambda: x.softmax(dim=5), lambda: x.log_softmax(-3), lambda: x.softmax(0)):
        try:
            op()
            out.append("ok")
        except IndexError as e:
            out.append(str(e))
    return x + 1, out


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
