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
import io
import itertools

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


CONSTRUCTS = [c_gen_next_three, c_gen_infinite_zip, c_gen_for_early_exit, c_gen_into_containers,
              c_gen_into_reductions, c_genexpr_over_tensor_list, c_yield_from_value, c_yield_from_list,
              c_gen_send, c_gen_send_running_total, c_gen_throw_caught, c_gen_throw_uncaught,
              c_gen_throw_into_subgen, c_gen_close_runs_finally, c_gen_close_return_value, c_gen_next_default,
              c_gen_exhausted_stop, c_gen_nonlocal_side_effect, c_gen_list_mutation, c_gen_returned,
              c_gen_break_inside, c_gen_break_outside, c_gen_in_operator, c_gen_enumerate,
              c_list_extend_genexpr, c_gen_try_except_yields, c_gen_pep479_inner_next]


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


CONSTRUCTS += [c_raise_inside_no_grad, c_raise_with_kwargs_then_loop, c_gen_send_to_unstarted,
               c_gen_break_in_helper, c_gen_catch_exit_return, c_gen_throw_return_in_finally, c_gen_product,
               c_reraise_after_handling_another]
