"""``torch.return_types.topk(items)`` made in the trace (what pytree's ``tree_unflatten`` and ``tree_map`` do for a
struct sequence): a record of the items, read by name and index, returned as the real type, in one graph.
A type that refuses instances (``sys.version_info``'s) or the wrong number of items raise CPython's TypeError."""

import sys

import torch
from harness import check
from torch.utils import _pytree as pytree

X = torch.arange(4.0)


def made_directly(x):
    r = torch.return_types.topk([x + 1, x.long()])
    return r.values * 2, r[1], len(r), type(r).__name__


def through_tree_map(x):
    r = pytree.tree_map(lambda t: t * 3, x.view(2, 2).max(dim=1))
    return r.values, r.indices, type(r)


def made_from_generator(x):
    return torch.return_types.sort(t for t in (x, x - 1))


def wrong_sizes(x):
    messages = []
    for made in (lambda: torch.return_types.topk((x,)), lambda: type(sys.version_info)((3, 1, 0, "final", 0))):
        try:
            made()
        except TypeError as exc:
            messages.append(str(exc))
    return x + 1, messages


def test_made_directly():
    check(made_directly, X)


def test_through_tree_map_and_returned():
    check(through_tree_map, X)
    check(made_from_generator, X)


def test_refusals_raise_as_cpython():
    check(wrong_sizes, X)
