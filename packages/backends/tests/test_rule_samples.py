"""One sample per lowering rule that the thematic tests do not reach, built as explicit FX graphs (so
ops without tensor arguments, like ``arange``, are traced rather than run while tracing)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch

aten = torch.ops.aten
X = "x"  # a placeholder: the first input
Y = "y"  # the second input


def graph(op, *args, **kwargs) -> torch.fx.GraphModule:
    g = torch.fx.Graph()
    inputs = {X: g.placeholder("x"), Y: g.placeholder("y")}

    def arg(a):
        if isinstance(a, str) and a in inputs:
            return inputs[a]
        if isinstance(a, list):
            return [arg(v) for v in a]
        return a

    out = g.call_function(op, tuple(arg(a) for a in args), {k: arg(v) for k, v in kwargs.items()})
    g.output((out,))
    return torch.fx.GraphModule(torch.nn.Module(), g)


x = torch.randn(3, 5)
flags = torch.tensor([[True, False, True], [True, True, True]])
SAMPLES: dict[str, tuple[Callable[[], torch.fx.GraphModule], list[torch.Tensor]]] = {
    "add.Scalar": (lambda: graph(aten.add.Scalar, X, 2), [x, x]),
    "sub.Scalar": (lambda: graph(aten.sub.Scalar, X, 1.5), [x, x]),
    "rsub.Tensor": (lambda: graph(aten.rsub.Tensor, X, Y, alpha=2), [x, x.cos()]),
    "true_divide.Tensor": (lambda: graph(aten.true_divide.Tensor, X, Y), [x, x.cos()]),
    "true_divide.Scalar": (lambda: graph(aten.true_divide.Scalar, X, 3), [torch.arange(-7, 8), x]),
    "convert_element_type": (lambda: graph(torch.ops.prims.convert_element_type.default, X, torch.float64), [x, x]),
    "div.Scalar_mode": (lambda: graph(aten.div.Scalar_mode, X, 3, rounding_mode="floor"), [torch.arange(-7, 8), x]),
    "where.Scalar": (lambda: graph(aten.where.Scalar, X, 1.0, 0.0), [flags, x]),
    "all.default": (lambda: graph(aten.all.default, X), [flags, x]),
    "all.dims": (lambda: graph(aten.all.dims, X, [0], True), [flags, x]),
    "any.default": (lambda: graph(aten.any.default, X), [flags, x]),
    "any.dim": (lambda: graph(aten.any.dim, X, 1), [torch.randint(0, 2, (3, 4)), x]),
    "arange.default": (lambda: graph(aten.arange.default, 5), [x, x]),
    "arange.start": (lambda: graph(aten.arange.start, 2, 9, dtype=torch.float32), [x, x]),
    "arange.start_step": (lambda: graph(aten.arange.start_step, 0.0, 1.0, 0.125), [x, x]),
    "clamp_max.Tensor": (lambda: graph(aten.clamp_max.Tensor, X, Y), [x, x.sin()]),
    "clamp_max.default": (lambda: graph(aten.clamp_max.default, X, 0.3), [x, x]),
    "clamp_min.Tensor": (lambda: graph(aten.clamp_min.Tensor, X, Y), [x, x.sin()]),
    "clamp_min.default": (lambda: graph(aten.clamp_min.default, X, -0.2), [x, x]),
    "detach.default": (lambda: graph(aten.detach.default, X), [x, x]),
    "lift_fresh.default": (lambda: graph(aten.lift_fresh.default, X), [x, x]),
    "lift_fresh_copy.default": (lambda: graph(aten.lift_fresh_copy.default, X), [x, x]),
    "expand_copy.default": (lambda: graph(aten.expand_copy.default, X, [2, 3, 5]), [x, x]),
    "view_copy.default": (lambda: graph(aten.view_copy.default, X, [5, 3]), [x, x]),
    "reshape.default": (lambda: graph(aten.reshape.default, X, [15]), [x, x]),
    "view.dtype": (lambda: graph(aten.view.dtype, X, torch.float32), [x, x]),
    "squeeze.default": (lambda: graph(aten.squeeze.default, X), [x.view(3, 1, 5), x]),
    "mean.default": (lambda: graph(aten.mean.default, X), [x, x]),
    "min.default": (lambda: graph(aten.min.default, X), [x, x]),
    "prod.default": (lambda: graph(aten.prod.default, X), [x, x]),
    "std.default": (lambda: graph(aten.std.default, X), [x, x]),
    "var.default": (lambda: graph(aten.var.default, X), [x, x]),
    "var.dim": (lambda: graph(aten.var.dim, X, [1], False, True), [x, x]),
    "ones.default": (lambda: graph(aten.ones.default, [2, 3]), [x, x]),
    "ones_like.default": (lambda: graph(aten.ones_like.default, X), [x, x]),
    "zeros.default": (lambda: graph(aten.zeros.default, [4], dtype=torch.int32), [x, x]),
}


@pytest.mark.parametrize("name", list(SAMPLES))
def test_rule_sample(name, check):
    build, inputs = SAMPLES[name]
    inputs = check.device(inputs)
    gm = build()
    compiled = check.graph(gm, inputs)
    assert compiled.fallback_reason is None and compiled.externs == []
    check.same(compiled(*inputs), gm(*inputs))
