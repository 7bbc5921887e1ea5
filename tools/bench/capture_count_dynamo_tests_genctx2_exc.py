"""Exceptions and context managers modelled on the second halves of PyTorch's test/dynamo/test_exceptions.py
and test_ctx_manager.py, for ``capture_count.py --only dynamo_tests``: the exception kept active through inner
handlers, ``GeneratorExit`` past ``except Exception``, chaining descriptors set by hand, the ``__context__``
of exceptions raised in ``finally`` blocks (and chains the program makes cyclic), contextlib managers made
in one helper and entered in another, nonlocal and global writes from their bodies, and managers driven by
hand (``__enter__``/``__exit__``) around a graph break, each written afresh over one tensor.
"""

from __future__ import annotations

import contextlib
import io
import sys

import torch

_SINK = io.StringIO()


# -- exceptions: active exception, chains, contexts -------------------------------------------------------
def c_gc2x_active_exception_after_inner_handlers(x):
    try:
        try:
            1 / 0  # noqa: B018
        except ZeroDivisionError:
            for kind in (KeyError, IndexError):
                try:
                    raise kind
                except kind:
                    pass
            raise
    except ZeroDivisionError:
        x = x + 1
    return x


def c_gc2x_inner_context_is_outer_exception(x):
    seen = []
    try:
        try:
            1 / 0  # noqa: B018
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


def c_gc2x_generator_exit_skips_exception(x):
    try:
        raise GeneratorExit
    except Exception:
        return x.sin()
    except BaseException:
        return x.cos()


def c_gc2x_dict_pop_missing_else(x):
    def pick(d, t):
        try:
            d.pop("b")
        except KeyError:
            return t.sin()
        else:
            return t.cos()

    return pick({"a": 1}, x) + pick({"a": 1, "b": 2}, x)


def c_gc2x_module_exception_class(x):
    z = 0
    try:
        raise _Custom
    except ValueError:
        z = 1
    except _Custom:
        z = 2
    return x.sin() + z


class _Custom(Exception):
    pass


class _CustomArgs(Exception):
    def __init__(self, a, b=None):
        self.a = a
        self.b = b


def c_gc2x_module_exception_keyword_fields(x):
    try:
        raise _CustomArgs(2, b=3)
    except ValueError:
        return x
    except _CustomArgs as e:
        return x + e.a * e.b, e.args


def c_gc2x_fresh_exceptions_have_no_context(x):
    try:
        raise TypeError
    except TypeError as e:
        first = e
    try:
        raise ValueError
    except ValueError as e:
        second = e
    return x, first.__context__ is None, second.__context__ is None


def c_gc2x_chaining_descriptors_by_hand(x):
    try:
        raise Exception
    except Exception as exc:
        e = exc
    before = (e.__context__ is None, e.__cause__ is None, e.__suppress_context__)
    e.__context__ = NameError()
    e.__cause__ = None
    middle = (type(e.__context__).__name__, e.__suppress_context__)
    e.__suppress_context__ = False
    return x + 1, before, middle, e.__suppress_context__


def c_gc2x_context_raise_in_try_and_finally(x):
    try:
        try:
            te = TypeError(1)
            raise te
        finally:
            ve = ValueError(2)
            raise ve
    except Exception as e:
        exc = e
    return x + exc.args[0], exc is ve, exc.__context__ is te


def c_gc2x_context_except_then_finally(x):
    try:
        try:
            te = TypeError(1)
            raise te
        except Exception:
            ve = ValueError(2)
            raise ve  # noqa: B904
        finally:
            oe = OSError(3)
            raise oe
    except Exception as e:
        exc = e
    return x, exc is oe, exc.__context__ is ve, exc.__context__.__context__ is te


def c_gc2x_context_else_then_finally(x):
    try:
        try:
            pass
        except Exception:
            pass
        else:
            ve = ValueError(1)
            raise ve
        finally:
            oe = OSError(2)
            raise oe
    except Exception as e:
        exc = e
    return x, exc is oe, exc.__context__ is ve


def c_gc2x_reraise_outer_breaks_cycle(x):
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
    return x, exc is a, a.__context__ is c, c.__context__ is b, b.__context__ is None


def c_gc2x_self_context_cycle_kept(x):
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
    inner = exc.__context__
    return x + exc.args[0], type(inner).__name__, inner.__context__ is inner


def c_gc2x_longer_chain_with_cycle(x):
    try:
        try:
            raise AssertionError
        except AssertionError as _a:
            a = _a
            try:
                raise BytesWarning
            except BytesWarning as _b:
                b = _b
                try:
                    raise ConnectionError
                except ConnectionError as _c:
                    c = _c
                    a.__context__ = c
                    try:
                        raise DeprecationWarning
                    except DeprecationWarning as _d:
                        d = _d
                        raise Exception  # noqa: B904
    except Exception as e:
        exc = e
    return (x, exc.__context__ is d, d.__context__ is c, c.__context__ is b, b.__context__ is a,
            a.__context__ is c)


def c_gc2x_stop_iteration_zip_longest(x):
    def pad_zip(*iterables, fill=None):
        iterators = [iter(it) for it in iterables]
        out = []
        while True:
            for it in iterators:
                try:
                    value = next(it)
                except StopIteration:
                    out.append(fill)
                    return out
                out.append(value)

    return x.cos(), tuple(pad_zip([1, 2, 3, 4], [10, 11, 12]))


