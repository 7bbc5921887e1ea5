"""``<``, ``<=``, ``>``, ``>=`` between two lists or two tuples the trace holds (what ``heapq.merge``
compares, ``[value, order, next]`` entries): CPython's order, the first differing items deciding and the
lengths when one runs out, in one graph."""

import torch
from harness import check

X = torch.arange(3.0)


def orders_lists(x):
    a, b = [1, 2, x], [1, 3]
    same = [x]
    return x + 1, a < b, a >= b, [1, 2] <= [1, 2], [1, 2] < [1, 2, 0], [3] > [2, 9], same <= same


def orders_tuples_with_tensor_items(x):
    t = (2, x + 1)
    return t[1] * 2, (1, x) < t, t > (2,), (x.shape[0], "a") < (x.shape[0], "b")


def test_lists_are_ordered_as_cpython_orders_them():
    check(orders_lists, X)


def test_tuples_with_tensors_are_ordered_by_their_first_differing_items():
    check(orders_tuples_with_tensor_items, X)
