"""Exceptions, generators and context managers after PyTorch's test/dynamo/test_exceptions.py,
test_generator.py and test_ctx_manager.py (round exc15), for ``capture_count.py --only exc15``: ``dict.pop``
misses, ``hasattr`` over raising ``__getattr__``, module ``__getattr__`` fallbacks, context chains built in
loops, exceptions across keyword calls, generator throw/close protocols and suppressing context managers, each
written afresh over one tensor.
"""

from __future__ import annotations

import contextlib
import sys

import torch


class _Err(Exception):
    pass


class _ErrArgs(Exception):
    def __init__(self, a, b=None):
        super().__init__(a)
        self.a = a
        self.b = b


# -- exceptions ------------------------------------------------------------------------------------------
def c_exc15_dict_pop_missing_else(x):
    def pick(dt, t):
        try:
            dt.pop("k")
        except KeyError:
            return t.sin()
        else:
            return t.cos()

    return pick({"j": 1}, x), pick({"k": 2, "j": 1}, x)


def c_exc15_dict_pop_default_then_missing(x):
    dt = {"a": 1}
    got = dt.pop("z", 7)
    try:
        dt.pop("z")
        miss = False
    except KeyError as e:
        miss = e.args[0] == "z"
    return x * got, miss, len(dt)


def c_exc15_hasattr_getattr_raises(x):
    class Probe:
        def __init__(self):
            self.a = 4

        def __getattr__(self, name):
            if name != "a":
                raise AttributeError(name)
            return self.__dict__["a"]

    p = Probe()
    return (x.cos() if hasattr(p, "zz") else x.sin()), hasattr(p, "a")


def c_exc15_getattr_chain_super_fallback(x):
    class Base:
        def __init__(self):
            self._k = 2

        def __getattr__(self, name):
            key = "_" + name
            if key in self.__dict__:
                return self.__dict__[key]
            raise AttributeError(name)

    class Child(Base):
        def __init__(self):
            super().__init__()
            self.m = 3

        def __getattr__(self, name):
            try:
                return super().__getattr__(name)
            except AttributeError:
                return 5

    c = Child()
    return x * c.m * c.k * c.nothing


def c_exc15_module_getattr_fallback(x):
    class Mod(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.full((3,), 2.0))

        def __getattr__(self, name):
            try:
                return super().__getattr__(name)
            except AttributeError:
                if name == "w_alias":
                    return self.w
                raise

        def forward(self, t):
            return t * self.w * self.w_alias

    return Mod()(x).detach()


def c_exc15_module_getattr_reraises(x):
    class Mod(torch.nn.Module):
        def __getattr__(self, name):
            try:
                return super().__getattr__(name)
            except AttributeError:
                if name == "alias":
                    return 3
                raise

    m = Mod()
    try:
        m.unknown  # noqa: B018
        seen = 0
    except AttributeError:
        seen = 1
    return x * m.alias + seen


def c_exc15_context_in_loop_of_classes(x):
    flags = []
    try:
        try:
            1 / 0  # noqa: B018
        except ZeroDivisionError:
            for kind in (KeyError, IndexError, _Err):
                try:
                    raise kind
                except kind as e:
                    flags.append(isinstance(e.__context__, ZeroDivisionError))
            raise
    except ZeroDivisionError:
        flags.append(True)
    return x + sum(flags), tuple(flags)


def c_exc15_reraise_after_inner_handled(x):
    def body():
        try:
            {}["q"]
        except KeyError:
            try:
                raise ValueError
            except ValueError:
                pass
            raise

    try:
        body()
        kind = 0
    except KeyError:
        kind = 1
    except ValueError:
        kind = 2
    return x * kind, sys.exc_info()[0] is None


def c_exc15_finally_raise_context(x):
    try:
        try:
            first = TypeError(1)
            raise first
        finally:
            second = ValueError(2)
            raise second
    except Exception as e:
        got = e
    return x + 1, got is second, got.__context__ is first


