"""Generators and iterators after PyTorch's test/dynamo/test_generator.py and the CPython-derived
test/dynamo/cpython/3_13/test_generators.py, test_iter.py and test_itertools.py, for ``capture_count.py --only
dynamo_tests_gen6``: generator expressions fed to builtins that stop early (and the order their side effects run
in), itertools over generators with side effects, send/throw/close carrying tensors, generators kept on objects
and resumed across calls, ``yield`` inside ``with``/``try``/``finally``, ``yield from`` results, generator methods
and staticmethods, recursion through generators, user iterator classes, ``iter(callable, sentinel)`` and
StopIteration edges. Its part ``_stops`` holds StopIteration through C iterators and the iterator protocols.
Each is written afresh over one tensor.
"""

from __future__ import annotations

import contextlib
import itertools
import operator


# -- generator expressions fed to builtins ------------------------------------------------------------------
def c_g6_any_stops_early_log(x):
    log = []

    def probe(i):
        log.append(i)
        return i == 2

    hit = any(probe(i) for i in range(6))
    return x + len(log), hit, log


def c_g6_all_stops_early_with_tensor_test(x):
    log = []

    def ok(i):
        log.append(i)
        return bool(i < 3)

    done = all(ok(i) for i in range(5))
    return x * (2 if done else 3), log


def c_g6_sum_genexp_tensors_start(x):
    return sum((x * i for i in range(1, 4)), x.cos())


def c_g6_min_max_key_over_genexp(x):
    rows = [x + 1, x - 2, x * 3]
    lo = min((r for r in rows), key=lambda t: float(t.sum()))
    hi = max(range(3), key=lambda i: float(rows[i].sum()))
    return lo, hi


def c_g6_sorted_genexp_reverse(x):
    vals = sorted((i * i - 3 * i for i in range(5)), reverse=True)
    return x + vals[0], vals


def c_g6_dict_from_genexp_pairs(x):
    d = dict((k, x * k) for k in range(3))
    return d[2] + d[1], list(d)


def c_g6_set_from_genexp_laziness(x):
    log = []

    def g():
        for i in (3, 1, 3, 2):
            log.append(i)
            yield i

    s = set(g())
    return x + sum(s), sorted(s), log


def c_g6_zip_genexps_shortest_pulls_extra(x):
    log = []

    def a():
        for i in range(5):
            log.append(("a", i))
            yield i

    def b():
        for i in range(2):
            log.append(("b", i))
            yield i

    pairs = list(zip(a(), b()))
    return x + len(pairs), log


def c_g6_map_lazy_next_order(x):
    log = []

    def f(v):
        log.append(v)
        return x * v

    m = map(f, [1, 2, 3])
    log.append("made")
    first = next(m)
    return first, log


def c_g6_next_default_on_filter_genexp(x):
    found = next((i for i in range(5) if i > 10), -1)
    found2 = next((i for i in range(5) if i > 2), -1)
    return x + found + found2


# -- itertools over generators with side effects ------------------------------------------------------------
def c_g6_islice_of_generator_leaves_rest(x):
    log = []

    def g():
        for i in range(6):
            log.append(i)
            yield x + i

    it = g()
    head = list(itertools.islice(it, 1, 3))
    rest = next(it)
    return head[0] + head[1] + rest, log


def c_g6_takewhile_dropwhile_share_iterator(x):
    it = iter(range(8))
    a = list(itertools.takewhile(lambda v: v < 3, it))
    b = list(itertools.dropwhile(lambda v: v < 6, it))
    return x + sum(a) + sum(b), a, b


def c_g6_groupby_lengths_of_tensor_signs(x):
    vals = [1, 1, -1, -1, -1, 2]
    out = []
    for k, grp in itertools.groupby(vals, key=lambda v: v > 0):
        out.append((k, len(list(grp))))
    return x * len(out), out


def c_g6_groupby_skipped_groups(x):
    keys = []
    for k, _ in itertools.groupby("aaabbc"):
        keys.append(k)
    return x + len(keys), keys


