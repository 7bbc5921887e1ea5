"""Every elementwise lowering rule against eager ATen: dtypes, shapes, layouts, scalars, NaN and inf."""

from __future__ import annotations

import pytest
import torch

from loom_backends.kernels.lowering import pointwise

aten = torch.ops.aten
FLOATS = [torch.float32, torch.float16, torch.bfloat16]
ALL = [*FLOATS, torch.int32, torch.int64, torch.bool]


def sample(shape, dtype, *, layout="contiguous", seed=0, positive=False):
    g = torch.Generator().manual_seed(seed)
    if layout == "transposed":
        shape = tuple(reversed(shape))
    if dtype.is_floating_point:
        x = torch.randn(shape, generator=g) * 2
        x = x.abs() + 0.1 if positive else x
    elif dtype == torch.bool:
        x = torch.randint(0, 2, shape, generator=g).bool()
    else:
        x = torch.randint(1 if positive else -9, 10, shape, generator=g)
    x = x.to(dtype)
    if layout == "transposed":
        x = x.t()
    elif layout == "sliced":
        x = x[..., ::2]
    return x


def _eager_supports(fn, *inputs):
    try:
        fn(*inputs)
    except (RuntimeError, NotImplementedError, TypeError):
        return False
    return True


def _unary_ops():
    return [op for op in pointwise.UNARY]


@pytest.mark.parametrize("op", _unary_ops(), ids=lambda op: op.__name__)
@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_unary(op, dtype, check):
    x = sample((4, 6), dtype, layout="transposed" if dtype == torch.float32 else "contiguous")
    fn = lambda a: op(a)
    if not _eager_supports(fn, x):
        pytest.skip(f"eager {op} does not take {dtype}")
    check.aten(fn, x)


BINARY_OPS = [*pointwise.BINARY, *pointwise.COMPARISONS, aten.add.Tensor, aten.sub.Tensor, aten.div.Tensor, aten.pow.Tensor_Tensor]


@pytest.mark.parametrize("op", BINARY_OPS, ids=lambda op: str(op).replace("aten.", ""))
@pytest.mark.parametrize("dtypes", [(torch.float32, torch.float32), (torch.float16, torch.float16),
                                    (torch.bfloat16, torch.float32), (torch.int32, torch.int64),
                                    (torch.int64, torch.int64), (torch.bool, torch.bool), (torch.int32, torch.float32)],
                         ids=lambda d: f"{d[0]}-{d[1]}".replace("torch.", ""))  # fmt: skip
def test_binary_broadcast(op, dtypes, check):
    a = sample((3, 5), dtypes[0], layout="sliced" if dtypes[0] == torch.float32 else "contiguous", seed=1)
    b = sample((5,), dtypes[1], seed=2, positive=True)  # positive divisors and exponents keep ints defined
    a = a[:, :3] if a.shape[-1] != 3 else a
    b = b[:3]
    fn = lambda x, y: op(x, y)
    if not _eager_supports(fn, a, b):
        pytest.skip("eager does not take these dtypes")
    integer_pow = op is aten.pow.Tensor_Tensor and not (a.dtype.is_floating_point or b.dtype.is_floating_point)
    check.aten(fn, a, b, externs=1 if integer_pow else 0)  # integer ** tensor is left to ATen


SCALAR_OPS = {
    aten.add.Tensor: [2, 0.5, True],
    aten.sub.Tensor: [3, -1.5],
    aten.mul.Tensor: [3, 0.25, False],
    aten.div.Tensor: [4, 0.5],
    aten.pow.Tensor_Scalar: [2, 3, 0.5, -1, -2, 1.7, 0],
    aten.remainder.Scalar: [3, -2.5],
    aten.fmod.Scalar: [3, -2.5],
    aten.eq.Scalar: [1, 0.5],
    aten.lt.Scalar: [0, 1.5],
    aten.maximum: [],
}


@pytest.mark.parametrize("op", [op for op in SCALAR_OPS if SCALAR_OPS[op]], ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64], ids=str)
def test_with_python_scalars(op, dtype, check):
    x = sample((2, 7), dtype, positive=op is aten.pow.Tensor_Scalar)
    for scalar in SCALAR_OPS[op]:
        fn = _with_scalar(op, scalar)
        if not _eager_supports(fn, x):
            continue
        check.aten(fn, x)


def _with_scalar(op, scalar):
    def fn(a):
        return op(a, scalar)

    return fn


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
def test_half_scalar_operands_round_like_eager(dtype, check):
    # ATen converts the scalar to the tensor's dtype (h == 0.1 compares with float16(0.1)), except in
    # add/sub/mul/div and floor_divide, which keep it in float32
    x = torch.tensor([0.1, 0.3, 1.0, 7.0, 65000.0, -0.7, 0.7], dtype=dtype)
    for op in (aten.eq.Scalar, aten.ge.Scalar, aten.lt.Scalar, aten.remainder.Scalar, aten.fmod.Scalar,
               aten.floor_divide.default, aten.mul.Tensor):  # fmt: skip
        for scalar in (0.1, 0.3, 0.7):
            check.aten(_with_scalar(op, scalar), x, exact_float=True)


