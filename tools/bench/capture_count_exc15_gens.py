"""Generator protocols after PyTorch's test/dynamo/test_generator.py (its PEP, coroutine and sub-generator
delegation classes; round exc15), for ``capture_count.py --only exc15``: close() twice, close() after the body
raised, GeneratorExit handled with a return value, ignored GeneratorExit, errors during close, throw() caught in
a loop, throw() into a just-opened generator, delegation of throw/close through ``yield from`` into generators
and into plain iterators with their own ``throw``/``close``, each written afresh over one tensor.
"""

from __future__ import annotations


class _Delegate:
    """An iterator with the generator protocol (send/throw/close) of its own."""

    def __init__(self, log):
        self.log = log

    def __iter__(self):
        return self

    def __next__(self):
        return 1

    def send(self, value):
        return 1

    def throw(self, typ, val=None, tb=None):
        self.log.append("throw")
        return 5

    def close(self):
        self.log.append("close")


def c_exc15_gen_close_twice_finally_once(x):
    n = [0]

    def gen(t):
        try:
            n[0] += 1
            yield t.sin()
            yield t.cos()
        finally:
            n[0] += 1

    g = gen(x)
    a = next(g)
    g.close()
    return a, g.close(), n[0]


def c_exc15_gen_close_after_body_raised(x):
    def gen(t):
        raise ValueError("early")
        yield t

    g = gen(x)
    try:
        next(g)
        hit = 0
    except ValueError:
        hit = 1
    return x.sin() + hit, g.close()


def c_exc15_gen_exit_return_value(x):
    n = [0]

    def gen(t):
        try:
            yield t.sin()
            yield t.cos()
        except GeneratorExit:
            n[0] += 1
            return t.tan()
        finally:
            n[0] += 10

    g = gen(x)
    a = next(g)
    return a, g.close(), n[0]


def c_exc15_gen_ignored_generator_exit(x):
    def gen():
        try:
            yield 1
        except GeneratorExit:
            yield 2

    g = gen()
    next(g)
    try:
        g.close()
        msg = ""
    except RuntimeError as e:
        msg = str(e)
    return x + 1, msg


def c_exc15_gen_error_during_close(x):
    def gen():
        try:
            yield
        except GeneratorExit:
            raise TypeError("during close") from None

    g = gen()
    next(g)
    try:
        g.close()
        kind = 0
    except TypeError as e:
        kind = len(e.args[0])
    return x * kind


def c_exc15_gen_exit_skips_except_exception(x):
    log = []

    def gen():
        try:
            yield
        except Exception:
            log.append("except")
        finally:
            log.append("finally")

    g = gen()
    next(g)
    g.close()
    return x + len(log), tuple(log)


def c_exc15_gen_throw_caught_in_loop(x):
    caught = []

    def gen():
        while True:
            try:
                yield
            except ValueError as v:
                caught.append(str(v))

    g = gen()
    next(g)
    g.throw(ValueError)
    g.throw(ValueError("abc"))
    return x + len(caught), tuple(caught)


def c_exc15_gen_throw_terminates(x):
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
        out.append(1)
    try:
        g.send(3)
    except StopIteration:
        out.append(2)
    return x * len(out), tuple(out)


def c_exc15_gen_throw_just_opened(x):
    def gen():
        yield 1

    try:
        gen().throw(ValueError(7))
        v = 0
    except ValueError as e:
        v = e.args[0]
    return x + v


def c_exc15_gen_exception_propagates_then_stops(x):
    def f():
        return 1 // 0

    def gen():
        yield f()
        yield 42

    g = gen()
    out = []
    try:
        next(g)
    except ZeroDivisionError:
        out.append("zd")
    try:
        next(g)
    except StopIteration:
        out.append("stop")
    return x + len(out), tuple(out)


def c_exc15_gen_try_except_finally_sequence(x):
    def gen():
        try:
            yield 1
            try:
                yield 2
                1 // 0  # noqa: B018
                yield 3
            except ZeroDivisionError:
                yield 4
                raise
            yield 7
        except Exception:
            yield 8
        try:
            pass
        finally:
            yield 10
        yield 11

    vals = list(gen())
    return x * len(vals), tuple(vals)


def c_exc15_gen_augmented_send(x):
    seq = []

    def co():
        total = 0
        while total < 100:
            total += yield
            seq.append(total)

    c = co()
    next(c)
    c.send(10)
    c.send(5)
    return x + seq[-1], tuple(seq)


def c_exc15_gen_send_subscript_targets(x):
    def gen(d):
        d[(yield "a")] = d[(yield "b")] = 27

    data = [1, 2]
    g = gen(data)
    g.send(None)
    g.send(0)
    try:
        g.send(1)
    except StopIteration:
        pass
    return x + data[0] + data[1]


def c_exc15_gen_send_non_none_first(x):
    def gen():
        yield 1

    try:
        gen().send("v")
        ok = 0
    except TypeError:
        ok = 1
    return x + ok


def c_exc15_yield_from_throw_uncaught_finally(x):
    log = []

    def sub():
        try:
            yield 1
        finally:
            log.append("sub")

    def outer():
        yield from sub()

    g = outer()
    next(g)
    try:
        g.throw(ValueError)
    except ValueError:
        log.append("out")
    return x + len(log), tuple(log)


def c_exc15_yield_from_throw_generator_exit(x):
    log = []

    def sub():
        try:
            yield 1
        finally:
            log.append("sub")

    def outer():
        yield from sub()

    g = outer()
    next(g)
    try:
        g.throw(GeneratorExit)
    except GeneratorExit:
        log.append("exit")
    return x + len(log), tuple(log)


def c_exc15_yield_from_nested_throw(x):
    log = []

    def leaf():
        try:
            yield 1
        except KeyError:
            log.append("leaf")
            yield 2

    def mid():
        yield from leaf()

    def outer():
        yield from mid()

    g = outer()
    next(g)
    return x * g.throw(KeyError), tuple(log)


def c_exc15_yield_from_close_sub_catches_exit(x):
    log = []

    def sub():
        try:
            yield 1
        except GeneratorExit:
            log.append("sub exit")

    def outer():
        yield from sub()

    g = outer()
    next(g)
    g.close()
    return x + len(log), tuple(log)


def c_exc15_yield_from_close_sub_ignores_exit(x):
    def sub():
        try:
            yield 1
        except GeneratorExit:
            yield 2

    def outer():
        yield from sub()

    g = outer()
    next(g)
    try:
        g.close()
        r = 0
    except RuntimeError:
        r = 1
    return x + r


def c_exc15_yield_from_iterator_throw(x):
    log = []

    def outer():
        yield from _Delegate(log)

    g = outer()
    a = next(g)
    b = g.throw(ValueError)
    return x + a + b, tuple(log)


def c_exc15_yield_from_iterator_close(x):
    log = []

    def outer():
        yield from _Delegate(log)

    g = outer()
    next(g)
    g.close()
    return x + len(log), tuple(log)


def c_exc15_yield_from_send_into_sub(x):
    got = []

    def sub():
        v = yield 1
        got.append(v)
        yield 2

    def outer():
        yield from sub()

    g = outer()
    next(g)
    b = g.send(40)
    return x + b + got[0]


def c_exc15_gen_return_not_caught_by_bare_except(x):
    def f1():
        try:
            return
        except:  # noqa: E722
            yield 1

    def f2():
        try:
            raise StopIteration
        except:  # noqa: E722
            yield 42

    return x + len(list(f1())) + sum(f2())


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
