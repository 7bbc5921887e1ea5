"""loom's common-subexpression elimination of the joint graph (``loom_backends.partition``): what it merges,
what it must leave alone, and that the kernel backends' partitioner no longer imports inductor."""

from __future__ import annotations

import torch
from torch.fx.experimental.proxy_tensor import make_fx

from loom_backends.partition import eliminate_common_subexpressions

aten = torch.ops.aten


def ops_after_cse(fn, *inputs):
    gm = make_fx(fn, tracing_mode="fake")(*inputs)
    merged = eliminate_common_subexpressions(gm.graph)
    gm.recompile()
    return merged, [n.target for n in gm.graph.nodes if n.op == "call_function"], gm


def test_a_duplicate_computation_is_merged_and_values_kept():
    def f(x):
        return (aten.sin.default(x) * 2 + aten.sin.default(x),)

    x = torch.randn(5)
    merged, ops, gm = ops_after_cse(f, x)
    assert merged == 1 and ops.count(aten.sin.default) == 1
    torch.testing.assert_close(gm(x), f(x))


def test_random_draws_and_uninitialised_memory_are_never_merged():
    def f(x):
        a, b = aten.rand_like.default(x), aten.rand_like.default(x)
        c, d = aten.empty.memory_format([3]), aten.empty.memory_format([3])
        return (a + b, c, d)

    merged, ops, _ = ops_after_cse(f, torch.randn(4))
    assert merged == 0 and ops.count(aten.rand_like.default) == 2


def test_values_differing_only_in_the_sign_of_zero_or_across_a_mutation_stay_apart():
    def signs(x):
        return (aten.mul.Tensor(x, 0.0) + aten.mul.Tensor(x, -0.0),)

    merged, _, _ = ops_after_cse(signs, torch.randn(3))
    assert merged == 0

    def mutating(x, y):
        a = aten.sin.default(x)
        aten.copy_.default(x, y)
        return (a + aten.sin.default(x),)

    merged, ops, _ = ops_after_cse(mutating, torch.randn(3), torch.randn(3))
    assert merged == 0 and ops.count(aten.sin.default) == 2


def test_two_returned_tensors_with_equal_contents_stay_two_tensors():
    def f(x):
        return (aten.cos.default(x), aten.cos.default(x))

    merged, ops, gm = ops_after_cse(f, torch.randn(3))
    assert merged == 0 and ops.count(aten.cos.default) == 2


def test_a_duplicate_multi_output_op_and_its_elements_are_merged():
    def f(x):
        v1, m1 = aten.var_mean.correction(x, [1], correction=1)
        v2, m2 = aten.var_mean.correction(x, [1], correction=1)
        return (v1 * m2 + v2,)

    x = torch.randn(4, 6)
    merged, ops, gm = ops_after_cse(f, x)
    assert ops.count(aten.var_mean.correction) == 1 and merged >= 2
    torch.testing.assert_close(gm(x), f(x))
