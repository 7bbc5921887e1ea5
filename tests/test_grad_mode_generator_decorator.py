"""``torch.no_grad()`` (or another grad-mode manager) decorating a generator function inside the trace: torch
wraps it so that every resume of the generator runs in the mode, not the call that only makes the generator.
torch's own wrapper is now traced, with the manager's ``clone`` as the factory of each switch (rebuilt as the
real manager's bound ``clone`` when the wrapper leaves the frame). Before, the mode was switched around the call
that made the generator, so its body ran with grad on: a wrong answer."""

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
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def decorated_generator_returned(x):
    @torch.set_grad_enabled(False)
    def gen(t):
        yield t * 2

    return gen, torch.is_grad_enabled(), x + 1


def test_generator_decorated_in_the_frame_is_rebuilt_with_torch_wrapper():
    loom.reset()
    gen, enabled, _ = loom.compile(decorated_generator_returned, backend="eager", options={"strict": True})(
        torch.ones(2))
    assert enabled is True  # set_grad_enabled(False) switched the mode when made, and back when decorating
    assert (loom.stats()["graphs"], loom.stats()["graph_breaks"]) == (1, 0), loom.stats()
    (doubled,) = gen(torch.ones(2, requires_grad=True))
    assert gen.__name__ == "gen" and not doubled.requires_grad and torch.is_grad_enabled()


def test_generator_decorated_outside_is_traced_through_torch_wrapper():
    expected, result, stats = _run(generator_decorated_outside)
    assert result[1] is expected[1] is False
    assert not result[0].requires_grad
    assert stats["graph_breaks"] == 0, stats


def inference_generator_in_frame(x):
    @torch.inference_mode()
    def gen(t):
        yield torch.is_inference_mode_enabled()

    @torch.inference_mode
    def bare(t):
        yield torch.is_inference_mode_enabled()

    return list(gen(x)), list(bare(x)), x + 1


def test_inference_mode_decorating_a_generator_in_the_frame_runs_its_body_in_the_mode():
    expected = inference_generator_in_frame(torch.ones(2))
    loom.reset()
    result = loom.compile(inference_generator_in_frame, backend="eager", options={"strict": True})(torch.ones(2))
    assert result[:2] == expected[:2] == ([True], [True])
    assert (loom.stats()["graphs"], loom.stats()["graph_breaks"]) == (1, 0), loom.stats()
