"""Named tuples (and torch's structseqs) as pytree nodes of higher-order ops, as torch's pytrees take them:
``cond``'s and ``map``'s results, ``map``'s ``xs``, ``while_loop``'s carried values, a checkpointed function's
results, ``vmap``'s results and ``grad``'s arguments are one graph with eager's values, types and gradients (a
named tuple rebuilt as the same class). ``cond``'s operands stay refused as eager refuses them."""

from __future__ import annotations

import collections

import pytest
import torch
import torch.utils._pytree as pytree
from torch._higher_order_ops.map import map as hop_map
from torch._higher_order_ops.while_loop import while_loop
from torch.utils.checkpoint import checkpoint

import loom

Pair = collections.namedtuple("Pair", ["a", "b"])


def cond_result(x):
    return torch.cond(x.sum() > 1, lambda t: Pair(t + 1, t * t), lambda t: Pair(t * 2, t / 2), (x,))


def map_result(x):
    return hop_map(lambda r: Pair(r.sin(), r * 2), torch.stack([x, x + 1]))


def map_over_pairs(x):
    return hop_map(lambda p: p.a * p.b, Pair(torch.stack([x, x]), torch.stack([x + 1, x - 1])))


def loop_carrying_a_pair(x):
    def body_fn(p):
        return (Pair(p.a * 2 + 1, p.b + 1),)
    return while_loop(lambda p: p.a.sum() < 20, body_fn, (Pair(x.detach(), x.detach().clone()),))


def checkpoint_result(x):
    return checkpoint(lambda t: Pair(t.exp(), t.sin() * t), x, use_reentrant=False)


def checkpoint_structseq(x):
    return checkpoint(lambda t: (t * 3).sort(descending=True), x, use_reentrant=False)


def vmap_result(x):
    return torch.vmap(lambda r: Pair(r * 2, r.sum()))(torch.stack([x, x + 1]))


def grad_over_a_pair(x):
    return torch.func.grad(lambda p: (p.a * p.b.cos()).sum())(Pair(x, x + 2))


def same(got, want):
    assert type(got) is type(want)
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
    else:
        torch.testing.assert_close(got, want)


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("fn", [cond_result, map_result, map_over_pairs, loop_carrying_a_pair, checkpoint_result,
                                checkpoint_structseq, vmap_result, grad_over_a_pair])
def test_named_tuples_are_pytree_nodes_of_higher_order_ops(fn, backend):
    x_want = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    x_got = x_want.detach().clone().requires_grad_()
    loom.reset()
    report = loom.explain(fn, backend=backend)(x_got.detach().clone())
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    want, got = fn(x_want), loom.compile(fn, backend=backend)(x_got)
    same(got, want)
    wanted, gotten = ([t for t in pytree.tree_leaves(v) if t.requires_grad] for v in (want, got))
    assert len(wanted) == len(gotten)
    if wanted:
        sum(t.sum() for t in wanted).backward()
        sum(t.sum() for t in gotten).backward()
        torch.testing.assert_close(x_got.grad, x_want.grad)


def test_cond_over_a_named_tuple_operand_raises_as_eager():
    def fn(x):
        return torch.cond(x.sum() > 1, lambda p: p.a + p.b, lambda p: p.a - p.b, (Pair(x, x * 3),))
    with pytest.raises(Exception) as want:
        fn(torch.arange(3.0))
    loom.reset()
    with pytest.raises(type(want.value)):
        loom.compile(fn, backend="eager")(torch.arange(3.0))
