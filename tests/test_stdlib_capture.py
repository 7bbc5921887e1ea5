"""Standard-library C builtins captured through their polyfills (loom_symbolic.polyfills): one graph,
no break, eager's answers."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
from collections import namedtuple

import pytest
import torch
from breaks_harness import compare


def chain_sum(x):
    return x + sum(itertools.chain([1, 2], (3,))) + sum(itertools.chain.from_iterable([[1], [2]]))


def chain_of_tensors(x):
    return [t * 2 for t in itertools.chain([x], [x + 1])]


def product_and_combinations(x):
    out = x
    for a, b in itertools.product([1, 2], [3, 4]):
        out = out + a * b
    return out, len(list(itertools.combinations([1, 2, 3], 2)))


def permutations_weighted(x):
    return sum(x * (p[0] - p[1]) for p in itertools.permutations([1, 2, 3], 2))


def islice_and_accumulate(x):
    return x + sum(itertools.islice(range(10), 2, 8, 2)) + list(itertools.accumulate([1, 2, 3]))[-1]


def pairwise_diffs(x):
    return [b - a for a, b in itertools.pairwise([x, x * 2, x * 4])]


def repeat_count_zip_longest(x):
    counter = itertools.count(5)
    return x + sum(itertools.repeat(2, 3)) + next(counter) + next(counter), list(itertools.zip_longest([1], [2, 3]))


def starmap_takewhile_dropwhile(x):
    return (x + sum(itertools.starmap(operator.mul, [(1, 2), (3, 4)])),
            list(itertools.takewhile(lambda v: v < 3, [1, 2, 3, 1])),
            list(itertools.dropwhile(lambda v: v < 3, [1, 2, 3, 1])))


def reduce_tensors(x):
    return functools.reduce(operator.add, [x, x * 2, x * 3]), functools.reduce(lambda a, b: a * b, [1, 2, 3], 10)


def getters(x):
    pairs = [(1, x), (0, x * 2)]
    pairs.sort(key=operator.itemgetter(0))
    return pairs[0][1] + operator.attrgetter("real")(3) + operator.methodcaller("count", 1)([1, 1, 2])


def min_max_with_keys(x):
    scores = {"a": 3, "b": 1}
    best = min(scores, key=lambda k: scores[k])
    return x + scores[best] + max([1, 5, 2], key=lambda v: -v), best


Point = namedtuple("Point", "x y")


def namedtuple_replace_and_asdict(t):
    p = Point(t, 2)._replace(y=5)
    return p.x + p.y, p._asdict()["y"], type(p) is Point


def namedtuple_replace_bad_field(t):
    return Point(t, 2)._replace(z=1)


class Named:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Named({self.name!r})"


class Shown(Named):
    def __str__(self):
        return "<" + self.name + ">"


def str_and_repr_of_objects(x):
    return x + len(str(Named("a"))) + len(repr(Shown("bc"))) + len(str(Shown("d")))


def dict_fromkeys_and_union(x):
    d = dict.fromkeys("abc", 0) | {"z": 1}
    return x + len(d) + d["z"], list(d)


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: int
    b: int = 2


def frozen_dataclass_and_replace(x):
    f = dataclasses.replace(Frozen(1), a=5)
    return x + f.a * f.b, f


def frozen_dataclass_assignment_raises(x):
    f = Frozen(1)
    f.a = 3
    return x + f.a


def islice_bad_bounds(x):
    return list(itertools.islice([x], -1))


CASES = [chain_sum, chain_of_tensors, product_and_combinations, permutations_weighted, islice_and_accumulate,
         pairwise_diffs, repeat_count_zip_longest, starmap_takewhile_dropwhile, reduce_tensors, getters,
         min_max_with_keys, namedtuple_replace_and_asdict, str_and_repr_of_objects, dict_fromkeys_and_union,
         frozen_dataclass_and_replace]


@pytest.mark.parametrize("fn", CASES, ids=[fn.__name__ for fn in CASES])
def test_captured_in_one_graph(fn):
    stats = compare(fn, torch.arange(3.0))
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats


@pytest.mark.parametrize("fn", [islice_bad_bounds, namedtuple_replace_bad_field, frozen_dataclass_assignment_raises])
def test_errors_are_eagers(fn):
    compare(fn, torch.ones(2))