def c_exc15_except_then_finally_chain(x):
    try:
        try:
            a = KeyError(1)
            raise a
        except Exception:
            b = ValueError(2)
            raise b  # noqa: B904
        finally:
            c = OSError(3)
            raise c
    except Exception as e:
        got = e
    return x * 2, got is c, got.__context__ is b, got.__context__.__context__ is a


def c_exc15_else_then_finally_chain(x):
    try:
        try:
            y = x + 1
        except Exception:
            y = x
        else:
            v = ValueError(1)
            raise v
        finally:
            o = OSError(2)
            raise o
    except Exception as e:
        got = e
    return y, got is o, got.__context__ is v


def c_exc15_raise_outer_no_cycle(x):
    try:
        try:
            raise KeyError
        except KeyError as a_:
            a = a_
            try:
                raise IndexError
            except IndexError as b_:
                b = b_
                try:
                    raise TypeError
                except TypeError as c_:
                    c = c_
                    raise a  # noqa: B904
    except KeyError as e:
        got = e
    return x + 3, got is a, a.__context__ is c, c.__context__ is b, b.__context__ is None


def c_exc15_self_context_cycle(x):
    def cyc():
        try:
            raise ValueError(1)
        except ValueError as ex:
            ex.__context__ = ex
            raise TypeError(2)  # noqa: B904

    try:
        cyc()
    except Exception as e:
        got = e
    inner = got.__context__
    return x - 1, type(got).__name__, inner.__context__ is inner


def c_exc15_longer_cycle(x):
    try:
        try:
            raise KeyError
        except KeyError as a_:
            a = a_
            try:
                raise IndexError
            except IndexError as b_:
                b = b_
                a.__context__ = b
                try:
                    raise TypeError
                except TypeError:
                    e = RuntimeError()
                    raise e  # noqa: B904
    except RuntimeError as r:
        got = r
    return x * 3, got is e, type(got.__context__).__name__, b.__context__ is a, a.__context__ is b


def c_exc15_custom_args_kwargs(x):
    try:
        raise _ErrArgs(2, b=3)
    except ValueError:
        z = 0
    except _ErrArgs as e:
        z = e.a * 10 + e.b
    return x + z


def c_exc15_custom_args_tuple(x):
    class Local(Exception):
        pass

    try:
        raise Local(1, 2.5, "s")
    except Local as e:
        out = x.sin() + e.args[0] + e.args[1]
        n = len(e.args)
    return out, n


def c_exc15_generator_exit_base(x):
    try:
        raise GeneratorExit
    except Exception:
        return x.sin()
    except BaseException as e:
        return x.cos() + isinstance(e, GeneratorExit)


def c_exc15_keyword_call_raises_loop_items(x):
    def g(t, flag=None):
        if flag:
            raise TypeError("bad")
        return t.sin()

    d = {"a": x, "b": x * 2}
    try:
        y = g(x, flag=True)
    except Exception:
        y = 0
        for _, v in d.items():
            y = y + v.sum()
    return y


def c_exc15_manual_zip_longest(x):
    def longest(*its, fill=None):
        iters = [iter(i) for i in its]
        out = []
        while True:
            for it in iters:
                try:
                    v = next(it)
                except StopIteration:
                    out.append(fill)
                    return out
                out.append(v)

    return x.cos(), tuple(longest([1, 2, 3], [4, 5], fill=-1))


def c_exc15_exception_tuple_variable(x):
    kinds = (KeyError, IndexError)
    hits = 0
    for i in range(3):
        try:
            if i == 0:
                raise KeyError
            if i == 1:
                [][1]
            raise ValueError
        except kinds:
            hits += 1
        except ValueError:
            hits += 10
    return x + hits


def c_exc15_multi_base_exception(x):
    class Both(KeyError, ValueError):
        pass

    try:
        raise Both("k")
    except ValueError as e:
        out = x + isinstance(e, KeyError)
    return out


