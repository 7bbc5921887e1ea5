"""Generators and exceptions, one small program each, for ``capture_count.py``: generators made inside
the compiled function (``next``/``send``/``throw``/``close``, ``yield from``, generator expressions,
generators handed to builtins, early exit from a ``for``, a break inside a generator), ``try``/``except``/
``finally``/``else`` with ``raise``, re-raise, chaining (``__context__``, ``__cause__``, ``from None``),
``sys.exc_info()``, user exception classes, exceptions raised by builtins, ``contextlib.suppress``,
exceptions crossing a break and ``assert``. The kind of program Dynamo's test_generator and
test_exceptions (and the CPython suites adapted to Dynamo) exercise, written afresh.
"""

from __future__ import annotations

import collections
import contextlib
import io
import itertools
import sys

import torch

_SINK = io.StringIO()


# ---- generators made inside the compiled function ----

def _counting(t):
    yield t + 1
    yield t + 2
    yield t + 3


def c_gen_next_three(x):
    gen = _counting(x)
    return next(gen) + next(gen) + next(gen)


def _naturals():
    n = 0
    while True:
        yield n
        n += 1


def c_gen_infinite_zip(x):
    return [x * i + j for i, j in zip(range(3), _naturals())]


def c_gen_for_early_exit(x):
    total = x
    for n in _naturals():
        if n > 4:
            break
        total = total + n
    return total


def c_gen_into_containers(x):
    def pairs(t):
        yield "a", t + 1
        yield "b", t * 2

    as_dict = dict(pairs(x))
    as_list = list(pairs(x))
    as_tuple = tuple(v for _, v in pairs(x))
    return as_dict["a"] + as_list[1][1] + as_tuple[0], sorted(as_dict)


def c_gen_into_reductions(x):
    values = [1.0, 2.0, 3.0]
    total = sum(v * 2 for v in values)
    some = any(v > 2 for v in values)
    every = all(v > 0 for v in values)
    biggest = max(v for v in values if v < 3)
    return x * total + some + every + biggest


def c_genexpr_over_tensor_list(x):
    parts = [x, x * 2, x * 3]
    return sum(p.sum() for p in parts), set(i % 2 for i in range(5))


def _sub(t):
    yield t + 1
    yield t + 2
    return t * 10


def c_yield_from_value(x):
    def outer(t):
        got = yield from _sub(t)
        yield got

    return list(outer(x))


def c_yield_from_list(x):
    def outer(t):
        yield from [t, t + 1]
        yield from (t * k for k in range(2))

    return list(outer(x))


def c_gen_send(x):
    def doubler():
        received = yield
        while True:
            received = yield received * 2

    gen = doubler()
    next(gen)
    first = gen.send(x)
    second = gen.send(x + 1)
    return first + second


def c_gen_send_running_total(x):
    def averager():
        total, count = 0.0, 0
        mean = None
        while True:
            value = yield mean
            total += value
            count += 1
            mean = total / count

    avg = averager()
    avg.send(None)
    avg.send(2.0)
    return x * avg.send(4.0)


def c_gen_throw_caught(x):
    def resilient(t):
        while True:
            try:
                yield t.sin()
            except ValueError:
                yield t.cos()

    gen = resilient(x)
    a = next(gen)
    b = gen.throw(ValueError("again"))
    return a + b


def c_gen_throw_uncaught(x):
    log = []

    def fragile(t):
        try:
            yield t + 1
        finally:
            log.append("finally")

    gen = fragile(x)
    out = next(gen)
    try:
        gen.throw(KeyError("k"))
    except KeyError as exc:
        out = out + len(exc.args)
    return out, log


def c_gen_throw_into_subgen(x):
    log = []

    def inner(t):
        try:
            yield t
        except IndexError:
            log.append("inner")
            yield t * 3

    def outer(t):
        yield from inner(t)

    gen = outer(x)
    next(gen)
    return gen.throw(IndexError), log


def c_gen_close_runs_finally(x):
    log = []

    def guarded(t):
        try:
            yield t + 1
            yield t + 2
        finally:
            log.append(len(log))

    gen = guarded(x)
    out = next(gen)
    gen.close()
    gen.close()
    return out, log


def c_gen_close_return_value(x):
    def catching(t):
        try:
            yield t
        except GeneratorExit:
            return
    gen = catching(x)
    out = next(gen)
    closed = gen.close()
    return out * 2, closed


def c_gen_next_default(x):
    gen = _counting(x)
    items = [next(gen), next(gen), next(gen), next(gen, None)]
    return items[0] + items[2], items[3] is None


def c_gen_exhausted_stop(x):
    def once(t):
        yield t
        return "done"

    gen = once(x)
    out = next(gen)
    try:
        next(gen)
    except StopIteration as stop:
        return out + 1, stop.value


def c_gen_nonlocal_side_effect(x):
    count = 0

    def ticking(t):
        nonlocal count
        for k in range(3):
            count += 1
            yield t * k

    total = sum(ticking(x))
    return total + count, count


def c_gen_list_mutation(x):
    seen = []

    def recording(t):
        for k in range(3):
            seen.append(k)
            yield t + k

    out = [v for v in recording(x) if v.sum() > 0]
    return len(out), seen


def c_gen_returned(x):
    gen = _counting(x)
    next(gen)
    return x.sin(), list(gen)


def c_gen_break_inside(x):
    def noisy(t):
        yield t + 1
        print("inside", file=_SINK)
        yield t + 2

    gen = noisy(x)
    return next(gen) + next(gen)


