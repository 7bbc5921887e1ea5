"""``map``, ``filter``, ``zip`` and ``enumerate`` objects and list reverse iterators passed in (issue 29, after
test/dynamo/cpython/3_13/test_iter.py): walked in the graph through their inner iterators, and left where eager
leaves them, seen by the caller afterwards (their inner iterators too, an enumerate's count too). They were a break
at their first ``next()`` ("next() on map object: not an iterator the translator models")."""

import functools
import types

import torch

import loom


def _run(fn, make, rest, breaks=0, graphs=1):
    """``fn`` on ``make()``'s arguments, eager and compiled: the same result, and the same items still to come
    (``rest(args)`` drains what the caller would read next)."""
    loom.reset()
    eager_args, loom_args = make(), make()
    expected = fn(*eager_args)
    report = loom.explain(fn)(*loom_args)
    compiled_args = make()
    actual = loom.compile(fn, backend="eager")(*compiled_args)
    torch.testing.assert_close(actual, expected)
    assert rest(compiled_args) == rest(eager_args)
    assert (report.graph_count, report.graph_break_count) == (graphs, breaks), [b.why for b in report.breaks]
    return report


def _one_next(x, it):
    return x + next(it)


def _drain(args):
    return list(args[-1])


def test_next_of_a_map_argument_leaves_it_advanced():
    _run(_one_next, lambda: (torch.ones(2), map(lambda v: v * 2.0, [1, 2, 3])), _drain)


def test_a_map_over_two_iterators_the_caller_keeps():
    def make():
        a, b = iter([1.0, 2.0, 3.0]), iter((10.0, 20.0))
        return torch.ones(2), a, b, map(lambda p, q: p * q, a, b)

    _run(lambda x, a, b, m: x + sum(m) + next(a, 0.0), make, lambda args: (list(args[1]), list(args[2])))


def test_a_filter_argument_taken_part_way():
    def two(x, it):
        return x + next(it) * next(it)

    _run(two, lambda: (torch.zeros(2), filter(lambda v: v % 2, [1, 2, 4, 5, 7, 8])), _drain)
    _run(two, lambda: (torch.zeros(2), filter(None, [0, 3, 0, 4, 5])), _drain)


def test_a_zip_argument_drops_the_item_of_the_longer_iterator():
    def make():
        a, b = iter([1.0, 2.0, 3.0]), iter([10.0])
        return torch.ones(2), a, zip(a, b)

    def both(x, a, z):
        first = next(z)
        return x + first[0] * first[1] + next(z, (0.0, 0.0))[0]

    _run(both, make, lambda args: list(args[1]))


def test_an_enumerate_argument_keeps_its_count_for_the_caller():
    def two(x, it):
        i, v = next(it)
        j, w = next(it)
        return x + i * v + j * w

    _run(two, lambda: (torch.ones(2), enumerate([5.0, 6.0, 7.0, 8.0], 3)), _drain)
    _run(two, lambda: (torch.ones(2), enumerate((5.0, 6.0, 7.0))), _drain)


def test_an_enumerate_whose_list_the_frame_clears_afterwards():
    def make():
        items = [1.0, 2.0, 3.0]
        return torch.ones(2), items, enumerate(items)

    def clear(x, items, it):
        i, v = next(it)
        items.clear()
        return x + i + v

    _run(clear, make, lambda args: (list(args[2]), args[1]))


def test_an_enumerate_reaching_an_item_the_frame_appended_is_a_break():
    def make():
        items = [1.0]
        return torch.ones(2), items, enumerate(items)

    def appended(x, items, it):
        next(it)
        items.append(4.0)
        i, v = next(it)
        return x + i * v

    report = _run(appended, make, lambda args: (list(args[2]), args[1]), breaks=1)
    assert "past its items on entry" in report.breaks[0].what


def test_a_reversed_list_argument_walks_the_live_list():
    def make():
        items = [1.0, 2.0, 3.0]
        return torch.ones(2), items, reversed(items)

    def appended(x, items, it):
        first = next(it)
        items[0] = 9.0
        return x + first + sum(it)

    _run(appended, make, lambda args: (list(args[2]), args[1]))
    _run(_one_next, lambda: (torch.ones(2), reversed([4.0, 5.0])), _drain)


