"""Consumers that stop at the first item deciding their answer (``set.isdisjoint``, ``set.issuperset``,
``in``, ``any``, ``all``, unpacking, ``zip``) take no more items from a generator than eager does: the
generator's side effects (here, appending to ``seen``) happen exactly as often (issue 29, wrong answer 2).
``intersection`` stops once every member was found, and ``issubset`` too from CPython 3.12; those that
need every item (``union``, ``min``) still take them all."""

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
def issubset_as_this_python_does(x, seen):
    # 3.11 reads the generator whole; 3.12 and later stop once every member was found
    return x + 1, {0, 1}.issubset(counted(seen)), {0, 20}.issubset(counted(seen)), set().issubset(counted(seen, 3))


@case(X, [])
def intersection_stops_once_every_member_was_found(x, seen):
    return x + 1, {0, 5}.intersection(counted(seen)), set().intersection(counted(seen, 3))


@case(X, [])
def intersection_of_several_iterables(x, seen):
    return x + 1, {0, 1, 7}.intersection(counted(seen), [0, 1]), {0, 1, 7}.intersection([0, 1], counted(seen))


@case(X, [])
def intersection_update_stops_too(x, seen):
    s = {0, 5, 30}
    s.intersection_update(counted(seen))
    t = {1, 2}
    t.intersection_update(counted(seen))
    return x + 1, s, t


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