def c_gen_break_outside(x):
    gen = _counting(x)
    a = next(gen)
    print("between", file=_SINK)
    b = next(gen)
    return a + b


def c_gen_in_operator(x):
    gen = _naturals()
    found = 3 in gen
    return x + next(gen), found


def c_gen_enumerate(x):
    out = x
    for i, v in enumerate(_counting(x)):
        out = out + i * v
    return out


def c_list_extend_genexpr(x):
    values = [1]
    values.extend(values[-1] + k for k in range(3))
    dq = collections.deque([0])
    dq.extendleft(k * 2 for k in range(2))
    return x + sum(values) + sum(dq), values, list(dq)


def c_gen_try_except_yields(x):
    def stepper():
        try:
            yield 1
            try:
                yield 2
                raise ZeroDivisionError
            except ZeroDivisionError:
                yield 3
                raise
        except ZeroDivisionError:
            yield 4
        finally:
            yield 5

    return x * sum(stepper()), list(stepper())


def c_gen_pep479_inner_next(x):
    def empty():
        return
        yield

    def passing():
        inner = empty()
        yield next(inner)

    try:
        next(passing())
    except RuntimeError as err:
        return x + 1, type(err.__cause__).__name__


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


CONSTRUCTS = [c_gen_next_three, c_gen_infinite_zip, c_gen_for_early_exit, c_gen_into_containers,
              c_gen_into_reductions, c_genexpr_over_tensor_list, c_yield_from_value, c_yield_from_list,
              c_gen_send, c_gen_send_running_total, c_gen_throw_caught, c_gen_throw_uncaught,
              c_gen_throw_into_subgen, c_gen_close_runs_finally, c_gen_close_return_value, c_gen_next_default,
              c_gen_exhausted_stop, c_gen_nonlocal_side_effect, c_gen_list_mutation, c_gen_returned,
              c_gen_break_inside, c_gen_break_outside, c_gen_in_operator, c_gen_enumerate,
              c_list_extend_genexpr, c_gen_try_except_yields, c_gen_pep479_inner_next,
              c_raise_caught, c_raise_select_handler, c_try_else, c_raise_in_loop, c_raise_from_callee,
              c_reraise_from_callee, c_nested_handlers, c_user_exception_attrs, c_user_exception_plain,
              c_generator_exit_not_exception, c_raise_from_cause, c_raise_from_none, c_context_set_by_hand,
              c_exc_info, c_exception_active_in_loop, c_key_error, c_dict_pop_missing, c_index_error,
              c_attribute_error, c_getattr_fallback, c_block_stack_loop, c_zero_division, c_value_error_int,
              c_stop_iteration_manual, c_suppress, c_exception_across_break, c_assert_passes,
              c_assert_fails_caught, c_finally_return_override, c_raise_class_not_instance,
              c_exception_str_repr, c_with_exception_handled_by_cm, c_exception_group_like_loop]


# ---- more shapes from the reference files ----

def c_raise_inside_no_grad(x):
    x = x.cos()
    try:
        with torch.no_grad():
            x = x.sin()
            raise NotImplementedError("n")
    except NotImplementedError:
        x = x.sigmoid()
    return x, torch.is_grad_enabled()


def _maybe_raise(t, k=None):
    if k:
        raise TypeError("error")
    return t.sin()


def c_raise_with_kwargs_then_loop(x):
    d = {"a": x, "b": x * 2}
    try:
        _maybe_raise(x, k=True)
    except Exception:
        y = 0
        for _, v in d.items():
            y += v.sum()
    return y


def c_gen_send_to_unstarted(x):
    gen = _counting(x)
    try:
        gen.send(1)
    except TypeError as exc:
        return x + 1, str(exc)


def _yields_then_breaks(t):
    yield t.sin()
    print("inside", file=_SINK)
    yield t.cos()


def _two_from(t):
    gen = _yields_then_breaks(t)
    return next(gen), next(gen)


def c_gen_break_in_helper(x):
    a, b = _two_from(x)
    return a + b


def c_gen_catch_exit_return(x):
    log = []

    def whoo(t):
        try:
            log.append(1)
            yield t.sin()
            yield t.cos()
        except GeneratorExit:
            log.append(10)
            raise
        finally:
            log.append(100)

    gen = whoo(x)
    a = next(gen)
    gen.close()
    return a, log


def c_gen_throw_return_in_finally(x):
    def whoo():
        try:
            yield 1
        except ValueError:
            return 2
        finally:
            return 3  # noqa: B012

    gen = whoo()
    next(gen)
    try:
        gen.throw(ValueError)
    except StopIteration as stop:
        return x + stop.args[0]


def c_gen_product(x):
    def pick():
        for perm in ((0, 1), (1, 0)):
            yield sum(perm)

    s = 0
    for a, b in itertools.product(pick(), (4, 5)):
        s += a * b
    return x + s


def c_reraise_after_handling_another(x):
    try:
        try:
            1 / 0  # noqa: B018
        except ZeroDivisionError:
            try:
                raise ValueError
            except ValueError:
                x = x + 1
            raise
    except ZeroDivisionError as exc:
        return x, type(exc.__context__).__name__


CONSTRUCTS += [c_module_getattr_except, c_raise_inside_no_grad, c_raise_with_kwargs_then_loop,
               c_gen_send_to_unstarted, c_gen_break_in_helper, c_gen_catch_exit_return,
               c_gen_throw_return_in_finally, c_gen_product, c_reraise_after_handling_another]
