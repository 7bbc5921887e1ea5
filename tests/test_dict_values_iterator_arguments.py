"""A dict's values iterator passed in (issue 29, after test/dynamo/cpython/3_13/test_iter.py and test_dict.py):
walked in the graph over the dict it walks, from the position its remaining values show, and left where eager
leaves it. It was a break at its first ``next()`` ("next() on dict_valueiterator object")."""

import pytest
import torch

import loom


def _run(fn, make, breaks=0):
    loom.reset()
    eager_args, compiled_args = make(), make()
    expected = fn(*eager_args)
    actual = loom.compile(fn, backend="eager")(*compiled_args)
    torch.testing.assert_close(actual, expected)
    assert list(compiled_args[-1]) == list(eager_args[-1])
    assert [a for a in compiled_args if isinstance(a, dict)] == [a for a in eager_args if isinstance(a, dict)]
    report = loom.explain(fn)(*make())
    assert report.graph_break_count == breaks, [b.why for b in report.breaks]


def _with_dict(skip=0, values=(1.0, 2.0, 3.0)):
    def make():
        d = dict(zip("abc", values))
        it = iter(d.values())
        for _ in range(skip):
            next(it)
        return torch.zeros(2), d, it

    return make


def test_next_leaves_a_values_iterator_advanced():
    for skip in (0, 1, 3):
        _run(lambda x, d, it: x + next(it, -1.0), _with_dict(skip))


def test_a_value_stored_in_the_frame_is_read_when_reached():
    def store(x, d, it):
        first = next(it)
        d["b"] = 10.0
        return x + first + sum(it)

    _run(store, _with_dict())


def test_repeated_values_are_placed_by_how_many_are_left():
    _run(lambda x, d, it: x + next(it) + next(it), _with_dict(1, (7.0, 7.0, 7.0)))


def test_a_size_change_in_the_frame_raises_as_eager_does():
    def grow(x, d, it):
        next(it)
        d["z"] = 4.0
        return x + next(it)

    with pytest.raises(RuntimeError, match="changed size"):
        grow(*_with_dict()())
    loom.reset()
    args = _with_dict()()
    with pytest.raises(RuntimeError, match="changed size"):
        loom.compile(grow, backend="eager")(*args)


def test_a_dict_changed_under_the_iterator_before_the_call_stays_opaque():
    def make():
        d = {"a": 1.0, "b": 2.0, "c": 3.0}
        it = iter(d.values())
        next(it)
        del d["a"]
        d["z"] = 9.0  # the same size, another key: what the iterator yields depends on the dict's memory
        return torch.zeros(2), d, it

    loom.reset()
    with pytest.raises(RuntimeError):
        list(make()[2])
    args = make()
    with pytest.raises(RuntimeError):
        loom.compile(lambda x, d, it: x + sum(it), backend="eager")(*args)


def test_a_values_iterator_that_moves_between_calls_stops_recompiling():
    d = {k: float(k) for k in range(10)}
    it = iter(d.values())
    loom.reset()
    compiled = loom.compile(lambda x, it: x + next(it), backend="eager")
    for step in range(6):
        assert torch.equal(compiled(torch.zeros(1), it), torch.tensor([float(step)]))
    assert next(it) == 6.0 and loom.stats()["recompiles"] == 2