def c_g6_tee_of_side_effect_generator(x):
    log = []

    def g():
        for i in range(3):
            log.append(i)
            yield x * i

    a, b = itertools.tee(g())
    first = next(a)
    second = next(a)
    again = next(b)
    return first + second + again, log


def c_g6_product_of_generators_consumed_upfront(x):
    log = []

    def g(tag, n):
        for i in range(n):
            log.append((tag, i))
            yield i

    p = itertools.product(g("a", 2), g("b", 2))
    log.append("built")
    total = sum(i * j for i, j in p)
    return x + total, log


def c_g6_permutations_combinations_tensor_rows(x):
    rows = [x, x + 1, x * 2]
    acc = x * 0
    for a, b in itertools.permutations(rows, 2):
        acc = acc + a * b
    for a, _b in itertools.combinations(rows, 2):
        acc = acc - a
    return acc


def c_g6_chain_from_iterable_of_generators(x):
    def rows(n):
        for i in range(n):
            yield x + i

    flat = list(itertools.chain.from_iterable(rows(n) for n in (1, 2, 3)))
    return sum(flat), len(flat)


def c_g6_zip_longest_generators_fill(x):
    def g(n):
        yield from range(n)

    out = list(itertools.zip_longest(g(3), g(1), fillvalue=-1))
    return x + sum(a + b for a, b in out), out


def c_g6_starmap_accumulate_initial(x):
    prods = list(itertools.starmap(operator.mul, [(1, 2), (3, 4)]))
    acc = list(itertools.accumulate(prods, initial=10))
    return x + acc[-1], acc


def c_g6_compress_cycle_count_repeat(x):
    picked = list(itertools.compress(range(6), itertools.cycle([1, 0])))
    cyc = list(itertools.islice(itertools.cycle("ab"), 5))
    cnt = list(zip(itertools.count(5, 2), itertools.repeat(x, 3)))
    return cnt[-1][1] + cnt[-1][0] + sum(picked), cyc


# -- send / throw / close with tensors ---------------------------------------------------------------------
def c_g6_send_tensor_running_mean(x):
    def averager():
        total = None
        n = 0
        avg = None
        while True:
            v = yield avg
            total = v if total is None else total + v
            n += 1
            avg = total / n

    g = averager()
    next(g)
    g.send(x)
    return g.send(x * 3)


def c_g6_throw_tensor_carrying_exception(x):
    class Carry(Exception):
        pass

    def g():
        acc = x
        while True:
            try:
                yield acc
            except Carry as e:
                acc = acc + e.args[0]

    it = g()
    next(it)
    it.throw(Carry(x * 2))
    return it.throw(Carry(x))


def c_g6_close_return_value_ignored_finally_tensor(x):
    out = []

    def g():
        try:
            yield x
            yield x + 1
        finally:
            out.append(x.sin())

    it = g()
    next(it)
    r = it.close()
    return out[0], r, len(out)


# -- generators kept on objects, methods, staticmethods ------------------------------------------------------
class _Feeder:
    def __init__(self, n):
        self.n = n
        self.pulled = 0
        self.src = self.rows()

    def rows(self):
        for i in range(self.n):
            self.pulled += 1
            yield i

    @staticmethod
    def squares(n):
        for i in range(n):
            yield i * i


def c_g6_generator_on_object_resumed_each_call(x, feeder):
    v = next(feeder.src)
    return x + v, feeder.pulled


c_g6_generator_on_object_resumed_each_call.extra_args = lambda: (_Feeder(10),)
c_g6_generator_on_object_resumed_each_call.calls = 3


def c_g6_generator_method_and_staticmethod(x):
    f = _Feeder(3)
    a = sum(f.rows())
    b = sum(_Feeder.squares(4)) + sum(f.squares(2))
    return x * a + b, f.pulled


def c_g6_generator_attribute_made_in_frame(x):
    class Box:
        pass

    b = Box()
    b.gen = (x * i for i in range(4))
    first = next(b.gen)
    second = next(b.gen)
    return first + second + sum(b.gen)


