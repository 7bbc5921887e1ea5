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


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
