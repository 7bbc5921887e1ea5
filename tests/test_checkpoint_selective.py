"""Selective activation checkpointing (test/dynamo/test_activation_checkpointing.py): ``checkpoint(fn, ...,
use_reentrant=False, context_fn=...)`` with ``create_selective_checkpoint_contexts`` over an op list or a
policy function.

Any ``context_fn`` broke the graph ("selective checkpointing is not captured"). It is now handed to the
``tag_activation_checkpoint`` node as torch.compile hands it: the op calls it where eager's checkpoint does,
so the policy sees the same ops, forward and recompute, and values and gradients are eager's.
"""

from __future__ import annotations

import contextlib
import functools

import pytest
import torch
import torch.nn.functional as F
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

import loom

W = torch.tensor([[1.0, 0.5, 0.0], [0.0, 1.0, 0.5], [0.5, 0.0, 1.0]])
SEEN = []


def explained(fn, *args):
    loom.reset()
    return loom.explain(fn, backend="eager", options={"strict": True})(*args)


def _policy(ctx, func, *args, **kwargs):
    SEEN.append((str(func), ctx.is_recompute))
    if func == torch.ops.aten.mm.default:
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


def _policy_contexts():
    return create_selective_checkpoint_contexts(_policy)


def _save_mm():
    return create_selective_checkpoint_contexts([torch.ops.aten.mm.default])


def _plain_contexts():
    return contextlib.nullcontext(), contextlib.nullcontext()


def _body(a, b):
    return torch.sigmoid(torch.matmul(a, b)).cos()


def selective_forward(x):
    out = checkpoint(_body, x.reshape(1, 3) + 1, W, use_reentrant=False, context_fn=_save_mm)
    return out * 2


def test_selective_op_list_is_one_graph():
    x = torch.arange(3.0)
    report = explained(selective_forward, x)
    assert report.graph_count == 1 and report.graph_break_count == 0, report.format()
    assert torch.allclose(report.result, selective_forward(x))


def with_policy_and_backward(x):
    a = x.reshape(1, 3).clone().requires_grad_()
    out = checkpoint(_body, a.sin(), W, use_reentrant=False, context_fn=_policy_contexts)
    out.sum().backward()
    return out.detach(), a.grad


def test_policy_sees_the_ops_eager_shows_it():
    x = torch.arange(3.0)
    SEEN.clear()
    expected = with_policy_and_backward(x)
    eager_seen = list(SEEN)
    SEEN.clear()
    report = explained(with_policy_and_backward, x)
    assert all(torch.allclose(a, b) for a, b in zip(report.result, expected))
    assert SEEN == eager_seen
    assert not any("context_fn" in str(b) for b in report.breaks), report.format()


def with_plain_contexts(x):
    a = x.clone().requires_grad_()
    out = checkpoint(lambda t: t.exp() * t, a, use_reentrant=False, context_fn=_plain_contexts)
    out.sum().backward()
    return out.detach(), a.grad


def test_contexts_without_room_for_a_graph_id():
    x = torch.arange(3.0)
    report = explained(with_plain_contexts, x)
    assert all(torch.allclose(a, b) for a, b in zip(report.result, with_plain_contexts(x)))
    assert not any("context_fn" in str(b) for b in report.breaks), report.format()


def with_dropout_and_policy(x):
    torch.manual_seed(0)
    a = x.clone().requires_grad_()
    out = checkpoint(lambda t: F.dropout(t.sin(), 0.5, training=True), a, use_reentrant=False, context_fn=_save_mm)
    out.sum().backward()
    return out.detach(), a.grad


def test_random_draws_with_a_context_fn_break():
    x = torch.arange(3.0)
    report = explained(with_dropout_and_policy, x)
    assert all(torch.equal(a, b) for a, b in zip(report.result, with_dropout_and_policy(x)))
    assert any("context_fn around random draws" in str(b) for b in report.breaks), report.format()


def reentrant_with_context_fn(x):
    return checkpoint(torch.sin, x.clone().requires_grad_(), use_reentrant=True, context_fn=_save_mm)


def test_reentrant_with_context_fn_raises_as_eager():
    x = torch.arange(3.0)
    with pytest.raises(ValueError) as eager:
        reentrant_with_context_fn(x)
    loom.reset()
    with pytest.raises(ValueError) as compiled:
        loom.compile(reentrant_with_context_fn, backend="eager", options={"strict": True})(x)
    assert str(compiled.value) == str(eager.value)


def with_partial_made_here(x):
    contexts = functools.partial(create_selective_checkpoint_contexts, _policy)
    out = checkpoint(_body, x.reshape(1, 3) + 1, W, use_reentrant=False, context_fn=contexts)
    return out * 2


def test_partial_made_in_the_trace():
    x = torch.arange(3.0)
    SEEN.clear()
    expected = with_partial_made_here(x)
    eager_seen = list(SEEN)
    SEEN.clear()
    report = explained(with_partial_made_here, x)
    assert report.graph_count == 1 and report.graph_break_count == 0, report.format()
    assert torch.allclose(report.result, expected) and SEEN == eager_seen


CONTEXT_FN = _save_mm


def through_a_global(x):
    return checkpoint(_body, x.reshape(1, 3), W, use_reentrant=False, context_fn=CONTEXT_FN) + 1


def test_context_fn_read_from_a_global_is_guarded():
    global CONTEXT_FN
    loom.reset()
    compiled = loom.compile(through_a_global, backend="eager", options={"strict": True})
    x = torch.arange(3.0)
    compiled(x)
    SEEN.clear()
    CONTEXT_FN = _policy_contexts
    try:
        compiled(x)
    finally:
        CONTEXT_FN = _save_mm
    assert SEEN, "the new context_fn was not called"


def test_selective_under_aot_autograd():
    # traced by AOTAutograd, checkpoint takes the program's dispatch modes themselves (no wrapper around them)
    x = torch.arange(3.0)
    expected = with_policy_and_backward(x)
    loom.reset()
    got = loom.compile(with_policy_and_backward, backend="aot_eager", options={"strict": True})(x)
    assert all(torch.allclose(a, b) for a, b in zip(got, expected))
