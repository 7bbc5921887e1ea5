"""Torch random draws in a compiled function are never dead code: a draw whose value is overwritten or
unused still advances the generator, so later draws, the values returned and ``torch.get_rng_state()``
afterwards are exactly eager's (issue 29, wrong answer 1)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import loom


def overwritten_in_a_loop(x):
    for _ in range(3):
        z = torch.abs(torch.randn(4)) + 1
    x[0] = z
    return x


def drawn_and_unused(x):
    torch.rand(5)
    return x + torch.randn(x.shape)


def method_draw_unused(x):
    x.bernoulli()  # a tensor method that draws, its result dropped
    return x * torch.rand(x.shape)


def dropout_unused(x):
    F.dropout(x, 0.5, training=True)  # a library function that draws inside
    return x + torch.randn(x.shape)


def only_a_draw(x):
    torch.randn(3)  # no graph output at all: the graph still has to run
    return 1


def draw_under_a_constant_result(x):
    n = torch.randn(3, 2).dim()  # the draw's node has a constant result: kept all the same
    return x + torch.rand(x.shape) + n


CASES = [overwritten_in_a_loop, drawn_and_unused, method_draw_unused, dropout_unused, only_a_draw,
         draw_under_a_constant_result]


def _run(fn, x):
    torch.manual_seed(7)
    result = fn(x.clone())
    return result, torch.get_rng_state()


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_draws_run_as_in_eager(fn, backend):
    x = torch.rand(2, 4)
    expected, expected_state = _run(fn, x)
    compiled = loom.compile(fn, backend=backend)
    for _ in range(2):  # the first call traces, the second reuses the entry
        actual, actual_state = _run(compiled, x)
        if isinstance(expected, torch.Tensor):
            torch.testing.assert_close(actual, expected, rtol=0, atol=0)
        else:
            assert actual == expected
        assert torch.equal(actual_state, expected_state), "the RNG state after the call differs from eager's"
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["recompiles"]) == (1, 0, 0), stats
