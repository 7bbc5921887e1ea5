"""Each polyfill against the builtin it stands for, natively, on the same inputs: results, how much of
an iterator it consumed, and the exceptions it raises."""

from __future__ import annotations

import functools
import itertools
import operator
import random
from types import SimpleNamespace

import pytest

from loom_symbolic import polyfills


def replacement(original):
    found = polyfills.replacement_for(original)
    assert found is not None, f"{original} has no polyfill"
    return found


def outcome(fn, *args, take=None, **kwargs):
    """What calling ``fn`` gives: the items (the first ``take`` of an infinite iterator) or the error."""
    try:
        result = fn(*args, **kwargs)
        if take is not None:
            return ("items", list(itertools.islice(result, take)))
        if hasattr(result, "__next__"):
            return ("items", list(result))
        return ("value", result)
    except Exception as exc:
        return ("raised", type(exc), str(exc))


ITERATOR_CASES = [
    (itertools.chain, ([1, 2], (), "ab"), {}),
    (itertools.chain, (), {}),
    (itertools.product, ([1, 2], "xy"), {}),
    (itertools.product, ([0, 1],), {"repeat": 3}),
    (itertools.product, (), {}),
    (itertools.product, ([1],), {"repeat": -1}),
    (itertools.combinations, ("abcd", 2), {}),
    (itertools.combinations, ("ab", 3), {}),
    (itertools.combinations, ("ab", 0), {}),
    (itertools.combinations, ("ab", -1), {}),
    (itertools.permutations, ("abc",), {}),
    (itertools.permutations, ("abcd", 2), {}),
    (itertools.permutations, ("ab", 3), {}),
    (itertools.permutations, ("ab", -1), {}),
    (itertools.islice, (range(10), 3), {}),
    (itertools.islice, (range(10), 2, 8, 3), {}),
    (itertools.islice, (range(10), 2, None), {}),
    (itertools.islice, (range(3), 5, 9), {}),
    (itertools.islice, (range(10), -1), {}),
    (itertools.islice, (range(10), 0, 5, 0), {}),
    (itertools.accumulate, ([1, 2, 3, 4],), {}),
    (itertools.accumulate, ([3, 1, 4],), {"func": max}),
    (itertools.accumulate, ([1, 2],), {"initial": 10}),
    (itertools.accumulate, ([],), {}),
    (itertools.pairwise, ("abcd",), {}),
    (itertools.pairwise, ("a",), {}),
    (itertools.repeat, ("x", 3), {}),
    (itertools.repeat, ("x", -2), {}),
    (itertools.zip_longest, ([1, 2, 3], "ab"), {}),
    (itertools.zip_longest, ([1], [], [2, 3]), {"fillvalue": 0}),
    (itertools.zip_longest, (), {}),
    (itertools.starmap, (pow, [(2, 3), (3, 2)]), {}),
    (itertools.takewhile, (lambda v: v < 3, [1, 2, 3, 1]), {}),
    (itertools.dropwhile, (lambda v: v < 3, [1, 2, 3, 1]), {}),
    (itertools.compress, ("abcd", [1, 0, 1]), {}),
    (itertools.filterfalse, (None, [0, 1, 2, 0]), {}),
    (itertools.filterfalse, (lambda v: v % 2, range(6)), {}),
    (itertools.combinations_with_replacement, ("abc", 2), {}),
    (itertools.combinations_with_replacement, ("ab", 0), {}),
    (itertools.combinations_with_replacement, ("", 2), {}),
]


@pytest.mark.parametrize(("original", "args", "kwargs"), ITERATOR_CASES,
                         ids=[f"{o.__name__}-{i}" for i, (o, _, _) in enumerate(ITERATOR_CASES)])
def test_iterators_match_itertools(original, args, kwargs):
    assert outcome(replacement(original), *args, **kwargs) == outcome(original, *args, **kwargs)


