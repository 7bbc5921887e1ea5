"""Objects of classes registered with torch's pytrees (``register_dataclass``, ``register_pytree_node``) as nodes of
higher-order ops' arguments and results, as torch.compile takes them: a checkpointed function's results, ``map``'s
``xs``, ``vmap``'s arguments and results, ``grad``'s arguments (its gradients come back as the class), ``vjp``'s
outputs and cotangents. The class's
own flatten and unflatten functions are traced; one graph, eager's values, types and gradients."""

from __future__ import annotations

import dataclasses

import pytest
import torch
import torch.utils._pytree as pytree
from torch._higher_order_ops.map import map as hop_map
from torch.utils.checkpoint import checkpoint

import loom


@dataclasses.dataclass
class Point:
    u: torch.Tensor
    v: torch.Tensor


pytree.register_dataclass(Point)


class Box:
    """A plain class registered with its own functions (its context, a scale, is a constant)."""

    def __init__(self, a, b, scale=1.0):
        self.a, self.b, self.scale = a, b, scale


pytree.register_pytree_node(Box, lambda box: ([box.a, box.b], box.scale),
                            lambda children, scale: Box(children[0], children[1], scale))


def checkpoint_point(x):
    return checkpoint(lambda t: Point(t.sin(), t * 3), x, use_reentrant=False)


def checkpoint_box(x):
    return checkpoint(lambda t: Box(t.exp(), t * t, 2.5), x, use_reentrant=False)


def vmap_point_argument(x):
    return torch.vmap(lambda p: p.u * p.v.sum())(Point(torch.stack([x, x + 1]), torch.stack([x, x * 2])))


def vmap_box_result(x):
    return torch.vmap(lambda r: Box(r * 2, r.cos(), 0.5))(torch.stack([x, x - 1]))


def map_over_points(x):
    return hop_map(lambda p: p.u - p.v, Point(torch.stack([x, x]), torch.stack([x + 1, x - 1])))


def grad_of_point(x):
    return torch.func.grad(lambda p: (p.u * p.v.sin()).sum())(Point(x, x + 2))


def vjp_of_point_output(x):
    out, fn = torch.func.vjp(lambda t: Point(t.sin(), t * 2), x)
    return out.u * 2 + fn(Point(torch.ones(3), torch.full((3,), 0.5)))[0]


def same(got, want):
    assert type(got) is type(want)
    if isinstance(want, torch.Tensor):
        torch.testing.assert_close(got, want)
        return
    fields = ("u", "v") if isinstance(want, Point) else ("a", "b")
    for name in fields:
        torch.testing.assert_close(getattr(got, name), getattr(want, name))
    if isinstance(want, Box):
        assert got.scale == want.scale


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("fn", [checkpoint_point, checkpoint_box, vmap_point_argument, vmap_box_result,
                                map_over_points, grad_of_point, vjp_of_point_output])
def test_registered_classes_are_pytree_nodes_of_higher_order_ops(fn, backend):
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
