"""``reversed(obj)`` for user classes: a ``__reversed__`` written in Python is called, and a class with only
``__len__`` and ``__getitem__`` gives ``obj[len - 1]`` down to ``obj[0]`` (ending early at IndexError). The trace
iterated the object forwards and reversed that: a ``__getitem__`` that never raises IndexError looped until the
instruction limit broke the graph, and ``__reversed__`` was never asked."""

import torch
from harness import check


class _Endless:
    def __len__(self):
        return 3

    def __getitem__(self, i):
        return (i + 1) * 10


class _ShortAtTheTop:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 3:
            raise IndexError(i)
        return i


class _OwnReversed:
    def __iter__(self):
        return iter([1, 2, 3])

    def __reversed__(self):
        return iter([7, 8])


def _reversed_sequence(x):
    return x + 1, list(reversed(_Endless()))


def _reversed_ends_at_index_error(x):
    return x * 2, list(reversed(_ShortAtTheTop()))


def _reversed_dunder_called(x):
    return x - 1, list(reversed(_OwnReversed()))


def test_reversed_asks_getitem_from_the_end():
    check(_reversed_sequence, torch.ones(3))


def test_reversed_ends_at_index_error():
    check(_reversed_ends_at_index_error, torch.ones(3))


def test_reversed_calls_python_dunder():
    check(_reversed_dunder_called, torch.ones(3))
