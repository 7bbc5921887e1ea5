"""``random.seed(a)`` in a compiled function (PyTorch's test_unspec seeds, then draws): made before the
graph call in its place among the draws, as the draws are, so the values drawn after it are the reseeded
RNG's, Python's RNG ends where eager leaves it, and the frame is one graph (it was a graph break). A seed
that is not a constant still breaks."""

from __future__ import annotations

import random

import torch

import loom


def draws_around_a_seed(x):
    a = random.random()
    random.seed(5)
    b = random.random()
    c = random.randint(1, 9)
    return x * a + b + c, b, c


def seed_from_the_tensor(x):
    random.seed(int(x.sum()))
    return x + random.random()


def _run(fn, seed):
    random.seed(seed)
    return fn(torch.arange(3.0)), random.getstate()


def test_seed_is_made_among_the_draws_in_one_graph():
    loom.reset()
    compiled = loom.compile(draws_around_a_seed, backend="eager", options={"strict": True})
    for seed in (0, 1):
        (out, b, c), state = _run(compiled, seed)
        (expected, eb, ec), expected_state = _run(draws_around_a_seed, seed)
        assert torch.equal(out, expected) and (b, c) == (eb, ec) and state == expected_state
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["frames_compiled"]) == (1, 0, 1), stats


def test_seed_of_a_value_known_only_at_run_time_breaks():
    loom.reset()
    compiled = loom.compile(seed_from_the_tensor, backend="eager", options={"strict": True})
    out, state = _run(compiled, 0)
    expected, expected_state = _run(seed_from_the_tensor, 0)
    assert torch.equal(out, expected) and state == expected_state
    assert loom.stats()["graph_breaks"] >= 1
