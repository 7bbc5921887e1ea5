"""Issue 28's regression: compiling functions that call torch.func transforms never leaves functorch's
interpreter stack behind (it once left a grad level pushed, so every later compile failed and plain
eager matmul returned GradTrackingTensor)."""

import torch

import loom
import loom_symbolic


def _functorch_level():
    return torch._C._functorch.maybe_current_level()


def _vmap_then_grad():
    return [
        (lambda x: torch.vmap(lambda r: r.sin() * 2)(x), torch.randn(3, 4)),
        (lambda x: torch.func.grad(lambda y: (y.sin() ** 2).sum())(x), torch.randn(4)),
    ]


def test_issue_28_sequence_leaves_no_functorch_level_and_later_code_is_plain():
    for f, a in _vmap_then_grad():
        assert torch.allclose(loom.compile(f, backend="aot_eager")(a), f(a))
        assert _functorch_level() is None
    later = loom.compile(lambda x: x.cos() + 1, backend="aot_eager")
    x = torch.randn(3)
    assert torch.equal(later(x), x.cos() + 1)
    product = torch.ones(2, 2) @ torch.ones(2, 2)
    assert type(product) is torch.Tensor
    assert not torch._C._functorch.is_functorch_wrapped_tensor(product)
    assert torch.equal(product, torch.full((2, 2), 2.0))


def test_translating_a_grad_call_pushes_no_level():
    """torch.func.grad is captured as one op over its function's sub-graph: the translator runs the
    transform on FakeTensors to learn its results, and leaves no level pushed."""
    def f(x):
        return torch.func.grad(lambda y: (y.sin() ** 2).sum())(x)

    translation = loom_symbolic.translate_function(f, torch.randn(4))
    assert _functorch_level() is None
    assert not translation.breaks


def test_a_frame_called_by_an_eager_transform_runs_uncompiled():
    """vmap calls the function with BatchedTensors, which FakeTensors cannot model: the frame runs as
    it is (no backend failure), and compiles normally when called outside the transform."""
    def body(r):
        return r.sin() * 2

    compiled = loom.compile(body, backend="aot_eager")
    x = torch.randn(3, 4)
    assert torch.allclose(torch.vmap(compiled)(x), body(x))
    assert torch.allclose(torch.func.grad(lambda y: compiled(y).sum())(x), 2 * x.cos())
    assert _functorch_level() is None
    assert loom.stats()["frames_compiled"] == 0
    assert torch.allclose(compiled(x), body(x))
    assert loom.stats()["frames_compiled"] == 1


def test_the_break_names_the_transform_machinery_readably():
    def f(x):
        return torch.func.linearize(lambda y: (y.sin() ** 2).sum(), x)[0]

    report = loom.explain(f, backend="aot_eager")(torch.randn(4))
    # torch.func is an opaque family but for the transforms captured: the break is at the call
    assert "call to torch.func.linearize" in str(report.breaks[0])
    assert "this torch.func function is not captured" in str(report.breaks[0])
    assert _functorch_level() is None
