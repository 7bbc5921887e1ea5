"""``min()``/``max()`` of one-element tensors made in the trace (issue 29): eager returns one of the items,
picked by comparing values in Python. Where the items are alike (shape, dtype, device, requires_grad) and
nothing can reach them after the call, a ``where`` per item is that pick in value and gradient (the whole
gradient to the item picked, also at a tie), so the call stays in the graph. Where the pick's identity
could still be seen (an item kept in a local, an in-place change, ``is``) or the items differ, it breaks."""

import torch
from breaks_harness import compare

import loom


def min_of_two_reductions(x):
    return x + min(x.sum(), x.max()) + max(x.min(), x.mean(), x[0] * 1)


def tie_gradient(x):
    (min(x.sum(), x.max()) * 2).backward()
    return x.grad


def kept_in_a_local(x):
    s = x.sum()
    m = min(s, x.max())
    m.add_(1)  # eager changes s itself when s is picked
    return s


def identity_tested(x):
    s, t = x.sum(), x.max()
    return min(s, t) is s


def items_differ(x):
    return min(x.sum(), x.max().double())


def test_alike_items_nothing_else_reaches_stay_in_the_graph():
    stats = compare(min_of_two_reductions, torch.tensor([0.0, 1.0, 2.0]))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_a_tie_gives_the_whole_gradient_to_the_first_item():
    x = torch.tensor([0.0, 0.0, 3.0])  # sum == max: eager keeps the sum
    expected = tie_gradient(x.clone().requires_grad_())
    loom.reset()
    actual = loom.compile(tie_gradient, backend="eager")(x.clone().requires_grad_())
    torch.testing.assert_close(actual, expected)
    torch.testing.assert_close(actual, torch.full((3,), 2.0))


def test_a_pick_that_could_be_told_from_a_copy_breaks():
    for fn in (kept_in_a_local, identity_tested, items_differ):
        stats = compare(fn, torch.tensor([0.0, 1.0, 2.0]))
        assert stats["graph_breaks"] >= 1, (fn.__name__, stats)
