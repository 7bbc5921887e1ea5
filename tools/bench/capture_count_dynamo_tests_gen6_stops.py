"""Part of ``capture_count.py --only dynamo_tests_gen6`` (see ``capture_count_dynamo_tests_gen6.py``): StopIteration
raised by the functions C iterators call (``map``, ``filter``, itertools' ``starmap``, ``takewhile``, ``groupby``...)
and seen through them (``yield from map(...)``), after CPython's test_iter.py and test_itertools.py as PyTorch's
test/dynamo/cpython/3_13/ runs them; the old ``__getitem__`` iteration protocol, user iterators whose
StopIteration carries a value, ``iter(callable, sentinel)``'s comparison order, and the TypeErrors of
``reversed()``/``len()`` of a generator. Each is written afresh over one tensor.
"""

from __future__ import annotations

import itertools


def _stop_at_two(v):
    if v == 2:
        raise StopIteration("two")
    return v


def c_g6_map_function_stopiteration_not_caught(x):
    try:
        return x + 1, list(map(_stop_at_two, range(5)))
    except StopIteration:
        return x - 1, "caught"


def c_g6_filter_predicate_stopiteration_for_loop(x):
    out = x
    try:
        for v in filter(lambda v: _stop_at_two(v) >= 0, range(5)):
            out = out + v
    except StopIteration:
        out = out * 0
    return out


def c_g6_starmap_function_stopiteration_not_runtime_error(x):
    try:
        return x * 2, list(itertools.starmap(_stop_at_two, [(i,) for i in range(5)]))
    except (RuntimeError, StopIteration) as e:
        return x, type(e).__name__


def c_g6_takewhile_groupby_stopiteration_ends(x):
    try:
        a = list(itertools.takewhile(lambda v: _stop_at_two(v) < 9, range(5)))
        b = [k for k, _ in itertools.groupby(range(5), key=_stop_at_two)]
        return x + len(a) + len(b), a, b
    except (RuntimeError, StopIteration) as e:
        return x, type(e).__name__


def c_g6_map_resumes_after_function_stop(x):
    m = map(_stop_at_two, range(5))
    first = list(m)
    return x + len(first), first, list(m)


def c_g6_yield_from_map_value_of_stop(x):
    def g():
        r = yield from map(_stop_at_two, range(5))
        yield r

    return x * 3, list(g())


def c_g6_zip_longest_over_stopping_map(x):
    try:
        return x + 1, list(itertools.zip_longest(map(_stop_at_two, range(5)), "abc"))
    except (RuntimeError, StopIteration):
        return x, "caught"


class _Indexed:
    """Iterable by the old ``__getitem__`` protocol only."""

    def __init__(self, t):
        self.t = t

    def __getitem__(self, i):
        if i >= 3:
            raise IndexError(i)
        return self.t * i


def c_g6_getitem_protocol_argument_class(x):
    s = _Indexed(x)
    return sum(s), list(s)[2], 4 in _Indexed(2), 5 in _Indexed(2)


class _OnceWithValue:
    def __init__(self, t):
        self.t = t
        self.done = False

    def __iter__(self):
        return self

    def __next__(self):
        if self.done:
            raise StopIteration(99)
        self.done = True
        return self.t


def c_g6_user_iterator_stop_value_for_and_yield_from(x):
    out = x * 0
    for v in _OnceWithValue(x):
        out = out + v

    def g():
        r = yield from _OnceWithValue(x + 1)
        yield r

    return out, list(g())[1]


def c_g6_generator_method_keeps_object_state(x):
    class Acc:
        def __init__(self):
            self.seen = 0

        def feed(self, items):
            for it in items:
                self.seen += 1
                yield it * self.seen

    a = Acc()
    first = list(a.feed([x, x]))
    second = next(a.feed([x]))
    return first[1] + second, a.seen


def c_g6_nested_generator_close_order(x):
    log = []

    def inner():
        try:
            yield x
            yield x + 1
        finally:
            log.append("inner")

    def outer():
        try:
            yield from inner()
        finally:
            log.append("outer")

    g = outer()
    v = next(g)
    g.close()
    return v * 2, log


class _NoisyEq:
    def __init__(self, v, log):
        self.v = v
        self.log = log

    def __eq__(self, other):
        self.log.append(self.v)
        return isinstance(other, _NoisyEq) and other.v == self.v

    __hash__ = None


def c_g6_iter_sentinel_compares_sentinel_first(x):
    log = []
    values = iter([_NoisyEq(1, log), _NoisyEq(2, log), _NoisyEq(3, log)])
    got = list(iter(lambda: next(values), _NoisyEq(2, log)))
    return x + len(got), log


def c_g6_reversed_and_len_of_generator_messages(x):
    out = []
    for f in (reversed, len):
        try:
            f(x * i for i in range(2))
        except TypeError as e:
            out.append(str(e))
    return x + len(out), out


def c_g6_yield_from_map_over_iterator_with_stop_value(x):
    def g():
        r = yield from map(lambda v: x * v, _OnceWithValue(2))
        yield r

    out = list(g())
    return out[0], out[1]


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
