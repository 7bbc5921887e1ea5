"""Generators modelled on the second half of PyTorch's test/dynamo/test_generator.py, for ``capture_count.py
--only dynamo_tests`` (with ``capture_count_dynamo_tests.py``): ``close()`` and ``throw()`` with their handlers and
``finally`` blocks, generators left open when the frame returns, the coroutine protocol (``send`` into yield
expressions) and delegation through ``yield from`` (send, throw and close forwarded to the subgenerator or
subiterator), each written afresh over one tensor.
"""

from __future__ import annotations

import itertools


# -- close(): handlers, finally blocks, return values ------------------------------------------------------
def c_gc2_close_delegating_stops_subgen(x):
    marks = []

    def inner(t):
        marks.append("a")
        yield t.sin()
        marks.append("b")
        yield t.cos()

    def outer(t):
        yield from inner(t)
        yield t.tan()

    g = outer(x)
    first = next(g)
    g.close()
    return first, marks


def c_gc2_close_finally_reads_late_nonlocal(x):
    log = []
    level = 0

    def produce(t):
        try:
            log.append(1)
            yield t.sin()
            log.append(2)
            yield t.cos()
        finally:
            log.append(level)

    g = produce(x)
    first = next(g)
    level = -7
    g.close()
    log.append(len(log))
    return first, log


def c_gc2_close_catches_exit_and_returns(x):
    steps = []

    def produce(t):
        try:
            steps.append(1)
            yield t.sin()
            yield t.cos()
        except GeneratorExit:
            steps.append(10)
            return t.tan()
        finally:
            steps.append(100)

    g = produce(x)
    first = next(g)
    returned = g.close()
    return first, returned, steps


def c_gc2_close_yield_in_handler_raises(x):
    def produce(t):
        try:
            yield t.sin()
            yield t.cos()
        except GeneratorExit:
            yield t.tan()

    g = produce(x)
    first = next(g)
    try:
        g.close()
        kind = 0
    except RuntimeError:
        kind = 1
    return first + kind


def c_gc2_close_reraises_exit(x):
    log = []
    state = [0]

    def produce(t):
        try:
            log.append(1)
            yield t.sin()
            yield t.cos()
        except GeneratorExit:
            log.append(state[0])
            state[0] = -1
            raise
        finally:
            log.append(state[0])

    g = produce(x)
    first = next(g)
    state[0] = 5
    g.close()
    log.append(456)
    return first, log


def c_gc2_close_converts_exit(x):
    def produce(t):
        try:
            yield t.sin()
            yield t.cos()
        except GeneratorExit as e:
            raise KeyError("closing") from e

    g = produce(x)
    first = next(g)
    try:
        g.close()
        flag = 0
    except KeyError:
        flag = 1
    return first * (flag + 1)


def c_gc2_close_while_in_subgen_skips_outer_finally(x):
    log = []

    def inner(t):
        yield t.sin()
        yield t.cos()

    def outer(t):
        log.append(10)
        yield from inner(t)
        log.append(20)
        try:
            yield t.tan()
        finally:
            log.append(30)

    g = outer(x)
    first = next(g)
    g.close()
    log.append(456)
    return first, x.exp(), log


def c_gc2_close_twice_finally_once(x):
    count = [0]

    def produce(t):
        try:
            count[0] += 1
            yield t.sin()
            yield t.cos()
        finally:
            count[0] += 1

    g = produce(x)
    first = next(g)
    g.close()
    return first, g.close(), count[0]


def c_gc2_next_after_close_stops(x):
    def produce(t):
        yield t.sin()
        yield t.cos()

    g = produce(x)
    g.close()
    try:
        got = next(g)
    except StopIteration:
        got = x.neg()
    return got


def c_gc2_close_after_generator_raised(x):
    def produce(t):
        raise ValueError("early")
        yield t.cos()

    g = produce(x)
    try:
        next(g)
    except ValueError:
        pass
    return x.sin(), g.close()


def c_gc2_close_unstarted_runs_nothing(x):
    log = []

    def produce(t):
        try:
            log.append("start")
            yield t
        finally:
            log.append("finally")

    g = produce(x)
    g.close()
    return x + len(log), log


def c_gc2_left_open_finally_on_return(x):
    log = []

    def produce(t):
        try:
            yield t
            yield t
        finally:
            log.append(1)

    g = produce(x)
    next(g)
    del g
    return x, log


def c_gc2_left_open_new_object_in_finally(x):
    marker = []

    class Box:
        pass

    def produce():
        box = Box()
        box.items = marker
        try:
            yield x.sin()
        finally:
            box.items.append(1)

    g = produce()
    next(g)
    del g
    return x.sin(), marker


def c_gc2_tee_long_buffer(x):
    a, b = itertools.tee(iter(range(300)))
    total = sum(a)
    return x + total + next(b)


