"""Index arithmetic over symbolic sizes: the simplifier's rules that hold for every size, the printer,
and the size variables (names, host sources, bounds). Pure Python: no kernels run here."""

from __future__ import annotations

import sympy
import torch

from loom_backends.kernels import symbols
from loom_backends.kernels.sizevars import SizeVars
from loom_backends.kernels.symbols import RINDEX, XINDEX, FloorDiv, ModularIndexing, simplify, texpr, unravel

s0, s1 = symbols.sym("s0"), symbols.sym("s1")


def test_contiguous_access_over_a_symbolic_range_is_the_flat_index():
    coords = unravel(XINDEX, [s0, 3], {XINDEX: 3 * s0})
    assert coords == [FloorDiv(XINDEX, 3), ModularIndexing(XINDEX, 1, 3)]
    assert simplify(3 * coords[0] + coords[1], {XINDEX: 3 * s0}) == XINDEX
    three = unravel(XINDEX, [s0, s1, 4], {XINDEX: 4 * s0 * s1})
    assert simplify(4 * s1 * three[0] + 4 * three[1] + three[2], {XINDEX: 4 * s0 * s1}) == XINDEX


def test_range_rules_need_a_proof_for_every_size():
    # xindex < s0 * s1: xindex % (s0 * s1) is xindex, but xindex % s0 is not
    rng = {XINDEX: s0 * s1}
    assert simplify(ModularIndexing(XINDEX, 1, s0 * s1), rng) == XINDEX
    assert simplify(ModularIndexing(XINDEX, 1, 2 * s0 * s1), rng) == XINDEX
    assert simplify(ModularIndexing(XINDEX, 1, s0), rng) == ModularIndexing(XINDEX, 1, s0)
    assert simplify(FloorDiv(XINDEX, s0 * s1), rng) == 0
    assert simplify(FloorDiv(XINDEX, s0), rng) == FloorDiv(XINDEX, s0)
    # a static rule never fires on a symbolic range
    assert simplify(ModularIndexing(RINDEX, 1, 8), {RINDEX: s0}) == ModularIndexing(RINDEX, 1, 8)


def test_printer_parenthesises_products_right_of_floordiv_and_mod():
    assert texpr(FloorDiv(XINDEX, 16 * s1)) == "xindex // (16*s1)"
    assert texpr(ModularIndexing(XINDEX, 8 * s1, 2)) == "(xindex // (8*s1)) % 2"
    assert texpr(ModularIndexing(XINDEX, 1, s0)) == "xindex % s0"
    assert texpr(sympy.Min(s0, s1)) == "min(s0, s1)"
    assert eval(texpr(FloorDiv(XINDEX, 16 * s1)), {"xindex": 100, "s1": 3}) == 100 // 48


def _env_and_fake(shape, dynamic_dims):
    from torch._dynamo.source import LocalSource
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, StatelessSymbolicContext

    env = ShapeEnv()
    context = StatelessSymbolicContext(
        dynamic_sizes=[DimDynamic.DYNAMIC if d in dynamic_dims else DimDynamic.STATIC for d in range(len(shape))],
        constraint_sizes=[None] * len(shape),
    )
    fake = FakeTensorMode(shape_env=env).from_tensor(torch.randn(*shape), symbolic_context=context, source=LocalSource("x"))
    return env, fake


def test_size_variables_are_named_in_input_order_and_bound_to_the_inputs():
    env, fake = _env_and_fake((5, 3, 7), {0, 2})
    sv = SizeVars()
    sv.attach(fake)
    sizes = sv.exprs(fake.shape)
    assert [str(s) for s in sizes] == ["s0", "3", "s1"]  # not the ShapeEnv's own numbering
    for d, size in enumerate(sizes):
        sv.bind(size, f"arg0.shape[{d}]")
    sv.freeze()
    assert [(s.name, text) for s, text in sv.bound()] == [("s0", "arg0.shape[0]"), ("s1", "arg0.shape[2]")]
    assert sv.expr(fake.stride(0)) == 3 * s1
    assert sv.hint(3 * sizes[0] * sizes[2]) == 105  # the traced sizes: statistics only


def test_bounds_come_from_the_shape_env():
    env, fake = _env_and_fake((5, 3), {0})
    sv = SizeVars()
    sv.attach(fake)
    (n, _) = sv.exprs(fake.shape)
    assert sv.provably_nonnegative(n - 2)  # dynamic sizes are >= 2
    assert not sv.provably_nonnegative(n - 3)
    assert sv.provably_le(1, n) and not sv.provably_le(n, 64)
    assert sv.provably_le(FloorDiv(n + 1, 2), n)  # (s0 + 1) // 2 <= s0 needs the // relaxed
    assert sv.provably_nonnegative(n - FloorDiv(n + 1, 2))
    assert not sv.provably_le(n, FloorDiv(n, 2))


def test_floor_forms_are_printed_where_the_left_operand_may_be_negative():
    neg = -ModularIndexing(s0, 1, 4)
    assert texpr(ModularIndexing(neg, 1, 4)) == "(((-(s0 % 4)) % 4 + 4) % 4)"
    assert texpr(FloorDiv(s0 - 5, 4)) == "((-5 + s0) - (((-5 + s0) % 4 + 4) % 4)) // 4"
    assert symbols.cexpr(ModularIndexing(s0 + 3, 1, 4)) == "(3 + s0) % 4"  # provably non-negative: plain
