"""Generators and exceptions modelled on PyTorch's test/dynamo/test_generator.py, for ``capture_count.py --only
dynamo_tests_genexc3``: ``throw`` of ``StopIteration`` into a delegating generator (what 3.12's CLEANUP_THROW
does), PEP 479 conversions and the exception state they leave, return values of ``except`` and ``finally`` blocks
seen in the StopIteration, and ``close`` with handlers, ``finally`` blocks and late nonlocal reads. Its parts:
``_gens`` (breaks inside and around generators, generators returned or drained), ``_ctx`` (test_exceptions.py's
exception state and chains, test_ctx_manager.py's managers) and ``_edges`` (edges of both protocols). Each is
written afresh over one tensor.
"""

from __future__ import annotations

import sys


# -- throw(StopIteration) into yield from -------------------------------------------------------------------
def _catching_leaf():
    try:
        yield 10
        yield 20
    except StopIteration:
        return 77


def c_gx3_throw_stop_into_subgen_caught(x):
    def outer():
        yield from _catching_leaf()
        yield 30

    g = outer()
    next(g)
    got = 0
    try:
        got = g.throw(StopIteration("halt"))
    except RuntimeError:
        got = -1
    return x + got


def c_gx3_throw_stop_subclass_into_subgen(x):
    class Halt(StopIteration):
        pass

    def outer():
        yield from _catching_leaf()
        yield 31

    g = outer()
    next(g)
    try:
        got = g.throw(Halt("h"))
    except RuntimeError:
        got = -1
    return x * got


def c_gx3_throw_stop_subgen_value_is_result(x):
    def outer():
        r = yield from _catching_leaf()
        yield r

    g = outer()
    next(g)
    return x + g.throw(StopIteration("s"))


def c_gx3_throw_empty_stop_becomes_runtime_error(x):
    def leaf():
        yield 1
        yield 2

    def outer():
        yield from leaf()
        yield 3

    g = outer()
    next(g)
    try:
        g.throw(StopIteration())
    except RuntimeError as e:
        return x.cos(), type(e.__cause__).__name__
    return x.sin(), None


# -- PEP 479 ------------------------------------------------------------------------------------------------
def c_gx3_pep479_body_raise_message(x):
    def gen():
        yield x + 1
        raise StopIteration("boom")

    g = gen()
    first = next(g)
    try:
        next(g)
    except RuntimeError as e:
        return first, str(e)
    except StopIteration:
        return first, "stop"
    return first, ""


def c_gx3_pep479_before_first_yield(x):
    def gen():
        raise StopIteration
        yield

    try:
        next(gen())
    except RuntimeError as e:
        return x.sin(), "raised StopIteration" in str(e)
    return x.cos(), False


def c_gx3_pep479_inner_next_leaks(x):
    def inner():
        yield x + 1

    def outer():
        it = inner()
        while True:
            yield next(it)

    g = outer()
    a = next(g)
    try:
        next(g)
    except RuntimeError:
        return a + 1.0
    except StopIteration:
        return a + 2.0
    return a


def c_gx3_pep479_then_bare_raise(x):
    def gen():
        yield 1
        raise StopIteration

    g = gen()
    next(g)
    try:
        next(g)
    except RuntimeError:
        pass
    try:
        raise
    except RuntimeError as e:
        return x + 1, str(e)


def c_gx3_pep479_exc_info_after(x):
    def gen():
        yield 1
        raise StopIteration

    g = gen()
    next(g)
    try:
        next(g)
    except RuntimeError:
        inside = sys.exc_info()[0].__name__
    return x + 1, inside, sys.exc_info()[0]


# -- return values in except/finally seen by throw ------------------------------------------------------------
def c_gx3_finally_return_const_wins(x):
    def gen():
        try:
            yield 1
        except ValueError:
            return 2
        finally:
            return 3  # noqa: B012

    g = gen()
    next(g)
    try:
        g.throw(ValueError)
    except StopIteration as e:
        return x + e.args[0], e.value
    return x, None


def c_gx3_finally_return_object_wins(x):
    class Box:
        def __init__(self, v):
            self.v = v

    def gen():
        try:
            yield 1
        except ValueError:
            return Box(2)
        finally:
            return Box(3)  # noqa: B012

    g = gen()
    next(g)
    try:
        g.throw(ValueError)
    except StopIteration as e:
        return x * e.args[0].v
    return x


def c_gx3_finally_bare_return_no_args(x):
    def gen():
        try:
            yield 1
        except ValueError:
            return 2
        finally:
            return  # noqa: B012

    g = gen()
    next(g)
    try:
        g.throw(ValueError)
    except StopIteration as e:
        return x + len(e.args), e.value
    return x, 0


def c_gx3_throw_handled_no_yield_stop_args(x):
    z = []

    def gen():
        try:
            z.append(1)
            yield x.sin()
        except ValueError:
            z.append(10)
        finally:
            z.append(100)

    g = gen()
    a = next(g)
    try:
        g.throw(ValueError)
    except StopIteration as e:
        return a, len(e.args), z
    return x, -1, z