# -- throw() ----------------------------------------------------------------------------------------------
def c_gc2_throw_caught_yields_again(x):
    def produce(t):
        try:
            yield t.sin()
        except RuntimeError:
            yield t.cos()

    g = produce(x)
    a = next(g)
    b = g.throw(RuntimeError)
    return a + b


def c_gc2_throw_nested_finally_counts(x):
    z = [0]

    def produce():
        try:
            try:
                yield 1
            except ValueError:
                yield 2
            finally:
                z[0] += 2
        except ValueError:
            z[0] += 33
            yield 4
        finally:
            z[0] += 1
        z[0] += 10

    g = produce()
    next(g)
    got = g.throw(ValueError)
    return x.sin() + got, z[0]


def c_gc2_throw_counts_without_finally(x):
    z = [0]

    def produce(t):
        try:
            z[0] += 1
            yield t.sin()
            z[0] += 10
        except RuntimeError:
            z[0] += 100
            yield t.cos()
            z[0] += 1000
        z[0] += 10000

    g = produce(x)
    a = next(g)
    b = g.throw(RuntimeError)
    return a + b, z[0]


def c_gc2_throw_ends_generator_stopiteration(x):
    z = [0]

    def produce(t):
        try:
            z[0] += 1
            yield t.sin()
        except ValueError:
            z[0] += 10
        finally:
            z[0] += 100

    g = produce(x)
    a = next(g)
    try:
        g.throw(ValueError)
    except StopIteration as e:
        return a + len(e.args), z[0]
    return a, -1


def c_gc2_throw_not_caught_propagates(x):
    z = [0]

    def produce(t):
        try:
            z[0] += 1
            yield t.sin()
        except ValueError:
            z[0] += 10
            yield t.cos()
        finally:
            z[0] += 100

    g = produce(x)
    a = next(g)
    try:
        g.throw(RuntimeError)
    except RuntimeError:
        a = a * 2
    return a, z[0]


def c_gc2_throw_converted_in_generator(x):
    def produce(t):
        try:
            yield t.sin()
        except ValueError as e:
            raise RuntimeError("converted") from e

    g = produce(x)
    a = next(g)
    try:
        g.throw(ValueError)
    except RuntimeError as e:
        return a, str(e), type(e.__cause__).__name__
    return a, "", ""


def c_gc2_throw_second_handler_then_finally(x):
    z = [0]

    def produce(t):
        try:
            z[0] += 1
            yield t.sin()
        except ValueError:
            z[0] += 10
            yield t.cos()
        except RuntimeError:
            z[0] += 100
            yield t.tan()
        finally:
            z[0] += 1000
        z[0] += 10000

    g = produce(x)
    a = next(g)
    b = g.throw(RuntimeError)
    return a + b, z[0]


def c_gc2_throw_after_send_none(x):
    def produce():
        yield

    g = produce()
    g.send(None)
    try:
        g.throw(ValueError)
    except ValueError:
        z = 1
    return x.sin() + z


def c_gc2_throw_finally_return_wins(x):
    def produce():
        try:
            yield 1
        except ValueError:
            return 2
        finally:
            return 3  # noqa: B012

    g = produce()
    next(g)
    try:
        g.throw(ValueError)
    except StopIteration as e:
        return x.sin() + e.args[0]
    return x


def c_gc2_throw_finally_returns_object(x):
    class Holder:
        def __init__(self, v):
            self.v = v

    def produce():
        try:
            yield 1
        except ValueError:
            return Holder(2)
        finally:
            return Holder(3)  # noqa: B012

    g = produce()
    next(g)
    try:
        g.throw(ValueError)
    except StopIteration as e:
        return x.sin() * e.args[0].v
    return x


def c_gc2_throw_finally_bare_return(x):
    def produce():
        try:
            yield 1
        except ValueError:
            return 2
        finally:
            return  # noqa: B012

    g = produce()
    next(g)
    try:
        g.throw(ValueError)
    except StopIteration as e:
        return x.sin() + len(e.args), e.value
    return x, 0


def c_gc2_throw_caught_in_loop_records(x):
    caught = []

    def produce():
        while True:
            try:
                yield
            except ValueError as v:
                caught.append(str(v))

    g = produce()
    next(g)
    g.throw(ValueError)
    g.throw(ValueError("xyz"))
    return x + len(caught), caught


def c_gc2_throw_type_error_ends_loop(x):
    def produce():
        while True:
            try:
                yield
            except ValueError:
                pass

    g = produce()
    next(g)
    out = x
    try:
        g.throw(TypeError)
    except TypeError:
        out = out + 1
    try:
        g.send(2)
    except StopIteration:
        out = out + 10
    return out


def c_gc2_throw_on_unstarted(x):
    def produce():
        yield 1

    try:
        produce().throw(ValueError(7))
    except ValueError as e:
        return x + e.args[0]
    return x


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
