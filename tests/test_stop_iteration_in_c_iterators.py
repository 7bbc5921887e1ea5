"""A StopIteration raised by the function a C iterator calls (``map``'s, ``filter``'s predicate, the functions of
itertools' ``starmap``, ``takewhile``, ``accumulate``, ``groupby``...) ends that iterator's step, as C's
``tp_iternext`` returning NULL with StopIteration set does: ``list`` and ``for`` just stop, ``next()`` re-raises
that very StopIteration. It is no exception for the frame to catch, and no PEP 479 RuntimeError (itertools'
stand-ins are generators, which would turn it into one). Before, loom raised it (or the RuntimeError) out of the
consumer: an ``except`` around it gave another answer than eager's."""

import itertools

import torch
from breaks_harness import compare

import loom


def _stopper(v):
    if v == 2:
        raise StopIteration("s")
    return v


def _caught(make):
    def fn(x):
        try:
            return x + 1, list(make())
        except (RuntimeError, StopIteration) as e:
            return x - 1, type(e).__name__
    return fn


_CONSUMERS = {
    "map": lambda: map(_stopper, range(5)),
    "filter": lambda: filter(lambda v: _stopper(v) >= 0, range(5)),
    "sorted_map": lambda: sorted(map(_stopper, range(5))),
    "starmap": lambda: itertools.starmap(_stopper, [(i,) for i in range(5)]),
    "takewhile": lambda: itertools.takewhile(lambda v: _stopper(v) < 9, range(5)),
    "dropwhile": lambda: itertools.dropwhile(lambda v: _stopper(v) < 0, range(5)),
    "accumulate": lambda: itertools.accumulate(range(5), lambda a, b: _stopper(b) + a),
    "groupby": lambda: (k for k, _ in itertools.groupby(range(5), key=_stopper)),
    "zip_longest_of_map": lambda: itertools.zip_longest(map(_stopper, range(5)), "abc"),
    "chain_of_map": lambda: itertools.chain(map(_stopper, range(5)), [9]),
}


def test_the_step_ends_and_nothing_is_caught():
    for name, make in _CONSUMERS.items():
        fn = _caught(make)
        assert fn(torch.arange(3.0))[1] not in ("RuntimeError", "StopIteration"), name
        stats = compare(fn, torch.arange(3.0))
        assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), (name, stats)


def map_for_loop(x):
    out = []
    try:
        for v in map(_stopper, range(5)):
            out.append(v)
    except StopIteration:
        out.append("caught")
    return x + len(out), out


def map_goes_on_after_the_stop(x):
    m = map(_stopper, range(5))
    first = list(m)
    return x + len(first), first, list(m)  # C's map calls the function on the next items


def next_reraises_that_stop(x):
    f = filter(lambda v: _stopper(v) >= 0, range(5))
    next(f)
    next(f)
    try:
        next(f)
    except StopIteration as e:
        return x + 1, e.args


def yield_from_map_value(x):
    def g():
        r = yield from map(_stopper, range(5))
        yield r

    return x * 2, list(g())


def starmap_resumed_after_the_stop(x):
    it = itertools.starmap(_stopper, [(i,) for i in range(5)])
    first = list(it)
    return x * 2, first, list(it)  # the stand-in cannot go on as C's does: a graph break, never a wrong answer


def test_map_and_filter_stop_per_step():
    for fn in (map_for_loop, map_goes_on_after_the_stop, next_reraises_that_stop, yield_from_map_value):
        stats = compare(fn, torch.arange(3.0))
        assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), (fn.__name__, stats)
    assert map_goes_on_after_the_stop(torch.zeros(1))[2] == [3, 4]
    assert yield_from_map_value(torch.zeros(1))[1] == [0, 1, "s"]


def test_a_stand_in_resumed_after_its_stop_breaks():
    compare(starmap_resumed_after_the_stop, torch.arange(3.0))
    loom.reset()
    report = loom.explain(starmap_resumed_after_the_stop)(torch.arange(3.0))
    assert report.graph_break_count >= 1
    assert any("after a StopIteration" in b.what for b in report.breaks), [b.what for b in report.breaks]


def test_pep479_still_applies_to_user_generators():
    def fn(x):
        def gen():
            for v in range(5):
                yield _stopper(v)
        try:
            return x, list(gen())
        except RuntimeError as e:
            return x + 1, str(e)

    assert fn(torch.zeros(1))[1] == "generator raised StopIteration"
    stats = compare(fn, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


class _Ends:
    """An iterator whose StopIteration carries 7."""

    def __init__(self):
        self.n = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.n += 1
        if self.n > 2:
            raise StopIteration(7)
        return self.n


def yield_from_map_over_ending_iterator(x):
    def g():
        r = yield from map(lambda v: v * 2, _Ends())
        s = yield from filter(None, _Ends())
        yield r, s

    return x * 2, list(g())


def yield_from_map_over_returning_generator(x):
    def inner():
        yield 1
        return 5

    def g():
        r = yield from map(lambda v: v, inner())
        yield r

    return x * 2, list(g())


def next_of_exhausted_map(x):
    m = map(lambda v: v, [1])
    next(m)
    try:
        next(m)
    except StopIteration as e:
        return x + 1, e.args, e.value


def test_the_inner_iterators_stop_shows_through_map_and_filter():
    # C's map and filter leave the StopIteration their iterator raised set: yield from sees its value
    assert yield_from_map_over_ending_iterator(torch.zeros(1))[1][-1] == (7, 7)
    assert yield_from_map_over_returning_generator(torch.zeros(1))[1][-1] == 5
    for fn in (yield_from_map_over_ending_iterator, yield_from_map_over_returning_generator, next_of_exhausted_map):
        stats = compare(fn, torch.arange(3.0))
        assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), (fn.__name__, stats)
