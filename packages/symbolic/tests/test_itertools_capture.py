"""``itertools.groupby`` and ``combinations_with_replacement`` in compiled code (issue 29): their Python
stand-ins are traced, so loops over groups and combinations are one graph with eager's answer."""

import itertools

import torch
from harness import check

X = torch.arange(3.0)


def sums_groups(x):
    out = x
    for key, group in itertools.groupby([1, 1, 2, 3, 3, 3], key=lambda v: v % 3):
        out = out + key * len(list(group))
    firsts = [next(g) for _, g in itertools.groupby("aabbbc")]  # each group read before the next one
    return out, firsts


def skips_groups(x):
    groups = list(itertools.groupby([1, 1, 2]))  # the outer iterator ran on: the groups it passed are empty
    return x + len(groups) + sum(len(list(g)) for _, g in groups)


def pairs_with_replacement(x):
    out = x
    for a, b in itertools.combinations_with_replacement([1, 2, 3], 2):
        out = out + a * b
    return out


def test_groupby_is_one_graph():
    check(sums_groups, X)


def test_groups_passed_by_the_outer_iterator_are_empty_as_in_eager():
    check(skips_groups, X)


def test_combinations_with_replacement_is_one_graph():
    check(pairs_with_replacement, X)
