"""Consumers that stop at the first item deciding their answer (``set.isdisjoint``, ``set.issuperset``,
``in``, ``any``, ``all``, unpacking, ``zip``) take no more items from a generator than eager does: the
generator's side effects (here, appending to ``seen``) happen exactly as often (issue 29, wrong answer 2).
Those that need every item (``issubset``, ``union``, ``min``) still take them all."""

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES

X = torch.ones(3)


def counted(seen, n=10):
    for i in range(n):
        seen.append(i)
        yield i


@case(X, [])
def isdisjoint_stops_at_the_first_common_item(x, seen):
    return x + 1, {2, 4, 5}.isdisjoint(counted(seen))


@case(X, [])
def frozenset_isdisjoint_stops(x, seen):
    return x + 1, frozenset({2, 4, 5}).isdisjoint(counted(seen))


@case(X, [])
def isdisjoint_true_takes_everything(x, seen):
    return x + 1, {20, 40}.isdisjoint(counted(seen, 4))


@case(X, [])
def issuperset_stops_at_the_first_missing_item(x, seen):
    return x + 1, {0, 1, 2}.issuperset(counted(seen))


@case(X, [])
def issuperset_of_sets_and_lists(x, seen):
    s = {0, 1, 2}
    return x + 1, s.issuperset({1, 2}), s.issuperset([3]), s.isdisjoint({3, 4}), s.isdisjoint([5, 2])


@case(X, [])
def issubset_takes_everything(x, seen):
    return x + 1, {0, 1}.issubset(counted(seen))


@case(X, [])
def union_takes_everything(x, seen):
    return x + 1, {1}.union(counted(seen, 4))


@case(X, [])
def membership_in_a_generator_stops_at_the_match(x, seen):
    return x + 1, 3 in counted(seen), 3 not in counted(seen)


@case(X, [])
def membership_in_a_list_iterator(x, seen):
    it = iter([1, 2, 3, 4])
    found = 2 in it
    return x + 1, found, list(it)


@case(X, [])
def any_and_all_stop(x, seen):
    return x + 1, any(i > 2 for i in counted(seen)), all(i < 3 for i in counted(seen))


@case(X, [])
def zip_stops_at_the_shortest(x, seen):
    return x + 1, list(zip(counted(seen), range(3)))


@case(X, [])
def min_takes_everything(x, seen):
    return x + min(counted(seen, 4))


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_generators_run_as_far_as_in_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
