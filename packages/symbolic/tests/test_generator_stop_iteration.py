"""PEP 479 inside traced code: a StopIteration escaping a generator's body surfaces at the ``next()`` as
``RuntimeError("generator raised StopIteration")`` whose ``__cause__`` and ``__context__`` are the
StopIteration, and the generator is finished after it (issue 29, wrong answer 3)."""

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES

X = torch.ones(3)


def raises_stop_iteration():
    yield 1
    raise StopIteration


def raises_stop_iteration_with_a_value():
    yield 1
    raise StopIteration("value")


def _describe(exc):
    return (type(exc).__name__, str(exc), type(exc.__cause__).__name__, exc.__cause__ is exc.__context__,
            exc.__suppress_context__)


@case(X)
def raise_in_the_body_is_a_runtime_error(x):
    gen = raises_stop_iteration()
    first = next(gen)
    try:
        next(gen)
    except RuntimeError as exc:
        return x + first, _describe(exc)
    except StopIteration:
        return x - 1, "StopIteration escaped"


@case(X)
def the_cause_keeps_its_arguments(x):
    gen = raises_stop_iteration_with_a_value()
    next(gen)
    try:
        next(gen)
    except RuntimeError as exc:
        return x + 1, exc.__cause__.args


@case(X)
def the_generator_is_finished_after_it(x):
    gen = raises_stop_iteration()
    next(gen)
    try:
        next(gen)
    except RuntimeError:
        pass
    return x + 1, next(gen, "finished"), list(gen)


@case(X)
def next_on_an_exhausted_iterator_inside_a_generator_expression(x):
    it = iter([1, 2])
    gen = (next(it) for _ in range(3))
    taken = []
    try:
        for value in gen:
            taken.append(value)
    except RuntimeError as exc:
        return x + sum(taken), taken, _describe(exc)
    return x, taken, None


@case(X)
def a_return_still_ends_a_for_loop(x):
    def gen():
        yield 1
        return 5

    total = 0
    for value in gen():
        total += value
    return x + total


@case(X)
def stop_iteration_caught_in_the_body(x):
    def gen():
        try:
            raise StopIteration
        except StopIteration:
            yield 2

    return x + sum(gen())


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_pep_479(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
