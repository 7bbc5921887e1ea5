"""``torch.ops.aten.<op>.<overload>`` read in the traced code (``torch.ops.aten.mm.default``): the overload
object, fixed by its packet, callable into the graph and usable as a set member, such as a selective
checkpoint policy's set of ops (a ``partial`` over a ``partial`` over that set, made in the frame, as
PyTorch's test_repros builds it). Before, reading ``.default`` was a graph break, and a ``context_fn`` made in
the frame from nested partials broke again (``context_fn must be a constant``)."""

from __future__ import annotations

import functools

import torch
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

import loom


def overload_called_and_compared(x):
    op = torch.ops.aten.sin.default
    return op(x) + torch.ops.aten.add.Tensor(x, 1), op in {torch.ops.aten.sin.default}, op.__name__


def _policy(heavy, ctx, func, *args, **kwargs):
    return CheckpointPolicy.MUST_SAVE if func in heavy else CheckpointPolicy.PREFER_RECOMPUTE


def _body(m):
    return torch.mm(m, m).sin().exp()


def selective_checkpoint_made_in_frame(m):
    context = functools.partial(create_selective_checkpoint_contexts,
                                functools.partial(_policy, frozenset([torch.ops.aten.mm.default])))
    return checkpoint(_body, m, use_reentrant=False, context_fn=context)


def _stats():
    stats = loom.stats()
    return stats["graphs"], stats["graph_breaks"]


def test_overload_read_called_and_compared():
    x = torch.arange(3.0)
    loom.reset()
    result = loom.compile(overload_called_and_compared, backend="eager", options={"strict": True})(x)
    expected = overload_called_and_compared(x)
    torch.testing.assert_close(result[0], expected[0])
    assert result[1:] == expected[1:]
    assert _stats() == (1, 0)


def test_selective_checkpoint_policy_made_in_frame():
    base = torch.arange(9.0).reshape(3, 3) / 10
    m_eager, m_loom = base.clone().requires_grad_(True), base.clone().requires_grad_(True)
    expected = selective_checkpoint_made_in_frame(m_eager)
    expected.sum().backward()
    loom.reset()
    result = loom.compile(selective_checkpoint_made_in_frame, backend="eager", options={"strict": True})(m_loom)
    assert _stats() == (1, 0)
    torch.testing.assert_close(result, expected)
    result.sum().backward()
    torch.testing.assert_close(m_loom.grad, m_eager.grad)


def overload_packet_and_text(x):
    name = "Tensor"
    op = getattr(torch.ops.aten.mul, name)
    return op(x, x), op.overloadpacket is torch.ops.aten.mul, str(op), f"{torch.ops.aten.mul}", op._overloadname


def test_overload_packet_and_text_are_folded():
    x = torch.arange(3.0)
    loom.reset()
    result = loom.compile(overload_packet_and_text, backend="eager", options={"strict": True})(x)
    expected = overload_packet_and_text(x)
    torch.testing.assert_close(result[0], expected[0])
    assert result[1:] == expected[1:]
    assert _stats() == (1, 0)


def overload_name_and_schema(x):
    op = torch.ops.aten.sin.default
    return op(x), op.name(), op._schema.name, len(op._schema.arguments)


def test_overload_name_and_schema_are_folded():
    x = torch.arange(3.0)
    loom.reset()
    result = loom.compile(overload_name_and_schema, backend="eager", options={"strict": True})(x)
    expected = overload_name_and_schema(x)
    torch.testing.assert_close(result[0], expected[0])
    assert result[1:] == expected[1:]
    assert _stats() == (1, 0)
