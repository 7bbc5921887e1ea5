"""``reversed()`` and ``len()`` of a generator or an iterator raise CPython's TypeError, whose message an ``except``
block reads (``str(e)``): it stays in the graph. Before, ``str(e)`` of the reversed() error was a break (its
arguments were unknown), and ``len()`` of a generator broke reading ``__len__``."""

import torch
from breaks_harness import compare


def reversed_of_generator(x):
    try:
        reversed(i for i in range(2))
    except TypeError as e:
        return x + 1, str(e), e.args


def reversed_of_list_iterator(x):
    try:
        reversed(iter([x]))
    except TypeError as e:
        return x + 2, str(e)


def len_of_generator(x):
    try:
        return len(x * i for i in range(2))
    except TypeError as e:
        return x + 3, str(e), e.args


def len_of_zip(x):
    try:
        return len(zip([x], [x]))
    except TypeError as e:
        return x + 4, str(e)


def test_the_type_errors_stay_in_the_graph():
    for fn in (reversed_of_generator, reversed_of_list_iterator, len_of_generator, len_of_zip):
        assert "object" in fn(torch.zeros(1))[1]
        stats = compare(fn, torch.arange(3.0))
        assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), (fn.__name__, stats)
