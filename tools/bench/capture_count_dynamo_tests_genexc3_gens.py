"""Generators modelled on PyTorch's test/dynamo/test_generator.py, for ``capture_count.py --only
dynamo_tests_genexc3`` (a part of ``capture_count_dynamo_tests_genexc3.py``): breaks inside and around
generators, generators returned or drained after their side effects, ``in`` over a generator, PEP 255's
sequences of ``try``/``except``/``finally`` around yields, recursive ``yield from`` and generators alive across
``torch.cond``. Each is written afresh over one tensor; a break is a ``print`` to a sink.
"""

from __future__ import annotations

import io
import itertools
import types
from collections import OrderedDict

import torch

_SINK = io.StringIO()


# -- generators, breaks and reconstruction -----------------------------------------------------------------
def c_gx3_break_inside_generator_sum(x):
    def gen():
        yield 1
        print("mid", file=_SINK)
        yield 2

    g = gen()
    s = next(g)
    s += next(g)
    return x + s


def c_gx3_break_inside_generator_via_helper(x):
    def gen(t):
        yield t.sin()
        print("mid", file=_SINK)
        yield t.cos()

    def helper(t):
        g = gen(t)
        return next(g), next(g)

    a, b = helper(x)
    return a + b


def c_gx3_break_then_list_rest(x):
    def gen(t):
        yield t.sin()
        yield t.cos()
        yield t.tan()

    def brk(t):
        print("b", file=_SINK)

    g = gen(x)
    next(g)
    brk(x)
    return x.sin(), list(g)


def c_gx3_break_between_and_inside(x):
    def gen():
        yield 1
        print("inside", file=_SINK)
        yield 2

    g = gen()
    s = next(g)
    print("outside", file=_SINK)
    s += next(g)
    return x + s


def c_gx3_returned_gen_mutates_dict_later(x):
    d = {1: 0}

    def gen(t):
        d[2] = 1
        yield t.sin()
        yield t.cos()
        d[3] = 2
        yield t.tan()

    g = gen(x)
    next(g)
    rest = list(gen(x))
    return x.sin(), len(rest), d


def c_gx3_subgen_nonlocal_count_returned(x):
    i = 0

    def sub(t):
        nonlocal i
        i += 1
        yield t
        i += 1
        yield t + 1

    def gen(t):
        nonlocal i
        yield from sub(t)
        i += 1
        yield t + 2

    g = gen(x)
    out = list(g)
    return out, i


def c_gx3_break_before_first_next_counts(x):
    i = 0

    def gen(t):
        nonlocal i
        for j in range(4):
            i += 1
            yield t + j

    g = gen(x)
    print("b", file=_SINK)
    next(g)
    return len(list(g)), i, x.sin()


def c_gx3_zip_gen_with_break_each_step(x):
    def gen(t):
        for j in range(5):
            yield t + j
            print("b", file=_SINK)

    return list(zip(range(3), gen(x)))


def c_gx3_product_of_permutations_sum(x):
    def gen():
        for perm in itertools.product(itertools.permutations((0, 1, 2)), repeat=1):
            yield sum(perm[0])

    s = 0
    for b, _ in itertools.product(gen(), itertools.permutations((4, 5))):
        s += b
    return x + s


def c_gx3_islice_of_chain(x):
    a = [x + 1, x + 2]
    b = [x + 3, x + 4]
    return list(itertools.islice(itertools.chain(a, b), 1, 4))


def c_gx3_ordered_dict_from_gen(x):
    def gen(t):
        yield 1, t + 1
        yield 2, t + 2

    return OrderedDict(gen(x))


def c_gx3_contains_advances_with_side_effects(x):
    n = 0

    def gen():
        nonlocal n
        n = 1
        yield 1
        n = 2
        yield 2

    g = gen()
    first = 1 in g
    seen = n
    second = 2 in g
    return x + n, first, second, seen, 3 in gen()


def c_gx3_genexp_over_int_type_error(x):
    try:
        (v for v in 1)
    except TypeError as e:
        return x + 1, str(e)
    return x, ""


def c_gx3_yield_inside_genexp_is_generator(x):
    def f():
        list(i for i in [(yield 26)])

    g = f()
    return x + 1, isinstance(g, types.GeneratorType), next(g)


def c_gx3_pep255_try_except_finally_sequence(x):
    def f():
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
            except Exception:
                yield 6
            yield 7
        except Exception:
            yield 8
        yield 9
        try:
            pass
        finally:
            yield 10
        yield 11

    vals = list(f())
    return x + sum(vals), vals


def c_gx3_return_not_caught_but_raise_is(x):
    def f1():
        try:
            return
        except Exception:
            yield 1

    def f2():
        try:
            raise StopIteration
        except Exception:
            yield 42

    return x + len(list(f1())), list(f2())


def c_gx3_error_ends_generator(x):
    def f():
        return 1 // 0

    def g():
        yield f()
        yield 42

    k = g()
    out = []
    try:
        next(k)
    except ZeroDivisionError:
        out.append("zero")
    try:
        next(k)
    except StopIteration:
        out.append("stop")
    return x.sin(), out


def c_gx3_inorder_tree_generators(x):
    class Node:
        def __init__(self, label, left=None, right=None):
            self.label, self.left, self.right = label, left, right

    def build(s):
        if not s:
            return None
        m = len(s) // 2
        return Node(s[m], build(s[:m]), build(s[m + 1 :]))

    def walk(n):
        if n:
            yield from walk(n.left)
            yield n.label
            yield from walk(n.right)

    return x + 1, "".join(walk(build("ABCDEFG")))


def c_gx3_cond_then_drain_generator(x):
    def gen(t):
        yield t.sin()
        yield t.cos()

    g = gen(x)
    a = next(g)
    b = torch.cond(x.sum() > 0, lambda v: v + 1, lambda v: v - 1, (x,))
    acc = a + b
    for v in g:
        acc = acc + v
    return acc


def c_gx3_cond_then_leave_generator_open(x):
    z = []

    def gen(t):
        try:
            yield t.sin()
            yield t.cos()
        finally:
            z.append(1)

    g = gen(x)
    a = next(g)
    b = torch.cond(x.sum() > 0, lambda v: v + 1, lambda v: v - 1, (x,))
    del g
    return a + b, z


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
