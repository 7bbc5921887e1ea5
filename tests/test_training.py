"""A training step through aot_eager: forward, backward and optimizer step match eager's parameters."""

import copy

import pytest
import torch

import loom
from loom.examples.models import TinyGPT, TinyMLP


def train(model, steps, batches, make_loss):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    losses = []
    for step in range(steps):
        optimizer.zero_grad()
        loss = make_loss(model, batches[step])
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return losses


@pytest.mark.parametrize("kind", ["mlp", "gpt"])
def test_training_steps_match_eager(kind):
    if kind == "mlp":
        model = TinyMLP(width=16, depth=2)
        batches = [torch.randn(8, 16) for _ in range(3)]

        def make_loss(m, x):
            return (m(x) - x).pow(2).mean()
    else:
        model = TinyGPT(vocab=32, dim=16, heads=2, layers=1, context=8)
        batches = [torch.randint(0, 32, (2, 8)) for _ in range(3)]

        def make_loss(m, ids):
            logits = m(ids)
            return torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, 32), ids[:, 1:].reshape(-1))

    reference = copy.deepcopy(model)
    compiled = loom.compile(model, backend="aot_eager")
    losses = train(compiled, 3, batches, make_loss)
    expected = train(reference, 3, batches, make_loss)
    torch.testing.assert_close(torch.stack(losses), torch.stack(expected), rtol=1e-5, atol=1e-6)
    for (name, p), (_, q) in zip(model.named_parameters(), reference.named_parameters()):
        torch.testing.assert_close(p, q, rtol=1e-5, atol=1e-6, msg=name)
    assert loom.stats()["frames_compiled"] == 1  # parameters changing in place do not recompile
    assert loom.stats()["cache_hits"] == 2
    # parameters moved away from their initial values: the test would notice a silent no-op
    initial = copy.deepcopy(model)
    train(compiled, 1, batches, make_loss)
    assert any(not torch.equal(p, q) for p, q in zip(model.parameters(), initial.parameters()))


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_retain_grad_inside_a_compiled_function_keeps_the_gradient(backend):
    def forward(x):
        hidden = x * 2
        hidden.retain_grad()  # acts on the real tensor: a graph break, not an op the graph drops
        return (hidden * hidden).sum(), hidden

    x = torch.arange(1.0, 4.0, requires_grad=True)
    loss, hidden = loom.compile(forward, backend=backend)(x)
    loss.backward()
    assert hidden.retains_grad
    torch.testing.assert_close(hidden.grad, 2 * hidden.detach())


def test_mask_assignment_on_a_tensor_that_requires_grad_trains_through_aot_eager():
    """``hidden[mask] = embedding`` (Wav2Vec2's SpecAugment in train mode): the forward traces, but
    the backward of ``index_put_`` with a boolean index needs ``nonzero``; a graph break, not an
    internal error from the backend."""
    linear = torch.nn.Linear(4, 4)
    embedding = torch.nn.Parameter(torch.randn(4))

    def forward(x, mask):
        hidden = linear(x)
        hidden[mask] = embedding
        return hidden.pow(2).sum()

    x = torch.randn(2, 3, 4)
    mask = torch.tensor([[True, False, True], [False, False, True]])
    grads = []
    for fn in (loom.compile(forward, backend="aot_eager"), forward):
        linear.zero_grad(set_to_none=True)
        embedding.grad = None
        loss = fn(x, mask)
        loss.backward()
        grads.append((loss.detach(), embedding.grad, linear.weight.grad))
    torch.testing.assert_close(grads[0], grads[1])
    assert loom.stats()["graph_breaks"] == 1


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_a_block_under_a_non_reentrant_checkpoint_compiles_without_packing_fake_tensors(backend):
    """``torch.utils.checkpoint`` (``use_reentrant=False``, Hugging Face's gradient checkpointing) packs
    what the first forward saves; compiling the block there must not pack the tracing's FakeTensor ops,
    or the recomputation (a cache hit) saves fewer tensors and backward raises ``CheckpointError``."""
    from torch.utils.checkpoint import checkpoint

    inner, outer = torch.nn.Linear(4, 4), torch.nn.Linear(4, 2)

    def block(x):
        return inner(x).relu()

    def forward(x):
        return outer(checkpoint(block, x, use_reentrant=False)).pow(2).sum()

    x = torch.randn(3, 4, requires_grad=True)
    grads = []
    for fn in (loom.compile(forward, backend=backend), forward):
        loss = fn(x)
        grads.append((loss.detach(), *torch.autograd.grad(loss, (x, inner.weight, outer.weight))))
    torch.testing.assert_close(grads[0], grads[1])
    # an AOTAutograd graph would save the block's tensors in another order than the uncompiled
    # recomputation: under aot_eager the block runs as it is, the frame around it is still compiled
    assert loom.stats()["graphs"] == (2 if backend == "eager" else 1)
