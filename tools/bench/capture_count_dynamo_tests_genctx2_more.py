"""Generators modelled on the second half of PyTorch's test/dynamo/test_generator.py (its PEP 255 and coroutine
ports, and delegation through ``yield from``), for ``capture_count.py --only dynamo_tests``: errors that finish
a generator, ``send`` into yield expressions, ``close`` seen by handlers, and send/throw/close forwarded to the
subgenerator or subiterator a delegating generator waits on, each written afresh over one tensor.
"""

from __future__ import annotations


# -- PEP 255 / coroutine behaviours -----------------------------------------------------------------------
def c_gc2_running_generator_reentered(x):
    def produce():
        i = next(me)
        yield i

    me = produce()
    try:
        next(me)
        flag = 0
    except ValueError as e:
        flag = len(str(e))
    return x + flag


def c_gc2_return_not_caught_by_bare_except(x):
    def first():
        try:
            return
        except:  # noqa: E722
            yield 1

    def second():
        try:
            raise StopIteration
        except:  # noqa: E722
            yield 42

    return x + len(list(first())) + sum(second())


def c_gc2_error_finishes_generator(x):
    def boom():
        return 1 // 0

    def produce():
        yield boom()
        yield 42

    g = produce()
    out = x
    try:
        next(g)
    except ZeroDivisionError:
        out = out + 1
    try:
        next(g)
    except StopIteration:
        out = out + 10
    return out


def c_gc2_nested_try_yields_sequence(x):
    def produce():
        try:
            yield 1
            try:
                yield 2
                1 // 0  # noqa: B018
                yield 3
            except ZeroDivisionError:
                yield 4
                yield 5
                raise
            except:  # noqa: E722
                yield 6
            yield 7
        except:  # noqa: E722
            yield 8
        yield 9
        try:
            pass
        finally:
            yield 10
        yield 11

    seq = list(produce())
    return x + sum(seq), seq


def c_gc2_send_records_value(x):
    sent = []

    def produce():
        sent.append((yield 1))
        yield 2

    g = produce()
    a = next(g)
    b = g.send(42)
    return x + a + b, sent


def c_gc2_send_value_to_unstarted(x):
    def produce():
        yield 1

    try:
        produce().send("foo")
    except TypeError:
        return x + 1
    return x


def c_gc2_bare_yield_list(x):
    def produce():
        yield

    return x, list(produce())


def c_gc2_augmented_send_coroutine(x):
    seq = []

    def accumulate():
        count = 0
        while count < 200:
            count += yield
            seq.append(count)

    c = accumulate()
    next(c)
    for _ in range(3):
        c.send(10)
    return x + seq[-1], seq


def c_gc2_close_catches_exit_twice(x):
    log = []

    def produce():
        try:
            yield
        except GeneratorExit:
            log.append("exiting")

    g = produce()
    next(g)
    g.close()
    g.close()
    return x + len(log), log


def c_gc2_exit_skips_except_exception(x):
    log = []

    def produce():
        try:
            yield
        except Exception:
            log.append("except")
        finally:
            log.append("finally")

    g = produce()
    next(g)
    g.close()
    return x, log


def c_gc2_error_during_close_propagates(x):
    def produce():
        try:
            yield
        except GeneratorExit:
            raise TypeError("fie") from None

    g = produce()
    next(g)
    try:
        g.close()
    except TypeError as e:
        return x + len(str(e))
    return x


def c_gc2_send_into_subscript_targets(x):
    data = [1, 2]

    def produce(d):
        d[(yield "a")] = d[(yield "b")] = 27

    g = produce(data)
    first = g.send(None)
    second = g.send(0)
    try:
        g.send(1)
    except StopIteration:
        pass
    return x + len(first + second), data


# -- delegation through yield from --------------------------------------------------------------------------
def c_gc2_yield_from_send_reaches_subgen(x):
    got = []

    def inner():
        v = yield 1
        got.append(v)
        yield 2

    def outer():
        yield from inner()

    g = outer()
    a = next(g)
    b = g.send(42)
    return x + a + b, got


def c_gc2_yield_from_throw_caught_by_subgen(x):
    log = []

    def inner():
        try:
            yield 1
        except ValueError:
            log.append("inner caught")
            yield 2

    def outer():
        yield from inner()

    g = outer()
    next(g)
    return x + g.throw(ValueError), log


def c_gc2_yield_from_throw_runs_subgen_finally(x):
    log = []

    def inner():
        try:
            yield 1
        finally:
            log.append("inner finally")

    def outer():
        yield from inner()

    g = outer()
    next(g)
    try:
        g.throw(ValueError)
    except ValueError:
        log.append("outer saw")
    return x, log


def c_gc2_yield_from_throw_generator_exit(x):
    log = []

    def inner():
        try:
            yield 1
        finally:
            log.append("inner finally")

    def outer():
        yield from inner()

    g = outer()
    next(g)
    try:
        g.throw(GeneratorExit)
    except GeneratorExit:
        log.append("exit raised")
    return x, log


def c_gc2_yield_from_throw_two_levels(x):
    log = []

    def leaf():
        try:
            yield 1
        except ValueError:
            log.append("leaf caught")
            yield 2

    def mid():
        yield from leaf()

    def outer():
        yield from mid()

    g = outer()
    next(g)
    return x + g.throw(ValueError), log


def c_gc2_yield_from_close_runs_subgen_finally(x):
    log = []

    def inner():
        try:
            yield 1
            yield 2
        finally:
            log.append("inner finally")

    def outer():
        yield from inner()

    g = outer()
    next(g)
    g.close()
    return x, log


def c_gc2_yield_from_close_subgen_ignores_exit(x):
    def inner():
        try:
            yield 1
        except GeneratorExit:
            yield 2

    def outer():
        yield from inner()

    g = outer()
    next(g)
    try:
        g.close()
    except RuntimeError:
        return x + 1
    return x


class _Forwarding:
    """An iterator with the generator protocol's ``throw`` and ``close``: ``yield from`` forwards to them."""

    def __init__(self, log):
        self.log = log

    def __iter__(self):
        return self

    def __next__(self):
        return 1

    def send(self, value):
        return 1

    def throw(self, typ, val=None, tb=None):
        self.log.append("iter throw")
        return 2

    def close(self):
        self.log.append("iter close")


def c_gc2_yield_from_iterator_throw(x):
    log = []

    def outer():
        yield from _Forwarding(log)

    g = outer()
    a = next(g)
    return x + a + g.throw(ValueError), log


def c_gc2_yield_from_iterator_close(x):
    log = []

    def outer():
        yield from _Forwarding(log)

    g = outer()
    next(g)
    g.close()
    return x, log


def c_gc2_yield_from_list_throw(x):
    def outer():
        yield from iter([1, 2, 3])

    g = outer()
    next(g)
    try:
        g.throw(ValueError)
    except ValueError:
        return x + 1
    return x


def c_gc2_yield_from_list_result_none(x):
    def outer(t):
        r = yield from [t.sin(), t.cos()]
        yield r

    out = list(outer(x))
    return out[0] + out[1], out[2] is None


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
