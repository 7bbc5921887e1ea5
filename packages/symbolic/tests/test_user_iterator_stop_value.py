"""The value a user iterator's StopIteration carries: ``yield from`` over an object whose class writes
``__next__`` evaluates to it (PEP 380), and ``next()`` re-raises that very StopIteration (issue 29,
PyTorch test_misc's ``yield from`` over a user iterator: loom answered None)."""

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES

X = torch.ones(3)


class Countdown:
    """Yields the items, then stops with how many calls it took (``StopIteration(n)``)."""

    def __init__(self, items):
        self.items = items
        self.calls = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.calls += 1
        if self.calls <= len(self.items):
            return self.items[self.calls - 1]
        raise StopIteration(self.calls)


class StopsBare(Countdown):
    def __next__(self):
        if self.items:
            return self.items.pop()
        raise StopIteration


class StopsWithKeyword(Countdown):
    def __next__(self):
        raise StopIteration("done", "extra")


def delegate(it):
    result = yield from it
    yield result


@case(X)
def yield_from_user_iterator_evaluates_to_its_stop_value(x):
    return [v for v in delegate(Countdown([x, x + 1]))]


@case(X)
def yield_from_a_bare_stop_is_none(x):
    return [v for v in delegate(StopsBare([x + 1]))]


@case(X)
def yield_from_takes_the_first_argument(x):
    return x + 1, list(delegate(StopsWithKeyword([])))


@case(X)
def next_re_raises_the_stop_with_its_value(x):
    it = Countdown([x])
    next(it)
    try:
        next(it)
    except StopIteration as stop:
        return x + stop.value, stop.args
    return x


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_user_iterator_stop_value(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
