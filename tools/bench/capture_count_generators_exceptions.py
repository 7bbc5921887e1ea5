"""The exception half of ``capture_count_generators.py``'s area, for ``capture_count.py --only generators``:
``try``/``except``/``finally``/``else``, re-raise, chaining, ``sys.exc_info()``, user exception classes,
exceptions raised by builtins, ``contextlib.suppress``, exceptions crossing a break and ``assert``.
"""

from __future__ import annotations

import contextlib
import io
import sys

import torch

_SINK = io.StringIO()


# ---- try / except / finally / else ----

def c_raise_caught(x):
    x = x.cos()
    try:
        x = x.sin()
        raise NotImplementedError("no")
    except (NotImplementedError, AttributeError):
        x = x.sigmoid()
    return x


def c_raise_select_handler(x):
    try:
        raise NotImplementedError("n")
    except AssertionError:
        x = x + 1
    except NotImplementedError as exc:
        x = x + len(exc.args)
    finally:
        x = x * 2
    return x


def c_try_else(x):
    try:
        x = x + 1
    except Exception:
        x = x - 1
    else:
        x = x * 3
    finally:
        x = x + 0.5
    return x


def c_raise_in_loop(x):
    for i in range(6):
        if i == 4:
            return x
        try:
            x = x + i
            raise ValueError(i)
        except ValueError as exc:
            x = x * exc.args[0]
    return x


def _thrower(t):
    raise LookupError("deep")


def c_raise_from_callee(x):
    try:
        x = x + 1
        _thrower(x)
        x = x * 100
    except LookupError:
        x = x - 1
    return x


def _reraiser(t):
    try:
        raise ValueError("inner")
    except ValueError:
        t = t + 1
        raise


def c_reraise_from_callee(x):
    try:
        _reraiser(x)
    except ValueError as exc:
        return x + 1, str(exc)


def c_nested_handlers(x):
    try:
        raise KeyError("a")
    except KeyError:
        try:
            raise IndexError("b")
        except IndexError as inner:
            x = x + 1
            ctx = type(inner.__context__).__name__
    return x, ctx


class _Failure(Exception):
    """A user exception carrying values."""

    def __init__(self, code, detail=None):
        super().__init__(code)
        self.code = code
        self.detail = detail


class _SpecialFailure(_Failure):
    pass


def c_user_exception_attrs(x):
    try:
        raise _SpecialFailure(3, detail="why")
    except ValueError:
        return x
    except _Failure as exc:
        return x * exc.code, exc.detail, exc.args, isinstance(exc, _SpecialFailure)


def c_user_exception_plain(x):
    class Local(Exception):
        pass

    try:
        raise Local(1, 2.0)
    except Local as exc:
        return x + exc.args[0] + exc.args[1]


def c_generator_exit_not_exception(x):
    try:
        raise GeneratorExit
    except Exception:
        return x.sin()
    except BaseException:
        return x.cos()


def c_raise_from_cause(x):
    try:
        try:
            {}["missing"]
        except KeyError as exc:
            raise ValueError("bad key") from exc
    except ValueError as err:
        return x + 1, type(err.__cause__).__name__, err.__suppress_context__


class _Mapping:
    """A mapping whose lookups re-raise KeyError without its context (as ``os.environ`` does)."""

    def __init__(self, d):
        self.d = d

    def __getitem__(self, key):
        try:
            return self.d[key]
        except KeyError:
            raise KeyError(key) from None


def _lookup(m, key, default=None):
    try:
        return m[key]
    except KeyError as err:
        return default, err.__suppress_context__, err.__cause__


_MAPPING = _Mapping({"a": 1})


def c_raise_from_none(x):
    return x.sin() + 1, _lookup(_MAPPING, "z")


def c_context_set_by_hand(x):
    err = ValueError("v")
    err.__context__ = TypeError("t")
    err.__cause__ = None
    return x * 2, type(err.__context__).__name__, err.__suppress_context__


def c_exc_info(x):
    before = sys.exc_info()[0]
    try:
        raise TypeError("t")
    except TypeError:
        kind, value, _ = sys.exc_info()
        inside = (kind.__name__, str(value))
    after = sys.exc_info()[0]
    return x + 1, before, inside, after


def c_exception_active_in_loop(x):
    names = []
    try:
        try:
            raise ZeroDivisionError
        except ZeroDivisionError:
            for kind in (KeyError, IndexError):
                try:
                    raise kind
                except kind as exc:
                    names.append(type(exc.__context__).__name__)
            raise
    except ZeroDivisionError:
        x = x + 1
    return x, names


def c_key_error(x, d):
    try:
        a = d["b"]
    except KeyError:
        a = 2
    return x * a


c_key_error.extra_args = lambda: ({"a": 1},)


