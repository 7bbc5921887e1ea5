"""A range iterator passed in (``f(x, iter(range(10)))``, Paddle's SOT test_inplace_api, issue 29) is walked in the
graph: the range it has left is guarded and the real iterator takes the trace's steps after the graph. It was a
break at the loop ("iteration over range_iterator"), while list and tuple iterators were already modelled."""

import torch

import loom


def _loop_over(x, it):
    for i in it:
        x = x + i
    return x


def _two_nexts(x, it):
    return x + next(it) * next(it)


def _writes_in_loop(x, y, it):
    ret = 0
    for i in it:
        x[0] = 1
        held = [y]
        y[1] = 2 * i + 1
        ret += x[0] + x[1] + held[0][1] + y[0] + y[1]
    return ret


def _run(fn, make, skip=0):
    loom.reset()
    eager_args, loom_args = make(), make()
    for _ in range(skip):
        next(eager_args[-1])
        next(loom_args[-1])
    expected = fn(*eager_args)
    actual = loom.compile(fn, backend="eager")(*loom_args)
    torch.testing.assert_close(actual, expected)
    assert list(loom_args[-1]) == list(eager_args[-1])  # the real iterator is where eager leaves it
    return loom.stats()


def test_a_loop_over_a_range_iterator_argument_is_one_graph():
    for skip in (0, 2):
        stats = _run(_loop_over, lambda: (torch.ones(2), iter(range(4))), skip)
        assert (stats["graphs"], stats["graph_breaks"]) == (1, 0)


def test_next_of_a_range_iterator_argument_leaves_it_advanced():
    stats = _run(_two_nexts, lambda: (torch.ones(2), iter(range(2, 20, 3))), 1)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0)


def test_writes_in_a_loop_over_a_range_iterator():
    stats = _run(_writes_in_loop, lambda: (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]), iter(range(5))))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0)


def test_an_exhausted_range_iterator_argument():
    stats = _run(_loop_over, lambda: (torch.ones(2), iter(range(2))), 2)
    assert stats["graph_breaks"] == 0


def test_a_guard_on_the_range_left_recompiles_for_another_position():
    loom.reset()
    compiled = loom.compile(_loop_over, backend="eager")
    assert torch.equal(compiled(torch.zeros(1), iter(range(4))), torch.tensor([6.0]))
    it = iter(range(4))
    next(it)
    assert torch.equal(compiled(torch.zeros(1), it), torch.tensor([6.0]))
    assert loom.stats()["recompiles"] == 1