def test_integer_scalars_wrap_to_small_dtypes_like_eager(check):
    # ATen converts the scalar to the tensor's dtype modulo 2**bits: uint8 + (-1) adds 255
    u, i8 = torch.tensor([0, 1, 200], dtype=torch.uint8), torch.tensor([1, -100, 127], dtype=torch.int8)
    check.aten(lambda a: aten.add.Tensor(a, -1), u)
    check.aten(lambda a: aten.eq.Scalar(a, -1), torch.tensor([255, 1], dtype=torch.uint8))
    check.aten(lambda a: aten.bitwise_and.Scalar(a, 300), u)
    check.aten(lambda a: aten.rsub.Scalar(a, 300), i8)
    check.aten(lambda a: aten.lt.Scalar(a, 200), i8)
    check.aten(lambda a: aten.add.Tensor(a, 2**33 + 5), torch.tensor([1, 2], dtype=torch.int32))


def test_half_scalar_bounds_and_branches_are_half_values(check):
    # clamp/hardtanh bounds and where's scalar branch are float16(0.1), so `== 0.1` holds as in eager
    h = torch.tensor([0.05, 0.1, 0.2, 0.35], dtype=torch.float16)
    eq = aten.eq.Scalar
    check.aten(lambda a: eq(aten.clamp.default(a, 0.1, 0.3), 0.1), h)
    check.aten(lambda a, m: eq(aten.clamp.Tensor(a, m), 0.1), h, torch.tensor(0.1))
    check.aten(lambda a: eq(aten.hardtanh.default(a, -0.1, 0.1), 0.1), h)
    check.aten(lambda a: eq(aten.where.ScalarOther(aten.gt.Scalar(a, 0.15), a, 0.1), 0.1), h)


def test_half_with_a_zero_dim_float_operand_rounds_it_like_eager(check):
    # a 0-d float32 tensor does not promote a float16 one: ATen converts it to float16 (h == s is True)
    h = torch.tensor([0.1, 0.3, 7.0], dtype=torch.float16)
    for op in (aten.eq.Tensor, aten.ge.Tensor, aten.remainder.Tensor, aten.mul.Tensor):
        for s in (torch.tensor(0.1), torch.tensor(0.7, dtype=torch.float64)):
            check.aten(_binary(op), h, s, exact_float=True)


def _binary(op):
    def fn(a, b):
        return op(a, b)

    return fn


def test_scalar_first_ops(check):
    x = sample((6,), torch.float32, positive=True)
    check.aten(lambda a: aten.pow.Scalar(2.0, a), x)
    check.aten(lambda a: aten.rsub.Scalar(a, 1.5), x)
    check.aten(lambda a: aten.where.ScalarOther(aten.gt.Scalar(a, 0.5), a, 0.0), x)


@pytest.mark.parametrize(
    "name, fn",
    [
        ("add_alpha", lambda a, b: aten.add.Tensor(a, b, alpha=2.5)),
        ("sub_alpha", lambda a, b: aten.sub.Tensor(a, b, alpha=3)),
        ("div_trunc", lambda a, b: aten.div.Tensor_mode(a, b, rounding_mode="trunc")),
        ("div_floor", lambda a, b: aten.div.Tensor_mode(a, b, rounding_mode="floor")),
        ("where", lambda a, b: aten.where.self(aten.gt.Tensor(a, b), a, b)),
        ("clamp", lambda a, b: aten.clamp.default(a, -0.5, 0.75)),
        ("clamp_min", lambda a, b: aten.clamp.default(a, 0.1)),
        ("clamp_tensor", lambda a, b: aten.clamp.Tensor(a, b, None)),
        ("hardtanh", lambda a, b: aten.hardtanh.default(a, -0.3, 0.6)),
        ("relu", lambda a, b: aten.relu.default(a)),
        ("leaky_relu", lambda a, b: aten.leaky_relu.default(a, 0.2)),
        ("elu", lambda a, b: aten.elu.default(a, 1.3, 1.1, 0.9)),
        ("gelu", lambda a, b: aten.gelu.default(a)),
        ("gelu_tanh", lambda a, b: aten.gelu.default(a, approximate="tanh")),
        ("silu", lambda a, b: aten.silu.default(a)),
        ("lerp", lambda a, b: aten.lerp.Scalar(a, b, 0.3)),
        ("lerp_tensor", lambda a, b: aten.lerp.Tensor(a, b, aten.sigmoid.default(b))),
        ("round_decimals", lambda a, b: aten.round.decimals(a, decimals=2)),
        ("round", lambda a, b: aten.round.default(aten.mul.Tensor(a, 4))),
        ("sigmoid", lambda a, b: aten.sigmoid.default(a)),
    ],
)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32], ids=str)
def test_ops_with_arguments(name, fn, dtype, check):
    a, b = sample((3, 8), dtype, seed=3), sample((3, 8), dtype, seed=4, positive=True)
    if not _eager_supports(fn, a, b):
        pytest.skip("eager does not take these dtypes")
    if name == "div_floor" and dtype == torch.int32:
        a = a - 4  # negative dividends exercise Python's floor division
    check.aten(fn, a, b)


