"""A tensor passed in as a key of one set and its ``id()`` as a member of another (issue 29, CPython's test_setcomps
in PyTorch's Dynamo suite: ``{t for t in ts}`` beside ``{id(t) for t in ts}``): one graph, as torch.compile
makes, where any trace using both for one tensor broke. The tensor's key hashes as its real id, as eager's does,
so the two meet only where they share a dict or set; there eager compares them with ``Tensor.__eq__`` and
the trace still breaks, with eager's answer."""

import torch
from breaks_harness import compare


def sets_apart(x, y):
    ts = [x, y, x]
    by_identity = {id(t) for t in ts}
    unique = {t for t in ts}
    return x + len(by_identity) * 10 + len(unique), id(x) in by_identity, y in unique


def dicts_apart(x):
    y = x.mul_(2)  # the same tensor as x
    counts = {x: 1}
    seen = {id(y): "y"}
    counts[y] += 1
    return x + counts[x], seen[id(x)]


def one_set_with_both(x):
    s = {x, id(x)}
    return x + len(s)


def test_a_tensor_and_its_id_in_different_containers_are_one_graph():
    stats = compare(sets_apart, torch.arange(3.0), torch.ones(3))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
    stats = compare(dicts_apart, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_a_tensor_and_its_id_in_one_set_still_break():
    stats = compare(one_set_with_both, torch.ones(1))
    assert stats["graph_breaks"] >= 1, stats