def c_exc15_no_grad_restored_after_raise(x):
    t = x.clone().requires_grad_(True)
    try:
        with torch.no_grad():
            y = t * 2
            raise NotImplementedError
    except NotImplementedError:
        z = t * 3
    return y.requires_grad, z.requires_grad, torch.is_grad_enabled(), z.detach()


def c_exc15_raise_from_none_mapping(x):
    class Env:
        def __init__(self, d):
            self._d = d

        def __getitem__(self, k):
            try:
                return self._d[k]
            except KeyError:
                raise KeyError(k) from None

    def get(m, k, default=None):
        try:
            return m[k]
        except KeyError as e:
            return (default, e.__suppress_context__, e.__cause__ is None)

    return x.sin(), get(Env({"a": 1}), "b", 9), get(Env({"a": 1}), "a")


# -- generators --------------------------------------------------------------------------------------------
def c_exc15_gen_throw_handled_yields(x):
    def gen():
        try:
            yield 1
        except ValueError:
            yield 2
        yield 3

    g = gen()
    a = next(g)
    b = g.throw(ValueError)
    c = next(g)
    return x * (a + b + c)


def c_exc15_gen_throw_converts(x):
    def gen():
        try:
            yield 1
        except ValueError:
            try:
                raise TypeError
            finally:
                pass

    g = gen()
    next(g)
    try:
        g.throw(ValueError)
        r = 0
    except TypeError as e:
        r = 1 + isinstance(e.__context__, ValueError)
    return x + r


def c_exc15_gen_close_runs_finally(x):
    log = []

    def gen(t):
        try:
            yield t + 1
            yield t + 2
        finally:
            log.append("closed")

    g = gen(x)
    first = next(g)
    g.close()
    return first, tuple(log)


def c_exc15_gen_return_value_stopiteration(x):
    def gen(t):
        yield t
        return t * 5

    g = gen(x)
    next(g)
    try:
        next(g)
        val = None
    except StopIteration as e:
        val = e.value
    return val


def c_exc15_yield_from_throw_delegates(x):
    def inner():
        try:
            yield 1
        except KeyError:
            yield 10

    def outer():
        r = yield from inner()
        yield 100
        return r

    g = outer()
    a = next(g)
    b = g.throw(KeyError)
    c = next(g)
    return x + a + b + c


# -- context managers ---------------------------------------------------------------------------------------
def c_exc15_class_cm_suppresses_custom(x):
    class Swallow:
        def __enter__(self):
            return self

        def __exit__(self, typ, val, tb):
            self.seen = typ
            return typ is not None and issubclass(typ, _Err)

    s = Swallow()
    with s:
        x = x + 1
        raise _Err
    return x, s.seen is _Err


def c_exc15_cm_exit_raises_replaces(x):
    class Replacing:
        def __enter__(self):
            return None

        def __exit__(self, typ, val, tb):
            if typ is KeyError:
                raise ValueError("replaced") from val
            return False

    try:
        with Replacing():
            raise KeyError
    except ValueError as e:
        return x * 2, isinstance(e.__cause__, KeyError), isinstance(e.__context__, KeyError)


def c_exc15_exitstack_callbacks_on_error(x):
    order = []
    try:
        with contextlib.ExitStack() as stack:
            stack.callback(order.append, 1)
            stack.callback(order.append, 2)
            raise IndexError
    except IndexError:
        order.append(3)
    return x + len(order), tuple(order)


def c_exc15_suppress_then_continue_loop(x):
    acc = x
    for i in range(4):
        with contextlib.suppress(ZeroDivisionError):
            acc = acc + 1 / (i - 2)
    return acc


def c_exc15_contextmanager_handles_and_logs(x):
    log = []

    @contextlib.contextmanager
    def guard():
        try:
            yield
        except KeyError as e:
            log.append(e.args[0])

    with guard():
        x = x.sin()
        raise KeyError("w")
    with guard():
        x = x.cos()
    return x, tuple(log)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
