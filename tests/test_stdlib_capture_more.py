"""More standard-library constructs captured through polyfills: ``lru_cache``/``cache`` applied inside
the compiled function, ``copy.copy`` and f-strings of a deque made in the trace (one graph, no break,
eager's answers and side effects); a deque subclass breaks cleanly (as under torch.compile)."""

from __future__ import annotations

import copy
import functools
from collections import deque

import pytest
import torch
from breaks_harness import compare

import loom


def lru_cache_inside(x):
    calls = []

    @functools.lru_cache(maxsize=None)  # noqa: UP033  (the call form, as written in the wild)
    def triple(n):
        calls.append(n)
        return n * 3

    plus_one = functools.cache(lambda n: n + 1)
    return x + triple(2) + triple(2) + triple(3) + plus_one(1), calls, triple.cache_info()


def lru_cache_evicts(x):
    calls = []

    @functools.lru_cache(maxsize=2)
    def f(n):
        calls.append(n)
        return x * n

    for n in [1, 2, 1, 3, 2, 1]:
        x = x + f(n)
    return x, calls, f.cache_info()


def lru_cache_bare_and_typed(x):
    calls = []

    @functools.lru_cache
    def f(n):
        calls.append(n)
        return n

    g = functools.lru_cache(typed=True)(lambda n: calls.append(("g", n)) or n)
    return x + f(1) + f(1.0) + g(1) + g(1.0), calls


def deque_formatted(x):
    q = deque([1, 2], maxlen=4)
    text = f"{q}|{q!r}|{q!s}|{str(q)}|{repr(q)}"  # noqa: RUF010  (str() and repr() calls too)
    return x + len(text), text


def deque_copied(x):
    q = deque([1, 2, 3], maxlen=5)
    r = copy.copy(q)
    r.append(4)
    return x + len(q) + len(r), q, r


def deque_argument_copied(q, x):
    r = copy.copy(q)
    r.appendleft(0)
    return x + len(r), r


@pytest.mark.parametrize("fn", [lru_cache_inside, lru_cache_evicts, lru_cache_bare_and_typed, deque_formatted,
                                deque_copied], ids=lambda fn: fn.__name__)
def test_captured_in_one_graph(fn):
    stats = compare(fn, torch.arange(3.0))
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats


def test_copy_of_a_deque_argument():
    stats = compare(deque_argument_copied, deque([5, 6], maxlen=3), torch.arange(3.0))
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats


def deque_format_spec(x):
    q = deque([1])
    return x, f"{q:>10}"  # object.__format__ refuses a spec: TypeError, as in eager


def test_format_spec_on_a_deque_raises_as_eager():
    compare(deque_format_spec, torch.arange(3.0))


class _Tagged(deque):
    def push(self, v):
        self.append(v * 2)


def deque_subclass(x):
    q = _Tagged([1, 2])
    q.push(3)
    out = x
    for v in q:
        out = out + v
    return out + len(q), q


def test_deque_subclass_is_one_graph():
    # modelled through its shadow on the deque stand-in (packages/symbolic/tests/test_deque_subclasses.py);
    # the returned object is rebuilt as a real _Tagged
    stats = compare(deque_subclass, torch.arange(3.0))
    assert stats["graph_breaks"] == 0 and stats["graphs"] == 1, stats


def returns_cached(x):
    return functools.lru_cache(maxsize=4)(lambda n: n * 2), x + 1


def test_cached_function_made_in_the_trace_outlives_it():
    loom.reset()
    fn, y = loom.compile(returns_cached, backend="eager")(torch.arange(3.0))
    assert type(fn) is functools._lru_cache_wrapper and fn(4) == 8
    assert fn.cache_info() == functools._CacheInfo(0, 1, 4, 1)
    torch.testing.assert_close(y, torch.arange(3.0) + 1)
