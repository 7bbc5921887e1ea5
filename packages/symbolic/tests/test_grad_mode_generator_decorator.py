"""``torch.no_grad()`` (or another grad-mode manager) decorating a generator function inside the trace: torch
wraps it so that every resume of the generator runs in the mode, not the call that only makes the generator.
The decoration is now a graph break, made natively, and the real wrapper is traced as torch code. Before, the
mode was switched around the call that made the generator, so its body ran with grad on: a wrong answer."""

import torch

import loom


def generator_decorated_in_frame(x):
    @torch.no_grad()
    def gen(t):
        yield t * 2
        yield torch.is_grad_enabled()

    return list(gen(x))


@torch.no_grad()
def _module_generator(t):
    yield t * 2
    yield torch.is_grad_enabled()


def generator_decorated_outside(x):
    return list(_module_generator(x))


def _run(fn):
    x = torch.ones(2, requires_grad=True)
    expected = fn(x)
    loom.reset()
    result = loom.compile(fn, backend="eager", options={"strict": True})(x)
    return expected, result, loom.stats()


def test_generator_decorated_in_the_frame_runs_its_body_in_the_mode():
    expected, result, stats = _run(generator_decorated_in_frame)
    assert result[1] is expected[1] is False
    assert not result[0].requires_grad and torch.equal(result[0], expected[0])
    assert stats["graph_breaks"] == 1, stats


def test_generator_decorated_outside_is_traced_through_torch_wrapper():
    expected, result, stats = _run(generator_decorated_outside)
    assert result[1] is expected[1] is False
    assert not result[0].requires_grad
    assert stats["graph_breaks"] == 0, stats