def c_gx3_throw_nested_finally_totals(x):
    z = 0

    def gen():
        nonlocal z
        try:
            try:
                yield 1
            except ValueError:
                yield 2
            finally:
                z += 2
        except ValueError:
            z += 33
            yield 4
        finally:
            z += 1
        z += 10

    g = gen()
    next(g)
    got = g.throw(ValueError)
    return x.sin() + got, z


def c_gx3_throw_second_except_then_finally(x):
    z = 0

    def gen():
        nonlocal z
        try:
            z += 1
            yield x.sin()
        except ValueError:
            z += 10
            yield x.cos()
        except RuntimeError:
            z += 100
            yield x.tan()
        finally:
            z += 1000
        z += 10_000

    g = gen()
    a = next(g)
    b = g.throw(RuntimeError)
    return a + b, z


def c_gx3_throw_converted_from(x):
    def gen():
        try:
            yield x.sin()
        except ValueError as e:
            raise KeyError("k") from e

    g = gen()
    next(g)
    try:
        g.throw(ValueError("v"))
    except KeyError as e:
        return x + 1, type(e.__cause__).__name__, e.__suppress_context__
    return x, None, None


def c_gx3_throw_on_unstarted_message(x):
    def gen():
        yield 1

    try:
        gen().throw(ValueError(7))
    except ValueError as e:
        return x + e.args[0]
    return x


def c_gx3_throw_terminates_then_send_stops(x):
    def gen():
        while True:
            try:
                yield
            except ValueError:
                pass

    g = gen()
    next(g)
    out = []
    try:
        g.throw(TypeError)
    except TypeError:
        out.append("type")
    try:
        g.send(2)
    except StopIteration:
        out.append("stop")
    return x + len(out), out


def c_gx3_exception_context_after_send_none(x):
    def gen():
        yield

    g = gen()
    g.send(None)
    try:
        g.throw(ValueError)
    except ValueError as e:
        return x.sin(), e.__context__
    return x.cos(), None


# -- close ----------------------------------------------------------------------------------------------------
def c_gx3_close_reraise_converted_from(x):
    def gen():
        try:
            yield x.sin()
            yield x.cos()
        except GeneratorExit as e:
            raise AttributeError("a") from e
        finally:
            pass

    g = gen()
    first = next(g)
    try:
        g.close()
    except AttributeError as e:
        return first, type(e.__cause__).__name__
    return first, None


def c_gx3_close_list_sees_late_nonlocal(x):
    log = []
    z = 0

    def gen():
        try:
            log.append(1)
            yield x.sin()
            log.append(2)
        finally:
            log.append(z)

    g = gen()
    a = next(g)
    z = -5
    g.close()
    log.append(len(log))
    return a, log


def c_gx3_close_handler_rebinds_then_reraises(x):
    log = []
    z = 0

    def gen():
        nonlocal z
        try:
            log.append(1)
            yield x.sin()
        except GeneratorExit:
            log.append(z)
            z = -1
            raise
        finally:
            log.append(z)

    g = gen()
    a = next(g)
    z = 9
    g.close()
    return a, log, z


def c_gx3_close_in_subgen_outer_try_unreached(x):
    log = []
    z = 0

    def sub():
        yield x.sin()
        yield x.cos()

    def gen():
        nonlocal z
        log.append(10)
        yield from sub()
        try:
            z = 4
            yield x.tan()
        finally:
            log.append(z)

    g = gen()
    a = next(g)
    z = -3
    g.close()
    return a, log, z


def c_gx3_close_after_raise_returns_none(x):
    def gen():
        raise ValueError("v")
        yield x

    g = gen()
    try:
        next(g)
    except ValueError:
        pass
    return x.sin(), g.close()


def c_gx3_close_exit_handler_return_and_finally(x):
    z = 0

    def gen():
        nonlocal z
        try:
            z += 1
            yield x.sin()
        except GeneratorExit:
            z += 10
            return x.tan()
        finally:
            z += 100

    g = gen()
    a = next(g)
    return a, g.close(), z


def c_gx3_close_ignored_exit_runtime_error(x):
    def gen():
        try:
            yield x.sin()
        except GeneratorExit:
            yield x.tan()
        finally:
            pass

    g = gen()
    a = next(g)
    try:
        g.close()
    except RuntimeError as e:
        return a, str(e)
    return a, ""


def c_gx3_close_states_unstarted_and_done(x):
    def gen():
        yield 1

    gen().close()
    g = gen()
    next(g)
    g.close()
    return x + 1


def c_gx3_open_gen_finally_returns_input(x):
    marks = []

    def gen():
        try:
            yield x
            yield x
        finally:
            marks.append(1)

    g = gen()
    next(g)
    return x, marks


def c_gx3_close_new_object_attr_in_finally(x):
    class Holder:
        pass

    marker = []

    def gen():
        h = Holder()
        h.items = marker
        try:
            yield x.sin()
        finally:
            h.items.append(1)

    g = gen()
    next(g)
    del g
    return x.sin(), marker


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
