"""``functools.lru_cache``'s polyfill and ``copy.copy``'s, natively against the real ones on the same
calls: results, what the cached function ran (hits and misses), ``cache_info`` and the errors raised."""

from __future__ import annotations

import copy
import functools
from collections import deque

import pytest

from loom_symbolic import polyfills

lru_cache = polyfills.replacement_for(functools.lru_cache)
Wrapper = polyfills.replacement_for(functools._lru_cache_wrapper)
copy_polyfill = polyfills.replacement_for(copy.copy)

CALLS = [
    ((1,), {}), ((1.0,), {}), ((1,), {}), ((True,), {}), (("a",), {}), ((2, 3), {}), ((2, 3), {}),
    ((2,), {"k": 1}), ((2,), {"k": 1}), ((), {"a": 1, "b": 2}), ((), {"b": 2, "a": 1}), ((3,), {}), ((1,), {}),
    (((1, 2),), {}), (((1, 2),), {}), ((4,), {}), ((2, 3), {}),
]


def _run(decorate, calls):
    ran = []

    def user(*args, **kwargs):
        ran.append((args, kwargs))
        return (args, sorted(kwargs.items()))

    cached = decorate(user)
    trail = []
    for args, kwargs in calls:
        trail.append((cached(*args, **kwargs), tuple(cached.cache_info())))
    return trail, ran, cached.cache_parameters()


@pytest.mark.parametrize("arguments", [
    {"maxsize": None}, {"maxsize": 128}, {"maxsize": 2}, {"maxsize": 1}, {"maxsize": 0}, {"maxsize": -3},
    {"maxsize": 2, "typed": True}, {"maxsize": None, "typed": True},
], ids=str)
def test_lru_cache_hits_misses_and_order_are_the_real_ones(arguments):
    assert _run(lru_cache(**arguments), CALLS) == _run(functools.lru_cache(**arguments), CALLS)


def _bare_then_cleared(decorate):
    calls = []
    f = decorate(lambda n: calls.append(n) or n)
    f(1), f(1), f(2)
    info = tuple(f.cache_info())
    f.cache_clear()
    f(1)
    return info, tuple(f.cache_info()), calls


def test_bare_decorator_and_cache_clear():
    expected = ((1, 2, 128, 2), (0, 1, 128, 1), [1, 2, 1])
    assert _bare_then_cleared(lru_cache) == _bare_then_cleared(functools.lru_cache) == expected


@pytest.mark.parametrize("bad", [lambda d: d("x"), lambda d: d(1.5), lambda d: d(2)(3)], ids=["str", "float", "not callable"])
def test_errors_are_the_real_ones(bad):
    def outcome(decorate):
        try:
            bad(decorate)
        except Exception as exc:
            return type(exc), str(exc)
        return None

    assert outcome(lru_cache) == outcome(functools.lru_cache)
    assert outcome(lru_cache) is not None


def test_wrapper_rebuilds_as_a_real_cached_function():
    stand_in = lru_cache(maxsize=3)(lambda n: n * 2)
    _, rebuild = polyfills.real_class_of(Wrapper)
    real = rebuild(stand_in)
    assert type(real) is functools._lru_cache_wrapper
    assert real(4) == 8 and real.cache_parameters() == {"maxsize": 3, "typed": False}


@pytest.mark.parametrize("value", [deque([1, 2], maxlen=3), deque(), [1, [2]], {"a": [1]}, (1, 2), 3, "s",
                                   {1, 2}, bytearray(b"ab")], ids=repr)
def test_copy_is_the_real_one(value):
    made, expected = copy_polyfill(value), copy.copy(value)
    assert type(made) is type(expected) and made == expected
    assert (made is value) == (expected is value)
    if isinstance(value, deque):
        assert made.maxlen == value.maxlen
