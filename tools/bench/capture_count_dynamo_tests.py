"""Programs modelled on PyTorch's test/dynamo/ test files (generators, exceptions, context managers, dicts,
lists, sets), for ``capture_count.py --only dynamo_tests``: the kinds of code those tests exercise that the
other case files do not, each written afresh as a small program over one tensor.
"""

from __future__ import annotations

import itertools

import torch


# -- generators: close, throw, send through yield from, finally on close -------------------------------
def c_gen_close_finally_order(x):
    log, z = [], 0

    def steps(t):
        try:
            log.append(1)
            yield t.sin()
            log.append(2)
            yield t.cos()
        finally:
            log.append(z)

    gen = steps(x)
    first = next(gen)
    z = -5
    gen.close()
    log.append(len(log))
    return first, log


def c_gen_close_catches_exit_returns(x):
    n = 0

    def steps(t):
        nonlocal n
        try:
            n += 1
            yield t.sin()
            yield t.cos()
        except GeneratorExit:
            n += 10
            return t.tan()
        finally:
            n += 100

    gen = steps(x)
    first = next(gen)
    return first, gen.close(), n


def c_gen_close_reraises_exit(x):
    log, z = [], 0

    def steps(t):
        nonlocal z
        try:
            log.append(1)
            yield t.sin()
            yield t.cos()
        except GeneratorExit:
            log.append(z)
            z = -1
            raise
        finally:
            log.append(z)

    gen = steps(x)
    first = next(gen)
    z = -7
    gen.close()
    log.append(9)
    return first, log


def c_gen_close_yields_again(x):
    def steps(t):
        try:
            yield t.sin()
        except GeneratorExit:
            yield t.tan()

    gen = steps(x)
    first = next(gen)
    try:
        gen.close()
    except RuntimeError as e:
        return first + 1, str(e)
    return first


def c_gen_close_twice(x):
    n = 0

    def steps(t):
        nonlocal n
        try:
            n += 1
            yield t.sin()
        finally:
            n += 1

    gen = steps(x)
    first = next(gen)
    gen.close()
    return first, gen.close(), n


def c_gen_next_after_close(x):
    def steps(t):
        yield t.sin()

    gen = steps(x)
    gen.close()
    return next(gen, x + 1)


def c_gen_close_after_raise(x):
    def steps(t):
        raise ValueError("early")
        yield t

    gen = steps(x)
    try:
        next(gen)
    except ValueError:
        pass
    return x.sin(), gen.close()


def c_gen_close_through_subgen(x):
    log = []

    def inner(t):
        log.append("in")
        yield t.sin()
        log.append("late")
        yield t.cos()

    def outer(t):
        yield from inner(t)
        try:
            yield t.tan()
        finally:
            log.append("outer-finally")

    gen = outer(x)
    first = next(gen)
    gen.close()
    return first, log


def c_gen_left_open_finally(x):
    log = []

    def steps(t):
        try:
            yield t.sin()
            yield t.cos()
        finally:
            log.append("closed")

    gen = steps(x)
    first = next(gen)
    del gen
    return first, log


def c_gen_throw_into_finally(x):
    log = []

    def steps(t):
        try:
            try:
                yield t.sin()
            finally:
                log.append("inner")
        except KeyError:
            log.append("caught")
            yield t.cos()

    gen = steps(x)
    a = next(gen)
    b = gen.throw(KeyError("k"))
    return a + b, log


def c_gen_throw_instance_with_args(x):
    def steps(t):
        try:
            yield t.sin()
        except ValueError as e:
            yield t * len(e.args[0])

    gen = steps(x)
    next(gen)
    return gen.throw(ValueError("four"))


def c_gen_throw_unstarted(x):
    def steps(t):
        yield t.sin()

    gen = steps(x)
    try:
        gen.throw(IndexError)
    except IndexError:
        return x + 1, next(gen, None)
    return x


def c_gen_send_through_yield_from(x):
    def inner():
        a = yield 10
        b = yield a + 1
        return b * 100

    def outer():
        r = yield from inner()
        yield r

    gen = outer()
    return [gen.send(None), gen.send(7), gen.send(3)], x.sin()


def c_gen_nested_yield_from_returns(x):
    def leaf(t):
        yield t.sin()
        return t.cos()

    def mid(t):
        r = yield from leaf(t)
        return r + 1

    def top(t):
        r = yield from mid(t)
        yield r

    return list(top(x))


def c_gen_yield_from_list_returns_none(x):
    def outer(t):
        r = yield from [t.sin(), t.cos()]
        yield r

    return list(outer(x))


def c_gen_pep479_raised_stop(x):
    def steps(t):
        yield t + 1
        raise StopIteration("done")

    gen = steps(x)
    next(gen)
    try:
        next(gen)
    except RuntimeError as e:
        return x + 1, str(e)
    except StopIteration:
        return x + 2
    return x


def c_gen_send_after_exhausted(x):
    def double():
        v = yield
        yield v * 2

    gen = double()
    next(gen)
    a = gen.send(x)
    try:
        gen.send(x)
    except StopIteration:
        return a + 1
    return a


def c_gen_in_product_with_perms(x):
    def sums():
        for perm in itertools.permutations((0, 1, 2)):
            yield sum(perm)

    s = 0
    for b, _ in itertools.product(sums(), itertools.permutations((4, 5))):
        s += b
    return x + s


def c_gen_tee_buffer(x):
    a, b = itertools.tee(iter(range(50)))
    list(a)
    return x + next(b)


def c_gen_contains_partial(x):
    def steps():
        yield 1
        yield 2
        yield 3

    g = steps()
    found = 2 in g
    return x + found + next(g), 5 in steps()


def c_gen_expression_of_arg_raises(x):
    try:
        gen = (v for v in 1)
    except TypeError as e:
        return x + 1, str(e)
    return gen


def c_gen_returned_nonlocal_mutation(x):
    n = 0

    def steps(t):
        nonlocal n
        for j in range(3):
            n += 1
            yield t + j

    gen = steps(x)
    return list(gen), n, x.sin()


def c_gen_cond_between_steps(x):
    def steps(t):
        yield t.sin()
        yield t.cos()

    gen = steps(x)
    a = next(gen)
    b = torch.cond(x.sum() > 0, lambda v: v + 1, lambda v: v - 1, (x,))
    for v in gen:
        a = a + v
    return a + b


def c_gen_finally_mutates_new_object(x):
    marker = []

    class Holder:
        pass

    def steps(t):
        h = Holder()
        h.data = marker
        try:
            yield t.sin()
        finally:
            h.data.append(1)

    g = steps(x)
    first = next(g)
    g.close()
    return first, marker


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


def c_exc_generator_exit_not_exception(x):
    try:
        raise GeneratorExit
    except Exception:
        return x.sin()
    except BaseException:
        return x.cos()


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
