"""``list.sort`` empties the list while it sorts, as CPython does: a key function or a comparison sees it
empty, and items it appends are dropped and raise ``ValueError: list modified during sort`` once the sorted
items are back. The translator sorted in place with the items still visible (a key reading ``len(lst)``
got the wrong length, and a comparison appending to the list neither raised nor was dropped)."""

import functools

import torch
from harness import check


def key_sees_empty_list(x):
    lst = [1, 3, 2]
    sizes = []

    def key(v):
        sizes.append(len(lst))
        return v

    lst.sort(key=key)
    return x + sum(sizes), lst, sizes


def comparison_appends(x):
    lst = [1, 3, 2]

    def grows(a, b):
        lst.append(4)
        return (a > b) - (a < b)

    try:
        lst.sort(key=functools.cmp_to_key(grows))
    except ValueError as e:
        return x + 1, lst, str(e)
    return x, lst, ""


def argument_sorted_with_reads(x, lst):
    lst.sort(key=lambda v: -v + len(lst))
    return x * lst[0], lst


def test_key_sees_the_list_empty():
    check(key_sees_empty_list, torch.ones(3))


def test_items_added_while_sorting_raise_and_are_dropped():
    check(comparison_appends, torch.ones(3))


def test_argument_list_sorted_in_place():
    check(argument_sorted_with_reads, torch.ones(3), [2, 5, 1])