# -- contextlib managers: made in one helper, used in another -------------------------------------------------
def c_gc2x_cm_default_dtype_switch(x):
    @contextlib.contextmanager
    def dtype_of(dtype):
        old = torch.get_default_dtype()
        try:
            torch.set_default_dtype(dtype)
            yield
        finally:
            torch.set_default_dtype(old)

    with dtype_of(torch.float64):
        y = torch.tensor([3.0, 4.0, 5.0])
    return x + y.to(x.dtype), y.dtype


def c_gc2x_cm_nonlocal_set_in_enter(x):
    z = 0
    k = 0

    def make():
        @contextlib.contextmanager
        def ctx(t):
            nonlocal k
            try:
                k = 100
                yield t.sin()
            finally:
                pass

        return ctx

    def run(ctx, t):
        nonlocal z
        with ctx(t) as y:
            z = k
            return y.cos()

    out = run(make(), x)
    return out, z, k


def c_gc2x_cm_finally_reads_nonlocal_set_before(x):
    z = 1
    k = 2

    def make():
        @contextlib.contextmanager
        def ctx(t):
            nonlocal k
            try:
                yield t.sin()
            finally:
                k = z

        return ctx

    def run(ctx, t):
        nonlocal z
        z = 100
        with ctx(t) as y:
            return y.cos()

    out = run(make(), x)
    return out, z, k


_GLOBAL_Z = 0
_GLOBAL_K = 0


def c_gc2x_cm_globals_written_in_enter_and_body(x):
    global _GLOBAL_Z, _GLOBAL_K
    _GLOBAL_Z, _GLOBAL_K = 0, 0

    def make():
        @contextlib.contextmanager
        def ctx(t):
            global _GLOBAL_K
            try:
                _GLOBAL_K = 100
                yield t.sin()
            finally:
                pass

        return ctx

    def run(ctx, t):
        global _GLOBAL_Z
        with ctx(t) as y:
            _GLOBAL_Z = _GLOBAL_K
            return y.cos()

    out = run(make(), x)
    return out, _GLOBAL_Z, _GLOBAL_K


def c_gc2x_cm_closure_over_tensor(x):
    def make(t):
        @contextlib.contextmanager
        def ctx():
            try:
                yield t.sin()
            finally:
                pass

        return ctx

    def run(ctx):
        with ctx() as y:
            return y.cos()

    return run(make(x))


def c_gc2x_cm_break_before_yield_side_effects(x):
    log = []

    @contextlib.contextmanager
    def ctx(t):
        y = t.tan()
        try:
            log.append(t.sin())
            print("break", file=_SINK)
            yield y
        finally:
            log.append(t.cos())

    y = x.sin()
    with ctx(x) as z:
        y = y + z.neg()
    return y + x.cos(), log


def c_gc2x_cm_break_in_finally_manual(x):
    log = []

    @contextlib.contextmanager
    def ctx(t):
        try:
            log.append(t)
            yield t.sin()
        finally:
            print("break", file=_SINK)
            log.append(t.cos())

    c = ctx(x)
    y = c.__enter__()
    c.__exit__(None, None, None)
    return y, log


def c_gc2x_cm_break_inside_enter_manual(x):
    @contextlib.contextmanager
    def ctx(t):
        try:
            print("break", file=_SINK)
            yield t + 1
        finally:
            pass

    c = ctx(x)
    y = c.__enter__()
    c.__exit__(None, None, None)
    return y


def c_gc2x_cm_break_after_enter_exit_in_finally(x):
    @contextlib.contextmanager
    def ctx(t):
        try:
            yield t + 1
        finally:
            pass

    c = ctx(x)
    try:
        y = c.__enter__()
        print("break", file=_SINK)
    finally:
        c.__exit__(None, None, None)
    return y * 2


def c_gc2x_cm_break_before_and_after_enter(x):
    @contextlib.contextmanager
    def ctx(t):
        try:
            yield t + 1
        finally:
            pass

    c = ctx(x)
    try:
        print("before", file=_SINK)
        y = c.__enter__()
        print("after", file=_SINK)
    finally:
        c.__exit__(None, None, None)
    return y.sin()


def c_gc2x_cm_redirect_stderr_then_tan(x):
    y = x.sin()
    with contextlib.redirect_stderr(sys.stdout):
        y = y + x.cos()
    return y.tan()


def c_gc2x_cm_suppress_value_error_tan(x):
    y = x.sin()
    with contextlib.suppress(ValueError):
        y = y + x.cos()
    return y.tan()


def c_gc2x_cm_plain_state_list(x):
    state = []

    @contextlib.contextmanager
    def woohoo():
        state.append(1)
        yield 42
        state.append(999)

    y = x.sum()
    with woohoo() as v:
        state.append(v)
        y = y + v
    return y, state


def c_gc2x_cm_finally_on_zero_division(x):
    state = []

    @contextlib.contextmanager
    def woohoo():
        state.append(1)
        try:
            yield 42
        finally:
            state.append(999)

    try:
        with woohoo() as v:
            state.append(v)
            raise ZeroDivisionError
    except ZeroDivisionError:
        state.append(0)
    return x.sum(), state


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
