"""``min()``/``max()`` over ints mixed with symbolic sizes stay symbolic (``torch.sym_min``/``sym_max``).

Under dynamic shapes ``min(x.shape[0], 2)`` used to fold, fixing the size: a guard on it, so one compile
per size up to the recompile limit. Now one compiled entry serves every size, with eager's answers;
mixes whose answer's type depends on the values (floats, bools, tensors) keep their old handling."""

from __future__ import annotations

import torch

import loom


def _run_sizes(fn, sizes=(3, 7, 9, 2, 5, 6, 11)):
    compiled = loom.compile(fn, backend="eager", dynamic=True)
    for n in sizes:
        x = torch.arange(float(n))
        expected, actual = fn(x), compiled(x)
        assert repr(actual) == repr(expected), (n, actual, expected)
    return loom.stats()


def int_mixes(x):
    n = x.shape[0]
    lo, hi, listed = min(n, 4), max(1, n, 6), max([n, 0, n - 1])
    return x[:lo].sum() + hi + listed, lo, hi, listed, type(lo).__name__, min(n, n + 1, 8) * 2


def test_ints_with_a_symbolic_size_compile_once():
    stats = _run_sizes(int_mixes)
    assert stats["frames_compiled"] == 1 and stats["recompiles"] == 0, stats
    assert stats["graph_breaks"] == 0


def used_as_a_size(x):
    m = min(x.shape[0], 4)
    return torch.zeros(m) + x[:m], x.new_ones(max(x.shape[0], 6)).sum()


def test_a_symbolic_min_used_as_a_size():
    stats = _run_sizes(used_as_a_size)
    assert stats["graph_breaks"] == 0 and stats["recompiles"] == 0, stats


def branch_on_the_min(x):
    if min(x.shape[0], 5) > 4:  # a decision on it: guarded, so every size gets eager's branch
        return x * 2
    return x - 1


def test_a_branch_on_a_symbolic_min_takes_eagers_branch():
    _run_sizes(branch_on_the_min, sizes=(3, 6, 9, 4, 5, 2))


def other_mixes(x):
    n = x.shape[0]
    return x + 1, max(n, 2.5), max(True, n), min(n, 3, key=lambda v: -v), max([], default=n)


def test_mixes_whose_type_depends_on_the_values_match_eager():
    _run_sizes(other_mixes, sizes=(2, 3, 4))


def empty(x):
    try:
        min([])
    except ValueError as exc:
        return x + 1, str(exc)
    return x


def test_an_empty_argument_raises_eagers_value_error():
    compiled = loom.compile(empty, backend="eager")
    assert compiled(torch.ones(2))[1] == empty(torch.ones(2))[1]
    assert loom.stats()["graph_breaks"] == 0


def indexes_a_list(x):
    n = x.shape[0]
    return x + [10, 20, 30, 40][min(n, 3)], ["a", "b", "c"][max(n - 8, 0)], (1, 2, 3, 4)[:min(n, 3)], \
        [5, 6, 7][max(n - 9, -2):min(n, 3)]


def test_a_symbolic_min_indexing_a_list_is_specialised_not_a_break():
    # a list has no symbolic positions: the index is specialised (a guard), as a folded min() was
    stats = _run_sizes(indexes_a_list, sizes=(2, 3, 4, 5, 9, 10))
    assert stats["graph_breaks"] == 0, stats
