"""torch.func transforms translated without the hook: one graph holding ``call_transform``, eager's values
(the facade-level tests, with every backend and gradients, are in tests/test_func_transforms.py)."""

from __future__ import annotations

import torch
from harness import check

from loom_symbolic.func_calls import Template, call_transform

F = torch.func


def _targets(translation):
    return [n.target for g in translation.graphs for n in g.graph_module.graph.nodes if n.op == "call_function"]


def test_template_round_trips_a_structure_around_its_tensors():
    a, b = torch.randn(2), torch.randn(3)
    value = ({"w": a, "n": 3}, [b, None, "s"])
    template = Template.of(value)
    assert template.tensors(value) == [a, b]
    c, d = torch.zeros(2), torch.ones(3)
    rebuilt = template.fill([c, d])
    assert rebuilt[0]["w"] is c and rebuilt[0]["n"] == 3 and rebuilt[1][0] is d and rebuilt[1][1:] == [None, "s"]


def test_grad_vmap_and_jvp_are_one_node_each_with_eagers_values():
    def fn(x, w):
        g, v = F.grad_and_value(lambda a, b: (a @ b).sin().sum(), argnums=1)(x, w)
        rows = torch.vmap(lambda r: r.cos() * 2, in_dims=1, out_dims=1)(x)
        out, tangent = F.jvp(lambda a: a.exp(), (w,), (torch.ones_like(w),))
        return g, v, rows, out, tangent

    translation = check(fn, torch.randn(2, 3), torch.randn(3, 3))
    assert _targets(translation).count(call_transform) == 3


def test_nested_transforms_nest_their_bodies():
    def fn(x):
        return torch.vmap(F.grad(lambda r: (r.sin() ** 2).sum()))(x)

    translation = check(fn, torch.randn(4, 3))
    (graph,) = translation.graphs
    outer = [m for name, m in graph.graph_module.named_children() if name.startswith("func_vmap")]
    assert len(outer) == 1
    inner = [n for n in outer[0].body.graph.nodes if n.target is call_transform]
    assert len(inner) == 1  # the grad is a node of vmap's body, its own body an attribute of that body