@pytest.mark.parametrize(("original", "args"), [
    (itertools.islice, (range(3), -1)),
    (itertools.islice, (range(3), 0, 3, 0)),
    (itertools.combinations, ("ab", -1)),
    (itertools.permutations, ("ab", -1)),
    (itertools.combinations_with_replacement, ("ab", -1)),
    (itertools.product, ("ab",)),
])
def test_bad_arguments_raise_at_the_call_as_in_c(original, args):
    def at_call(fn):
        try:
            fn(*args, repeat=-1) if original is itertools.product else fn(*args)
        except ValueError as exc:
            return str(exc)
        return None

    assert at_call(replacement(original)) == at_call(original) is not None


def _walk_groups(groupby, data, key, steps):
    """Interleave next() on groupby's outer iterator (step 0) and on the groups it handed out."""
    events, outer, groups = [], groupby(data, key), []
    for step in steps:
        source = outer if step == 0 or not groups else groups[step % len(groups)]
        try:
            item = next(source)
        except StopIteration:
            events.append(("stop", step == 0))
            continue
        if source is outer:
            groups.append(item[1])
            item = item[0]
        events.append(item)
    return events


def test_groupby_matches_itertools_including_groups_ended_by_the_outer_iterator():
    rng = random.Random(0)
    for _ in range(400):
        data = [rng.randint(0, 2) for _ in range(rng.randint(0, 7))]
        key = rng.choice([None, lambda v: v // 2])
        steps = [rng.randint(0, 3) for _ in range(12)]
        expected = _walk_groups(itertools.groupby, data, key, steps)
        assert _walk_groups(replacement(itertools.groupby), data, key, steps) == expected, (data, steps)


def test_chain_from_iterable_matches():
    fn = polyfills.attribute_replacement(itertools.chain, "from_iterable")
    assert list(fn([[1], (2, 3), "x"])) == list(itertools.chain.from_iterable([[1], (2, 3), "x"]))


@pytest.mark.parametrize("original", [itertools.count, itertools.repeat])
def test_infinite_iterators_match(original):
    args = (5, 2) if original is itertools.count else ("z",)
    assert outcome(replacement(original), *args, take=6) == outcome(original, *args, take=6)


@pytest.mark.parametrize(("original", "args"), [
    (itertools.islice, (2, 5)),
    (itertools.islice, (3,)),
    (itertools.takewhile, (lambda v: v < 4,)),
    (itertools.pairwise, ()),
    (itertools.chain, ()),
])
def test_iterators_consume_their_input_as_lazily_as_the_real_ones(original, args):
    def consumed(fn):
        source = iter(range(10))
        gen = fn(source, *args) if original is not itertools.takewhile else fn(args[0], source)
        first = next(gen)
        return first, list(source)[:3]

    assert consumed(replacement(original)) == consumed(original)


def test_reduce_matches():
    reduce = replacement(functools.reduce)
    assert reduce(operator.add, [1, 2, 3]) == functools.reduce(operator.add, [1, 2, 3])
    assert reduce(operator.mul, [], 7) == functools.reduce(operator.mul, [], 7)
    assert outcome(reduce, operator.add, []) == outcome(functools.reduce, operator.add, [])
    # not iterable: the message is reduce's own, with no __context__ (issue 29)
    assert outcome(reduce, operator.add, 3) == outcome(functools.reduce, operator.add, 3)
    with pytest.raises(TypeError) as raised:
        reduce(operator.add, 3)
    assert raised.value.__context__ is None


def test_operator_getters_match():
    obj = SimpleNamespace(a=SimpleNamespace(b=3), c=4)
    assert replacement(operator.itemgetter)(1)("xyz") == operator.itemgetter(1)("xyz")
    assert replacement(operator.itemgetter)(0, 2)("xyz") == operator.itemgetter(0, 2)("xyz")
    assert replacement(operator.attrgetter)("a.b")(obj) == operator.attrgetter("a.b")(obj)
    assert replacement(operator.attrgetter)("c", "a.b")(obj) == operator.attrgetter("c", "a.b")(obj)
    assert outcome(replacement(operator.attrgetter), 3) == outcome(operator.attrgetter, 3)
    assert replacement(operator.methodcaller)("count", 1)([1, 1, 2]) == operator.methodcaller("count", 1)([1, 1, 2])
    assert (replacement(operator.methodcaller)("split", sep=",")("a,b")
            == operator.methodcaller("split", sep=",")("a,b"))
    assert outcome(replacement(operator.methodcaller), 1) == outcome(operator.methodcaller, 1)


@pytest.mark.parametrize("name", ["min", "max"])
@pytest.mark.parametrize(("args", "kwargs"), [
    (([3, 1, 2],), {}),
    (([3, 1, 2],), {"key": lambda v: -v}),
    ((3, 1, 2), {}),
    (([(1, "a"), (1, "b"), (0, "c")],), {"key": lambda p: p[0]}),  # ties: the first one wins
    (([],), {"default": 7}),
    (([],), {}),
    ((), {}),
    ((1, 2), {"default": 0}),
])
def test_min_and_max_match(name, args, kwargs):
    original = getattr(__builtins__, name) if not isinstance(__builtins__, dict) else __builtins__[name]
    fallback = polyfills.fallback_for(original)
    assert outcome(fallback, *args, **kwargs) == outcome(original, *args, **kwargs)


def test_dict_fromkeys_matches():
    fromkeys = polyfills.attribute_replacement(dict, "fromkeys")
    assert fromkeys("abc") == dict.fromkeys("abc")
    assert fromkeys([1, 2], 0) == dict.fromkeys([1, 2], 0)
    shared = fromkeys("ab", [])
    assert shared["a"] is shared["b"], "one value object for every key, as in C"


def test_the_originals_are_left_alone():
    assert itertools.chain.__module__ == "itertools" and functools.reduce.__module__ == "_functools"
    for original in polyfills.originals():
        replacement = polyfills.replacement_for(original) or polyfills.fallback_for(original)
        assert replacement.__loom_polyfill_of__ is original


def test_iter_with_sentinel_matches():
    polyfill = polyfills.fallback_for(iter)

    def calls(values):
        it = iter(values)
        return lambda: next(it)

    for values, sentinel in (([1, 2, 0, 3], 0), ([1, 2], 9), ([], 0), ([None, 1], None)):
        assert outcome(polyfill, calls(values), sentinel) == outcome(iter, calls(values), sentinel)
    assert outcome(polyfill, 3, 0) == outcome(iter, 3, 0)
    assert outcome(polyfill, 3, 0)[1] is TypeError


def test_iter_with_sentinel_asks_the_sentinel_first():
    # C compares sentinel == value: the sentinel's __eq__ runs first, once per value (the value's never does)
    polyfill = polyfills.fallback_for(iter)

    class Noisy:
        __hash__ = None

        def __init__(self, v, log):
            self.v, self.log = v, log

        def __eq__(self, other):
            self.log.append(self.v)
            return isinstance(other, Noisy) and other.v == self.v

    def run(make):
        log = []
        values = iter([Noisy(1, log), Noisy(2, log), Noisy(3, log)])
        got = [n.v for n in make(lambda: next(values), Noisy(2, log))]
        return got, log

    assert run(polyfill) == run(iter) == ([1], [2, 2])


def test_math_prod_matches():
    import math

    prod = polyfills.fallback_for(math.prod)
    for args, kwargs in [(([2, 3.5, 4],), {}), (([],), {}), (([2, 3],), {"start": 0.5}), ((range(1, 6),), {})]:
        assert prod(*args, **kwargs) == math.prod(*args, **kwargs)


def test_math_fsum_matches():
    import math

    fsum = polyfills.fallback_for(math.fsum)

    class Halves:
        def __float__(self):
            return 0.5

    class Big(float):
        def __float__(self):
            return 100.0  # C reads a float subclass's own value, not this

    cases = [[], [0.1] * 10, [1e100, 1.0, -1e100, 1e-100], [1, 2**60, True], [Halves(), Halves()], [Big(1.5)],
             [math.inf, 1.0], [math.nan], [1e308, 1e308, 5.0], [math.inf, -math.inf], ["a"], [1j], [10**400]]
    for items in cases:
        outcomes = []
        for run in (math.fsum, fsum):
            taken = []

            def each(items=items, taken=taken):
                for item in items:
                    taken.append(item)
                    yield item

            try:
                outcomes.append((repr(run(each())), len(taken)))
            except (TypeError, ValueError, OverflowError) as exc:
                outcomes.append((type(exc), str(exc), len(taken)))
        assert outcomes[0] == outcomes[1], items