# -- yield inside with / try / finally ------------------------------------------------------------------------
def c_g6_yield_inside_with_exit_after_drain(x):
    log = []

    @contextlib.contextmanager
    def cm(tag):
        log.append(("enter", tag))
        try:
            yield tag
        finally:
            log.append(("exit", tag))

    def g():
        with cm("a") as t:
            log.append(t)
            yield x + 1
            yield x + 2

    total = sum(g())
    return total, log


def c_g6_yield_in_finally_seen_by_list(x):
    def g():
        try:
            yield x
        finally:
            yield x * 10

    return list(g())


def c_g6_yield_in_except_handler(x):
    def g():
        try:
            yield 1
            raise ValueError("v")
        except ValueError as e:
            yield str(e)
        yield 3

    out = list(g())
    return x + out[0] + out[2], out


# -- yield from results, recursion ---------------------------------------------------------------------------
def c_g6_yield_from_collects_returns(x):
    def leaf(n):
        for i in range(n):
            yield x + i
        return n * 10

    def outer():
        a = yield from leaf(1)
        b = yield from leaf(2)
        return a + b

    g = outer()
    got = []
    while True:
        try:
            got.append(next(g))
        except StopIteration as e:
            return sum(got), e.value


def c_g6_yield_from_iterator_object(x):
    def outer():
        yield from iter([x, x + 1])
        yield from {"k": 1, "j": 2}
        yield from "ab"

    return list(outer())


def c_g6_recursive_generator_flatten(x):
    def flat(obj):
        if isinstance(obj, (list, tuple)):
            for o in obj:
                yield from flat(o)
        else:
            yield obj

    nested = [x, [x + 1, (x + 2, [x + 3])], []]
    return sum(flat(nested))


def c_g6_recursive_permutation_generator(x):
    def perms(seq):
        if len(seq) <= 1:
            yield list(seq)
            return
        for i in range(len(seq)):
            for rest in perms(seq[:i] + seq[i + 1:]):
                yield [seq[i], *rest]

    ps = list(perms([1, 2, 3]))
    return x + len(ps), ps[3]


# -- user iterator classes, iter(callable, sentinel) ----------------------------------------------------------
class _Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n


def c_g6_user_iterator_in_builtins(x):
    return x + sum(_Countdown(4)) + max(_Countdown(3)), sorted(_Countdown(3))


def c_g6_user_iterable_iter_returns_generator(x):
    class Rows:
        def __init__(self, t):
            self.t = t

        def __iter__(self):
            yield self.t
            yield self.t * 2

    r = Rows(x)
    return sum(r), list(r)[1]


def c_g6_iter_callable_sentinel_closure(x):
    state = [0]

    def tick():
        state[0] += 1
        return state[0]

    got = list(iter(tick, 4))
    return x + sum(got), state[0]


def c_g6_iter_callable_sentinel_list_pop(x):
    stack = [x, x + 1, None, x + 2]

    def pop_front():
        return stack.pop(0)

    got = list(iter(pop_front, None))
    return sum(got), len(stack)


def c_g6_getitem_iteration_protocol(x):
    class Seq:
        def __getitem__(self, i):
            if i >= 3:
                raise IndexError(i)
            return x * i

    return sum(Seq()), list(Seq())[2]


# -- StopIteration edges -------------------------------------------------------------------------------------
def c_g6_stopiteration_value_from_next(x):
    def g():
        yield 1
        return x * 5

    it = g()
    next(it)
    try:
        next(it)
    except StopIteration as e:
        return e.value, e.args[0] is e.value


def c_g6_user_next_stopiteration_with_value_in_for(x):
    class Once:
        def __init__(self):
            self.done = False

        def __iter__(self):
            return self

        def __next__(self):
            if self.done:
                raise StopIteration(99)
            self.done = True
            return x

    out = x * 0
    for v in Once():
        out = out + v
    return out


def c_g6_exhausted_generator_stays_exhausted(x):
    g = (x * i for i in range(2))
    a = list(g)
    b = list(g)
    return a[1], len(b), next(g, "done")


def c_g6_stopiteration_raised_in_map_function(x):
    def f(v):
        if v == 2:
            raise StopIteration
        return v

    out = list(map(f, range(5)))
    return x + sum(out), out


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
