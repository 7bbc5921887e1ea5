"""Custom ``torch.autograd.Function`` subclasses inside compiled code (issue 20).

Each Function's backward differs from the derivative of its forward (a straight-through estimator, a
scaled gradient), so a test notices when autograd differentiated the forward's ops instead of calling
the user's ``backward``. Gradients are compared with eager's under ``eager`` and ``aot_eager``.
"""

from __future__ import annotations

import pytest
import torch
from torch.autograd.function import once_differentiable

import loom

BACKENDS = ["eager", "aot_eager"]


class StraightThroughRound(torch.autograd.Function):
    """``round`` forward, identity backward: autograd's own derivative of round is zero."""

    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad):
        return grad


class ScaledSquare(torch.autograd.Function):
    """Saves its input, keeps a Python number on ``ctx``, takes a non-tensor argument."""

    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x * ctx.scale, None


class SetupContextMul(torch.autograd.Function):
    """The newer style: ``forward`` without ``ctx``, ``setup_context`` saving what backward needs."""

    @staticmethod
    def forward(x, y):
        return x * y

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, y = inputs
        ctx.save_for_backward(x, y)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return 3 * grad * y, 5 * grad * x


class SplitTwo(torch.autograd.Function):
    """Two outputs, one marked non-differentiable; ``needs_input_grad`` read in backward."""

    @staticmethod
    def forward(ctx, x):
        doubled, mask = x * 2, (x > 0).to(x.dtype)
        ctx.mark_non_differentiable(mask)
        ctx.shape = x.shape
        return doubled, mask

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_doubled, grad_mask):
        assert ctx.shape is not None
        return 7 * grad_doubled if ctx.needs_input_grad[0] else None


class BaseExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.exp(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * result


class HalfExp(BaseExp):
    """A subclass calling ``super()`` in forward and backward."""

    @staticmethod
    def forward(ctx, x):
        return super(HalfExp, HalfExp).forward(ctx, x)

    @staticmethod
    def backward(ctx, grad):
        return 0.5 * super(HalfExp, HalfExp).backward(ctx, grad)


straight_through = StraightThroughRound.apply  # read as a global, not as Class.apply
LINEAR = torch.nn.Linear(4, 4)


def uses_every_function(x, y):
    hidden = LINEAR(x)
    a = straight_through(hidden * 3)
    b = ScaledSquare.apply(hidden, 2.5)
    c = SetupContextMul.apply(hidden, y)
    d, mask = SplitTwo.apply(hidden)
    e = HalfExp.apply(hidden.tanh())
    return (a + b + c + d * mask + e).sum()


def _grads(fn, x, y):
    loss = fn(x, y)
    return (loss.detach(), *torch.autograd.grad(loss, (x, y, LINEAR.weight, LINEAR.bias)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_custom_functions_compile_into_one_graph_with_the_users_gradients(backend):
    x, y = torch.randn(3, 4, requires_grad=True), torch.randn(3, 4, requires_grad=True)
    expected = _grads(uses_every_function, x, y)
    compiled = loom.compile(uses_every_function, backend=backend)
    for _ in range(2):
        torch.testing.assert_close(_grads(compiled, x, y), expected)
    stats = loom.stats()
    # one frame compiled: the Functions' forwards run inside the graph's call, not as frames of their own
    assert (stats["graphs"], stats["graph_breaks"], stats["frames_compiled"], stats["cache_hits"]) == (1, 0, 1, 1), stats


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_users_backward_is_called_not_the_forwards_derivative(backend):
    x = torch.randn(5, requires_grad=True)
    (grad,) = torch.autograd.grad(loom.compile(lambda t: StraightThroughRound.apply(t).sum(), backend=backend)(x), x)
    torch.testing.assert_close(grad, torch.ones(5))  # round's own derivative would be zeros


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_function_inside_a_module_under_no_grad_gives_eagers_values(backend):
    class Block(torch.nn.Module):
        def forward(self, x):
            return ScaledSquare.apply(x, 1.5) + 1

    x = torch.randn(2, 3)
    with torch.no_grad():
        torch.testing.assert_close(loom.compile(Block(), backend=backend)(x), Block()(x))


def test_a_forward_changing_python_state_does_so_once_per_call():
    """Tracing ``forward`` would repeat its change while the graph is built: a graph break instead."""
    calls = []

    class Counting(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            calls.append(1)
            return x + 1

        @staticmethod
        def backward(ctx, grad):
            return grad

    compiled = loom.compile(lambda t: Counting.apply(t) * 2, backend="eager")
    x = torch.randn(3)
    calls.clear()
    for _ in range(3):
        torch.testing.assert_close(compiled(x), (x + 1) * 2)
    assert len(calls) == 3
    assert loom.stats()["graph_breaks"] >= 1


def test_a_function_given_an_object_from_the_frame_is_one_graph_and_stays_right():
    """The object is bound into the node (guarded by identity; what forward reads of it, by value)."""
    class Scale:
        factor = 4.0

    class ByObject(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, holder):
            ctx.factor = holder.factor
            return x * holder.factor

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.factor, None

    holder = Scale()

    def fn(x):
        return ByObject.apply(x, holder).sum()

    x = torch.randn(3, requires_grad=True)
    compiled = loom.compile(fn, backend="eager")
    (grad,) = torch.autograd.grad(compiled(x), x)
    torch.testing.assert_close(grad, torch.full((3,), 4.0))
    holder.factor = 2.0  # read while tracing: the guard on it recompiles
    (grad,) = torch.autograd.grad(compiled(x), x)
    torch.testing.assert_close(grad, torch.full((3,), 2.0))
    assert loom.stats()["graph_breaks"] == 0


class RowScale(torch.autograd.Function):
    """Reads a size in forward: with a dynamic dimension that is a symbolic size of the input."""

    @staticmethod
    def forward(ctx, x):
        return x * x.shape[0]

    @staticmethod
    def backward(ctx, grad):
        return grad * grad.shape[0]


def test_a_function_reading_a_dynamic_size_keeps_the_callers_sizes_usable():
    def fn(x):
        return RowScale.apply(x).sum() + x.shape[0]

    compiled = loom.compile(fn, backend="eager")
    for rows in (3, 5, 7):
        x = torch.randn(rows, 2, requires_grad=True)
        loom.mark_dynamic(x, 0)
        result = compiled(x)
        torch.testing.assert_close(result, fn(x))
        (grad,) = torch.autograd.grad(result, x)
        torch.testing.assert_close(grad, torch.full((rows, 2), float(rows)))


class _DictProduct(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensors):
        ctx.save_for_backward(tensors["a"], tensors["b"])
        return tensors["a"] * tensors["b"] + tensors["k"]

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return None


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_a_dict_of_tensors_and_constants_passed_to_apply_is_one_graph(backend):
    """A plain dict argument is passed to the node as a dict (it broke the graph: only tuples and lists were)."""
    def fn(x):
        return _DictProduct.apply({"a": x, "b": x + 2, "k": 3}) * 2

    x = torch.arange(3.0)
    torch.testing.assert_close(loom.compile(fn, backend=backend, options={"strict": True})(x), fn(x))
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0