SPECIAL = torch.tensor([float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1.0, -1.0, 0.5, 1e30, -1e-30])


@pytest.mark.parametrize("op", _unary_ops(), ids=lambda op: op.__name__)
def test_unary_nan_and_inf_propagate_like_eager(op, check):
    fn = lambda a: op(a)
    if not _eager_supports(fn, SPECIAL):
        pytest.skip("not a float op")
    check.aten(fn, SPECIAL.clone())


@pytest.mark.parametrize("op", [aten.maximum, aten.minimum, aten.add.Tensor, aten.mul.Tensor, aten.div.Tensor,
                                aten.atan2, aten.remainder.Tensor, aten.fmod.Tensor, aten.pow.Tensor_Tensor,
                                aten.eq.Tensor, aten.lt.Tensor, aten.hypot, aten.copysign.Tensor,
                                aten.floor_divide.default], ids=str)  # fmt: skip
def test_binary_nan_and_inf_propagate_like_eager(op, check):
    # (no huge/tiny magnitudes here: eager's own vectorised and scalar paths disagree on those)
    special = SPECIAL[:8]
    a = special.repeat_interleave(8)
    b = special.repeat(8)
    check.aten(lambda x, y: op(x, y), a, b)


def test_clamp_and_relu_keep_nan(check):
    check.aten(lambda a: (aten.clamp.default(a, 0.0, 1.0), aten.relu.default(a), aten.hardtanh.default(a)), SPECIAL.clone())


def test_integer_division_semantics(check):
    a = torch.arange(-12, 13, dtype=torch.int64)
    b = torch.tensor([-5, -3, -2, -1, 1, 2, 3, 4, 7] * 3, dtype=torch.int64)[:25]
    check.aten(
        lambda x, y: (
            aten.div.Tensor_mode(x, y, rounding_mode="floor"),
            aten.div.Tensor_mode(x, y, rounding_mode="trunc"),
            aten.remainder.Tensor(x, y),
            aten.fmod.Tensor(x, y),
            aten.div.Tensor(x, y),
        ),
        a,
        b,
    )


def test_zero_dim_and_empty_tensors(check):
    check.aten(lambda a, b: aten.add.Tensor(a, b), torch.tensor(1.5), torch.randn(3))
    check.aten(lambda a: aten.exp.default(a), torch.tensor(0.25))
    check.aten(lambda a: aten.mul.Tensor(a, 2), torch.empty(0, 3))


def test_zero_dim_predicates_combine_with_tensors(check):
    # a 0-d comparison broadcast against a block (Triton's interpreter typed it like its operands)
    x, s = torch.randn(2, 3), torch.tensor(0.5)
    gt = aten.gt.Scalar
    check.aten(lambda a, b: aten.bitwise_and.Tensor(gt(a, 0), gt(b, 0)), x, s)
    check.aten(lambda a, b: aten.bitwise_or.Tensor(gt(b, 0), aten.lt.Scalar(a, 0)), x, s)
    check.aten(lambda a, b: aten.mul.Tensor(aten.bitwise_xor.Tensor(gt(a, 0), gt(b, 0)), 2.0), x, s)
    check.aten(lambda a, b: aten.logical_and.default(a, b), x, s)
    check.aten(lambda a, b: aten.logical_or.default(b, a), x, s)


@pytest.mark.parametrize("op", [aten.maximum.default, aten.minimum.default], ids=str)
def test_maximum_minimum_of_a_zero_dim_and_a_tensor(op, check):
    x = torch.tensor([[1.5, -2.0, float("nan")], [0.0, -0.0, 9.0]])
    for s in (torch.tensor(2.0), torch.tensor(float("nan"))):
        check.aten(lambda a, b: op(b, a), x, s)
        check.aten(lambda a, b: op(a, b), x, s)


@pytest.mark.triton_only
def test_expanded_input_is_read_through_stride_zero(check):
    x = torch.randn(4, 1).expand(4, 6)
    compiled = check.aten(lambda a: aten.mul.Tensor(a, 3.0), x)
    assert "6*" not in compiled.kernels[0].source.split("tl.load")[1].split(")")[0]


def test_every_core_pointwise_op_is_lowered():
    """Each elementwise core ATen op (torch.Tag.pointwise and core) has a rule (``.out`` variants aside)."""
    from loom_backends.kernels.lowering import lookup

    missing = []
    for name in dir(aten):
        packet = getattr(aten, name)
        if not isinstance(packet, torch._ops.OpOverloadPacket):
            continue
        for overload in packet.overloads():
            op = getattr(packet, overload)
            if torch.Tag.core in op.tags and torch.Tag.pointwise in op.tags and "out" not in overload:
                if lookup(op) is None:
                    missing.append(str(op))
    assert missing == []
