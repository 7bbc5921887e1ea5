"""``throw()``, ``close()`` and dropping a generator paused in a ``yield from`` over an iterator that is not a
generator (PEP 380, as CPython does it): the subiterator's own ``throw``/``close`` methods are called (found as
``getattr`` finds them; ``send`` of a value too), one without them (a list's iterator) has the exception raised at the ``yield from``.
A subiterator that ends in the throw (its ``throw`` raises StopIteration, a generator returns) ends the
``yield from`` with its value, and the delegating generator goes on to its next ``yield``. These were graph
breaks ("the iterator it waits on is not a generator", "the inner generator returns"); now one graph."""

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES
X = torch.ones(3)


class Forwarding:
    """An iterator with the generator protocol's throw and close, logging their calls."""

    def __init__(self, log):
        self.log = log

    def __iter__(self):
        return self

    def __next__(self):
        return 1

    def throw(self, kind, value=None, tb=None):
        self.log.append(("throw", kind.__name__ if isinstance(kind, type) else type(kind).__name__))
        if kind is KeyError:
            raise IndexError("from throw")
        return 2

    def close(self):
        self.log.append("close")


class NextOnly:
    """An iterator with ``__next__`` alone: throw and close have nothing to call on it."""

    def __iter__(self):
        return self

    def __next__(self):
        return 5


class InstanceClose(NextOnly):
    """Its ``close`` is an instance attribute, which ``getattr`` finds as CPython's lookup does."""

    def __init__(self, log):
        self.close = lambda: log.append("instance close")


def outer(inner, log):
    try:
        yield from inner
    except (ValueError, IndexError) as exc:
        log.append(("outer caught", type(exc).__name__))
        yield 100


@case(X)
def throw_into_a_list_iterator_is_raised_at_the_yield_from(x):
    log = []
    gen = outer(iter([1, 2, 3]), log)
    a = next(gen)
    b = gen.throw(ValueError)
    return x + a + b, log


@case(X)
def throw_calls_the_iterators_throw_with_what_was_given(x):
    log = []
    gen = outer(Forwarding(log), log)
    a = next(gen)
    b = gen.throw(ValueError)
    c = gen.throw(ValueError("v"))
    return x + a + b + c, log


@case(X)
def what_the_iterators_throw_raises_is_raised_at_the_yield_from(x):
    log = []
    gen = outer(Forwarding(log), log)
    next(gen)
    got = gen.throw(KeyError)
    return x + got, log


@case(X)
def close_calls_the_iterators_close(x):
    log = []
    gen = outer(Forwarding(log), log)
    next(gen)
    gen.close()
    log.append("after")
    return x + 1, log


@case(X)
def throw_generator_exit_closes_the_iterator_first(x):
    log = []
    gen = outer(Forwarding(log), log)
    next(gen)
    try:
        gen.throw(GeneratorExit)
    except GeneratorExit:
        log.append("exit raised")
    return x + 1, log


@case(X)
def a_dropped_generator_closes_its_iterator(x):
    log = []
    gen = outer(Forwarding(log), log)
    y = x + next(gen)
    del gen
    log.append("after del")
    return y, log


@case(X)
def iterators_without_the_methods(x):
    log = []
    gen = outer(NextOnly(), log)
    y = x + next(gen)
    gen.close()
    other = outer(NextOnly(), log)
    y = y + next(other) + other.throw(ValueError)
    return y, log


@case(X)
def an_instance_attribute_close_is_called(x):
    log = []
    gen = outer(InstanceClose(log), log)
    y = x + next(gen)
    gen.close()
    return y, log


class StopsOnThrow(NextOnly):
    """Its ``throw`` ends it, with a value."""

    def throw(self, kind):
        raise StopIteration(7)


def returns_on_throw():
    try:
        yield 1
    except ValueError:
        return 5


def records_result(inner, log):
    result = yield from inner
    log.append(result)
    yield result * 2


@case(X)
def an_iterator_stopped_by_throw_ends_the_yield_from(x):
    log = []
    gen = records_result(StopsOnThrow(), log)
    next(gen)
    return x + gen.throw(ValueError), log, next(gen, "done")


@case(X)
def a_generator_returning_in_throw_ends_the_yield_from(x):
    log = []
    gen = records_result(returns_on_throw(), log)
    next(gen)
    got = gen.throw(ValueError)
    nested = records_result(records_result(returns_on_throw(), log), log)
    next(nested)
    return x + got + nested.throw(ValueError), log


@case(X)
def the_delegating_generator_returning_then_is_stop_iteration(x):
    def plain(inner):
        return (yield from inner)

    gen = plain(returns_on_throw())
    next(gen)
    try:
        gen.throw(ValueError)
    except StopIteration as stop:
        return x + stop.value
    return x


class Accumulating(NextOnly):
    """Its ``send`` adds the value up, and stops past 10 with the total."""

    def __init__(self):
        self.total = 0

    def send(self, value):
        self.total += value
        if self.total > 10:
            raise StopIteration(self.total)
        return self.total


@case(X)
def send_calls_the_iterators_send_until_it_stops(x):
    log = []
    gen = records_result(Accumulating(), log)
    a = next(gen)
    b = gen.send(4)
    c = gen.send(8)
    return x + a + b + c, log


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_yield_from_iterators_match_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
