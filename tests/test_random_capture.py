"""Python's ``random`` in a compiled function: the values are drawn before the graph call (replayed,
as torch.compile does), so every call sees eager's values bit for bit, leaves Python's RNG where eager
leaves it, and reuses the graph (no guard on the values drawn)."""

from __future__ import annotations

import random

import pytest
import torch

import loom


def scaled(x):
    return x * random.random() + random.randint(1, 5) + random.uniform(0, 1)


def int_tensor_times_float(x):
    return x.long() * random.random() + random.randint(-3, 3)  # Python-scalar type promotion


def python_arithmetic(x):
    r = random.random()
    s = (r * 3.0 + 1 / 7) - 2.5
    return x + s, s


def returned_values(x):
    return x + 1, random.random(), random.randint(0, 1), random.gauss(0, 1)


def drawn_and_unused(x):
    random.random()
    random.gauss(0, 1)
    return x + 1


def choices_of_numbers(x):
    return x + random.choice([1, 2, 3]) + random.choice((0.5, 1.5)) + random.randrange(10) + random.getrandbits(8)


def reduced_precision(x):
    return x.half() * random.random(), x[0].half() * random.random(), x.double() * random.random()


def values_in_a_list(x):
    values = [random.random() for _ in range(3)]
    return x + values[1], values


def int_arithmetic(x):
    n = random.randint(1, 6)
    return x * (n * 2 + 1), n // 2


ONE_GRAPH = [scaled, int_tensor_times_float, python_arithmetic, returned_values, drawn_and_unused,
             choices_of_numbers, reduced_precision, values_in_a_list, int_arithmetic]


def branch_on_value(x):
    if random.random() < 0.5:
        return x + 1
    return x - 1


def loop_count(x):
    for _ in range(random.randint(1, 3)):
        x = x + 1
    return x


def size_from_random(x):
    return torch.ones(random.randint(2, 4)) + x.sum()


def choice_of_strings(x):
    return x + len(random.choice(["a", "bb"]))


def bad_arguments(x):
    return x + random.randint(5, 1)


BREAKING = [branch_on_value, loop_count, size_from_random, choice_of_strings]


def _same(actual, expected):
    if isinstance(expected, torch.Tensor):
        return type(actual) is torch.Tensor and actual.dtype == expected.dtype and torch.equal(actual, expected)
    if isinstance(expected, (list, tuple)):
        return type(actual) is type(expected) and len(actual) == len(expected) and all(
            _same(a, e) for a, e in zip(actual, expected))
    return type(actual) is type(expected) and actual == expected


def _run(fn, seed):
    random.seed(seed)
    try:
        result, error = fn(torch.arange(3.0)), None
    except Exception as exc:
        result, error = None, (type(exc), str(exc))
    return result, error, random.getstate(), random.random()


def _check_against_eager(fn, backend="eager", seeds=(0, 1, 2, 3)):
    loom.reset()
    compiled = loom.compile(fn, backend=backend)
    for seed in seeds:
        expected = _run(fn, seed)
        actual = _run(compiled, seed)
        assert _same(actual[0], expected[0]), (seed, actual[0], expected[0])
        assert actual[1] == expected[1]
        assert actual[2] == expected[2], "Python's RNG state differs from eager's"
        assert actual[3] == expected[3]
    return loom.stats()


@pytest.mark.parametrize("fn", ONE_GRAPH, ids=lambda fn: fn.__name__)
def test_random_is_captured_and_replayed(fn):
    stats = _check_against_eager(fn)
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats
    assert stats["frames_compiled"] == 1, "new values drawn must not recompile"


@pytest.mark.parametrize("fn", [scaled, python_arithmetic, returned_values, drawn_and_unused, values_in_a_list,
                                int_arithmetic], ids=lambda fn: fn.__name__)
def test_random_through_aot_autograd(fn):
    stats = _check_against_eager(fn, backend="aot_eager", seeds=(0, 1))
    assert stats["graph_breaks"] == 0 and stats["frames_compiled"] == 1, stats


@pytest.mark.parametrize("fn", BREAKING, ids=lambda fn: fn.__name__)
def test_uses_that_need_the_value_break_and_agree(fn):
    stats = _check_against_eager(fn)
    assert stats["graph_breaks"] >= 1


def test_bad_arguments_raise_as_eager():
    _check_against_eager(bad_arguments, seeds=(0,))


def test_break_names_the_construct():
    report = loom.explain(branch_on_value)(torch.arange(3.0))
    text = str(report)
    assert "branching on a value drawn from random" in text, text
    assert "test_random_capture.py" in text


def test_fullgraph_error_names_the_decision():
    with pytest.raises(loom.Unsupported, match="drawn from random"):
        loom.compile(branch_on_value, fullgraph=True, backend="eager")(torch.arange(3.0))
