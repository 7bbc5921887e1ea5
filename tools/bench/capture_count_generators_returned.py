"""Generators that leave the compiled frame, for ``capture_count.py --only generators``: returned fresh,
advanced or exhausted, inside tuples and ``zip``; made before a break and drained after it; handed in as
arguments; fed to ``dict``/``OrderedDict``/``tuple``; ``yield from`` with a return value; side effects of
generators (nonlocal, dict, object) before and after their first ``yield``. Modelled on the kinds of code
PyTorch's test/dynamo/test_generator.py exercises.
"""

from __future__ import annotations

import io
import itertools
from collections import OrderedDict, deque

import torch

_SINK = io.StringIO()


def _three(t):
    yield t + 1
    yield t + 2
    yield t + 3


def _sin_cos(t):
    yield t.sin()
    yield t.cos()


def c_gen_returned_advanced(x):
    gen = _three(x)
    next(gen)
    return list(gen)  # the generator drained by the caller after the frame would be the same


def c_gen_returned_object(x):
    gen = _three(x)
    first = next(gen)
    return first, [v * 2 for v in gen]


def c_gen_tuple_of_generators(x):
    a, b = _sin_cos(x), _sin_cos(x + 1)
    return [*a, *b], x.sin()


def c_gen_zip_range(x):
    return list(zip(range(2), _three(x))), x.sin()


def _sub(t):
    yield t + 1
    return t * 10


def _outer(t):
    got = yield from _sub(t)
    yield got


def c_gen_yield_from_return_value(x):
    gen = _outer(x)
    return next(gen), next(gen)


def c_gen_into_mappings(x):
    def pairs(t):
        yield "a", t + 1
        yield "b", t + 2

    return dict(pairs(x)), OrderedDict(pairs(x)), tuple(pairs(x))


def c_gen_local_state_across_yields(x):
    def counter(t):
        n = 0
        while True:
            n += 1
            yield t * n

    gen = counter(x)
    next(gen)
    return next(gen) + next(gen)


def c_gen_dict_mutation_before_yield(x, d):
    def fill(t, m):
        m["seen"] = t.sum()
        yield t.sin()
        yield t.cos()

    gen = fill(x, d)
    return next(gen), d


c_gen_dict_mutation_before_yield.extra_args = lambda: ({"k": 1},)


class _Tally:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1


def c_gen_object_mutation_between_yields(x):
    tally = _Tally()

    def steps(t, c):
        c.bump()
        yield t + 1
        c.bump()
        yield t + 2

    out = sum(steps(x, tally))
    return out, tally.n


def c_gen_nonlocal_counter(x):
    calls = 0

    def steps(t):
        nonlocal calls
        for j in range(3):
            calls += 1
            yield t + j

    total = sum(steps(x))
    return total, calls


def c_gen_made_before_break(x):
    gen = _three(x)
    first = next(gen)
    print("between", file=_SINK)
    return first + sum(gen)


def c_gen_unstarted_closure_across_break(x):
    k = 2

    def gen(*ts):
        for t in ts:
            yield t * k

    g = gen(x, x + 1)
    print("between", file=_SINK)
    k = 3  # the generator reads the cell when it runs, after the break
    return sum(g)


def c_gen_unstarted_argument(x, gen):
    return x + next(gen) + next(gen)


c_gen_unstarted_argument.extra_args = lambda: (iter([1, 2, 3]),)


def _scaled_by(k):
    def gen(*ts, **kw):
        for t in ts:
            yield t * k
        yield from kw.values()
    return gen


def c_gen_closure_star_args_argument(x, gen):
    return x + sum(gen)


c_gen_closure_star_args_argument.extra_args = lambda: (_scaled_by(2)(1, 2, bonus=5),)


def _cell_and_bump():
    k = 2

    def gen(t):
        yield t * k

    def bump():
        nonlocal k
        k = 7

    return gen(3), bump


def c_gen_cell_written_before_run(x, gen, bump):
    bump()  # the generator reads the cell when it runs: 21, not 6
    return x + sum(gen)


c_gen_cell_written_before_run.extra_args = _cell_and_bump


def c_gen_iter_break_infinite(x):
    def naturals():
        i = 0
        while True:
            yield i
            i += 1

    s = 0
    for i in naturals():
        if i > 4:
            break
        s += i
    return x + s


def c_gen_deque_extendleft(x):
    q = deque([1])
    q.extendleft(q[0] + z for z in range(3))
    return x + q[0], q


def c_gen_product_of_generator(x):
    def firsts():
        for perm in itertools.permutations((0, 1, 2)):
            yield perm[0]

    s = 0
    for b, p in itertools.product(firsts(), itertools.permutations((4, 5))):
        s += b + p[0]
    return x + s


def c_gen_contains_side_effects(x):
    state = []

    def marks():
        state.append(1)
        yield 1
        state.append(2)
        yield 2

    g = marks()
    found = (1 in g, 2 in g, 3 in marks())
    return x + len(state), found


def c_gen_expression_over_argument_list(x, items):
    return sum(t * 2 for t in items if t.sum() > -100) + x


c_gen_expression_over_argument_list.extra_args = lambda: ([torch.ones(3), torch.zeros(3)],)


def c_gen_send_accumulator(x):
    def acc():
        total = 0
        while True:
            got = yield total
            total = total + got

    gen = acc()
    next(gen)
    gen.send(x)
    return gen.send(x * 2)


def c_gen_close_with_cleanup_state(x):
    log = []

    def guarded(t):
        try:
            yield t + 1
            yield t + 2
        finally:
            log.append("closed")

    gen = guarded(x)
    first = next(gen)
    gen.close()
    return first, log


CONSTRUCTS = [c_gen_returned_advanced, c_gen_returned_object, c_gen_tuple_of_generators, c_gen_zip_range,
              c_gen_yield_from_return_value, c_gen_into_mappings, c_gen_local_state_across_yields,
              c_gen_dict_mutation_before_yield, c_gen_object_mutation_between_yields, c_gen_nonlocal_counter,
              c_gen_made_before_break, c_gen_unstarted_closure_across_break, c_gen_unstarted_argument,
              c_gen_closure_star_args_argument,
              c_gen_cell_written_before_run, c_gen_iter_break_infinite,
              c_gen_deque_extendleft, c_gen_product_of_generator, c_gen_contains_side_effects,
              c_gen_expression_over_argument_list, c_gen_send_accumulator, c_gen_close_with_cleanup_state]