def test_a_loop_with_a_graph_break_over_a_map_argument():
    def loop(x, it):
        for v in it:
            x = x + v
            if v == 2:
                print("", end="")  # a break inside the loop: the resumed code goes on with the real map
            if v > 3:
                break
        return x

    _run(loop, lambda: (torch.ones(2), map(float, [1, 2, 3, 4, 5])), _drain, breaks=1, graphs=2)


def test_a_map_kept_on_an_object_moves_with_each_call():
    holder = types.SimpleNamespace(it=map(lambda v: v + 0.5, [1, 2, 3]))
    expected = [v + 0.5 for v in (1, 2, 3)]
    loom.reset()
    compiled = loom.compile(lambda x, h: x + next(h.it), backend="eager")
    for value in expected[:2]:
        assert torch.equal(compiled(torch.zeros(1), holder), torch.tensor([value]))
    assert list(holder.it) == expected[2:]
    assert loom.stats()["graph_breaks"] == 0


def test_another_function_or_strictness_recompiles():
    loom.reset()
    compiled = loom.compile(lambda x, it: x + sum(a + b for a, b in it), backend="eager")
    assert torch.equal(compiled(torch.zeros(1), zip([1, 2], [3, 4])), torch.tensor([10.0]))
    try:
        compiled(torch.zeros(1), zip([1, 2], [3], strict=True))
        raise AssertionError("a strict zip of unequal lengths raises")
    except ValueError as exc:
        assert "shorter" in str(exc)
    scaled = loom.compile(lambda x, it: x + next(it), backend="eager")
    assert torch.equal(scaled(torch.zeros(1), map(functools.partial(max, 3), [1])), torch.tensor([3.0]))
    assert torch.equal(scaled(torch.zeros(1), map(functools.partial(min, 3), [1])), torch.tensor([1.0]))


def test_a_map_argument_that_moves_between_calls_stops_recompiling():
    it = map(lambda v: v * 2.0, range(10))
    loom.reset()
    compiled = loom.compile(_one_next, backend="eager")
    for step in range(8):
        assert torch.equal(compiled(torch.zeros(1), it), torch.tensor([2.0 * step]))
    assert next(it) == 16.0
    stats = loom.stats()
    # as a list iterator argument: once at another position, it is an opaque object (one break per call), not a
    # graph per position
    assert stats["recompiles"] == 2 and stats["graph_breaks"] == 1


def test_an_enumerate_wrapped_after_its_list_grew_counts_the_list_on_entry():
    def make():
        items = [1.0]
        return torch.ones(2), items, enumerate(items)

    def grown_first(x, items, it):
        items.append(2.0)
        i, v = next(it)
        j, w = next(it)  # the appended item: the real enumerate could not take it before the append
        return x + i * v + j * w

    _run(grown_first, make, lambda args: (list(args[2]), args[1]), breaks=1)


def test_a_reversed_list_whose_list_shrank_below_it_is_a_break():
    def make():
        items = [1.0, 2.0, 3.0]
        return torch.ones(2), items, reversed(items)

    def shrunk(x, items, it):
        v = next(it)
        items.pop()
        items.pop()
        return x + v

    def rest(args):
        args[1].extend([7.0, 8.0])  # eager's iterator stands past the list's end: it sees what grows back
        return list(args[2])

    _run(shrunk, make, rest, breaks=1, graphs=0)


def test_str_bytes_and_reversed_tuple_iterators_passed_in():
    def two(x, it):
        first = next(it)
        return x + len(str(first)) + len(list(zip(it, range(1))))

    for make_iterator in (lambda: iter("abc"), lambda: iter("\u00e9ab"), lambda: iter(b"xyz"),
                          lambda: reversed((1.0, 2.0, 3.0)), lambda: zip("abc", [1.0, 2.0]), lambda: enumerate("hey")):
        _run(two, lambda make_iterator=make_iterator: (torch.zeros(1), make_iterator()), _drain)
