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
    # the checkpoint is one tag_activation_checkpoint op in the frame's graph (tests/test_higher_order_ops.py)
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0


# -- optimizer steps inside the compiled function (issue 20) ---------------------------------------
OPTIMIZERS = {
    "sgd": lambda params, foreach: torch.optim.SGD(params, lr=0.1, momentum=0.9, foreach=foreach),
    "adam": lambda params, foreach: torch.optim.Adam(params, lr=0.01, foreach=foreach),
    "adamw": lambda params, foreach: torch.optim.AdamW(params, lr=0.01, weight_decay=0.1, foreach=foreach),
}


def _model_and_optimizer(kind, foreach):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 4))
    return model, OPTIMIZERS[kind](model.parameters(), foreach)


def _training_step(model, optimizer):
    """The step as users write it: ``optimizer.step()`` goes through torch's ``profile_hook_step``
    wrapper (a ``record_function`` region and the global optimizer hooks, an OrderedDict's values)."""

    def train_step(x, y):
        loss = torch.nn.functional.mse_loss(model(x), y)
        value = loss.detach()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        return value

    return train_step


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("foreach", [False, True], ids=["for-loop", "foreach"])
@pytest.mark.parametrize("kind", list(OPTIMIZERS))
def test_a_compiled_training_step_updates_parameters_as_eager_does(kind, foreach, backend):
    batches = [(torch.randn(5, 8), torch.randn(5, 4)) for _ in range(4)]
    results = []
    for compiled in (False, True):
        model, optimizer = _model_and_optimizer(kind, foreach)
        step = _training_step(model, optimizer)
        if compiled:
            step = loom.compile(step, backend=backend)
        losses = [step(x, y) for x, y in batches]
        results.append((torch.stack(losses), [p.detach().clone() for p in model.parameters()]))
    (losses, params), (expected_losses, expected_params) = results[1], results[0]
    torch.testing.assert_close(losses, expected_losses)
    for p, q in zip(params, expected_params):
        torch.testing.assert_close(p, q)
    assert not torch.equal(params[0], _model_and_optimizer(kind, foreach)[0][0].weight)  # it trained


@pytest.mark.parametrize("foreach", [False, True], ids=["for-loop", "foreach"])
@pytest.mark.parametrize("kind", list(OPTIMIZERS))
def test_the_whole_training_step_is_one_graph(kind, foreach):
    """The loss, ``backward`` (recorded in the graph) and the update: one graph, no break. ``zero_grad``,
    which torch wraps in ``_disable_dynamo``, is traced into the graph's side effects. The for-loop Adam
    adds its 0-d step size with ``addcdiv_(value=tensor)``, recorded as its kernel's ops."""
    model, optimizer = _model_and_optimizer(kind, foreach)
    step = _training_step(model, optimizer)
    x, y = torch.randn(5, 8), torch.randn(5, 4)
    step(x, y)  # the optimizer's state exists from here on, as after any first step
    report = loom.explain(step)(x, y)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    ops = report.ops_per_graph[0]
    assert "torch.autograd.grad" in ops and sum(op.endswith("_") for op in ops) >= 3, ops  # the backward, the in-place updates


def test_the_first_step_creates_the_state_and_the_next_one_compiles_the_update():
    """Before its first step an optimizer has no state: that step's update is a graph that makes it (the
    missing ``state[p]`` is inserted as ``defaultdict`` does and stored after the graph), guarded on the key
    being absent, so the next call compiles again, with the update of a step that finds its state."""
    results = []
    for compiled in (False, True):
        model, optimizer = _model_and_optimizer("adam", True)
        step = _training_step(model, optimizer)
        if compiled:
            step = loom.compile(step, backend="aot_eager")
        torch.manual_seed(1)
        for _ in range(4):
            step(torch.randn(5, 8), torch.randn(5, 4))
        results.append([p.detach().clone() for p in model.parameters()])
    for p, q in zip(results[1], results[0]):
        torch.testing.assert_close(p, q)
    stats = loom.stats()
    # the step making the state, and the step from step 2 on (each with its backward in the graph)
    assert stats["recompiles"] == 1 and stats["graphs"] == 2 and stats["graph_breaks"] == 0, stats
    assert stats["cache_hits"] >= 2, stats


def test_the_update_still_compiles_after_torch_compile_patched_the_optimizers():
    """The first time torch.compile compiles, dynamo wraps every optimizer's ``_init_group`` in its own
    ``disable``; loom traces the function underneath, so the update is still a graph."""
    import torch._dynamo.eval_frame

    torch._dynamo.eval_frame.TorchPatcher.patch()
    model, optimizer = _model_and_optimizer("adam", True)
    step = _training_step(model, optimizer)
    x, y = torch.randn(5, 8), torch.randn(5, 4)
    step(x, y)
    report = loom.explain(step)(x, y)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
