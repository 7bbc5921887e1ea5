"""Calls of an ``lru_cache``'d function from outside the traced frame: the wrapped function is traced, and calls
under one cache key share the first one's result, as the cache's hits do in eager (Paddle's test_functools:
``f(x) is f(x)`` for a tensor ``x`` was False); an unhashable argument is the cache's TypeError."""

import functools

import pytest
import torch
from harness import check

from loom_symbolic import translate_function


@functools.lru_cache
def plus_one(v):
    return v + 1


@functools.lru_cache(typed=True)
def typed_box(v):
    return [v]


def same_key_same_result(x):
    b1 = plus_one(x)
    b2 = plus_one(x)
    other = plus_one(x * 2)
    return b1, b2, other, b1 is b2, b1 is other, plus_one(1) + plus_one(1)


def typed_keys_apart(x):
    return x + 1, typed_box(1) is typed_box(1), typed_box(1) is typed_box(1.0), typed_box(v=2) is typed_box(v=2)


def unhashable_argument(x):
    try:
        plus_one([x])
    except TypeError as e:
        return x + 1, str(e)


@pytest.mark.parametrize("fn", [same_key_same_result, typed_keys_apart, unhashable_argument])
def test_cached_calls_match_eager(fn):
    check(fn, torch.arange(3.0))


def test_a_repeated_call_traces_the_function_once():
    translation = translate_function(same_key_same_result, torch.arange(3.0))
    assert not translation.breaks
    (graph,) = translation.graphs
    adds = [n for n in graph.graph_module.graph.nodes if n.op == "call_function" and "add" in str(n.target)]
    assert len(adds) == 2, graph.graph_module.code  # plus_one(x) and plus_one(x * 2): the repeat is the cache's hit