def c_dict_pop_missing(x):
    d = {"a": 1}
    try:
        d.pop("b")
    except KeyError:
        return x.sin()
    else:
        return x.cos()


def c_index_error(x):
    items = [1, 2]
    try:
        v = items[5]
    except IndexError as exc:
        v = len(str(exc))
    return x + v


class _Holder:
    def __init__(self):
        self.a = 1


class _Lenient:
    def __init__(self):
        self._w = 2

    def __getattr__(self, name):
        if "_" + name in self.__dict__:
            return self.__dict__["_" + name]
        raise AttributeError(name)


class _Fallback(_Lenient):
    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return 30


_HOLDER, _LENIENT, _FALLBACK = _Holder(), _Lenient(), _Fallback()


def c_attribute_error(x):
    try:
        c = _HOLDER.b
    except AttributeError:
        c = 3
    return x * c, hasattr(_HOLDER, "b"), getattr(_HOLDER, "b", 7)


def c_getattr_fallback(x):
    return x * _LENIENT.w * _FALLBACK.w * _FALLBACK.other, hasattr(_LENIENT, "missing")


class _GuardedModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.full((3,), 2.0))

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == "scale_copy":
                return self.scale
            raise


_GUARDED_MODULE = _GuardedModule()


def c_module_getattr_except(x):
    with torch.no_grad():
        return x * _GUARDED_MODULE.scale * _GUARDED_MODULE.scale_copy


def c_block_stack_loop(x):
    table = {"c": 5}
    for name in ("a", "b", "c"):
        try:
            x = x * table[name]
        except KeyError:
            x = x + 1
    return x


def c_zero_division(x):
    try:
        ratio = 1 / 0
    except ZeroDivisionError as exc:
        ratio = len(exc.args)
    return x + ratio


def c_value_error_int(x):
    try:
        n = int("seven")
    except ValueError:
        n = 7
    return x + n


def c_stop_iteration_manual(x, a, b):
    iterators = [iter(a), iter(b)]
    out = []
    while True:
        for it in iterators:
            try:
                out.append(next(it))
            except StopIteration:
                return x + len(out), out


c_stop_iteration_manual.extra_args = lambda: ([1, 2, 3], [10, 20])


def c_suppress(x):
    with contextlib.suppress(KeyError, IndexError):
        x = x + 1
        [][3]
    with contextlib.suppress(ValueError):
        x = x * 2
    return x


def c_exception_across_break(x):
    try:
        x = x + 1
        print("break", file=_SINK)
        raise RuntimeError("after")
    except RuntimeError:
        x = x * 2
    return x


def c_assert_passes(x):
    z = 0
    try:
        raise ValueError
    except ValueError:
        z = 2
    assert z == 2, "handler"
    return x.sin() + z


def c_assert_fails_caught(x):
    try:
        assert x.shape[0] == 7, "bad shape"
    except AssertionError as exc:
        return x + 1, str(exc)
    return x


def c_finally_return_override(x):
    def chooser(t):
        try:
            return t + 1
        finally:
            t = t * 100

    return chooser(x)


def c_raise_class_not_instance(x):
    try:
        raise KeyError
    except LookupError as exc:
        return x + 1, type(exc).__name__, exc.args


def c_exception_str_repr(x):
    err = ValueError("bad", 3)
    return x + len(err.args), str(err), repr(err), str(KeyError("k"))


def c_with_exception_handled_by_cm(x):
    @contextlib.contextmanager
    def converting():
        try:
            yield
        except BaseException:
            raise ValueError  # noqa: B904

    try:
        with converting():
            raise IndexError
    except ValueError as exc:
        return x + 1, type(exc.__context__).__name__
    except IndexError:
        return x - 1, None


def c_exception_group_like_loop(x):
    errors = []
    for k in range(3):
        try:
            if k % 2:
                raise ValueError(k)
            x = x + k
        except ValueError as exc:
            errors.append(exc)
    return x, [e.args[0] for e in errors]


CONSTRUCTS = [c_raise_caught, c_raise_select_handler, c_try_else, c_raise_in_loop, c_raise_from_callee,
              c_reraise_from_callee, c_nested_handlers, c_user_exception_attrs, c_user_exception_plain,
              c_generator_exit_not_exception, c_raise_from_cause, c_raise_from_none, c_context_set_by_hand,
              c_exc_info, c_exception_active_in_loop, c_key_error, c_dict_pop_missing, c_index_error,
              c_attribute_error, c_getattr_fallback, c_module_getattr_except, c_block_stack_loop,
              c_zero_division, c_value_error_int, c_stop_iteration_manual, c_suppress,
              c_exception_across_break, c_assert_passes, c_assert_fails_caught, c_finally_return_override,
              c_raise_class_not_instance, c_exception_str_repr, c_with_exception_handled_by_cm,
              c_exception_group_like_loop]
