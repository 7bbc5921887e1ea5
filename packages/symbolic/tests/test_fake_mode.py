"""The direct meta path of LoomFakeTensorMode gives exactly what PyTorch's fake path gives.

Every op in DIRECT_META_OPS is driven through PyTorch's own OpInfo sample inputs (many shapes,
broadcasts, strides, dtypes, with and without autograd) in check mode, which runs both paths on each
call and raises FakeMismatch on any difference in sizes, strides, offset, dtype, device, grad or aliasing,
or when only one path fails.
"""

from __future__ import annotations

import pytest
import torch
from torch.utils import _pytree as pytree

from loom_symbolic.fake_mode import DIRECT_META_OPS, FakeMismatch, LoomFakeTensorMode, describe_mismatch
from loom_symbolic.fake_rules import FACTORY_RULES, RULES

_FLAGS_FROZEN = torch.backends.flags_frozen()
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402 (needs expecttest)

if not _FLAGS_FROZEN:
    # importing PyTorch's op database imports its test utilities, which forbid setting torch.backends flags
    # for the rest of the process (disable_global_flags); a test run in the same process sets them
    # (torch.backends is a module wrapper: the flag lives in the globals of its functions)
    torch.backends.flags_frozen.__globals__["__allow_nonbracketed_mutation_flag"] = True

#: OpInfo names whose samples reach the ops on the direct list.
OPINFO_NAMES = {
    "view", "reshape", "transpose", "t", "permute", "expand", "unsqueeze", "squeeze", "narrow", "select",
    "split", "split_with_sizes", "unbind", "as_strided", "diagonal", "unfold", "chunk", "__getitem__",
    "mm", "addmm", "bmm", "baddbmm", "matmul", "nn.functional.linear", "add", "sub", "mul", "div", "rsub",
    "pow", "maximum", "minimum", "remainder", "fmod", "eq", "ne", "lt", "le", "gt", "ge", "where",
    "masked_fill", "bitwise_not", "bitwise_and", "bitwise_or", "logical_not", "logical_and", "logical_or",
    "clamp", "clamp_min", "clamp_max", "neg", "abs", "exp", "log", "sqrt", "rsqrt", "reciprocal", "sin",
    "cos", "tanh", "sigmoid", "erf", "nn.functional.relu", "nn.functional.gelu", "nn.functional.silu",
    "nn.functional.hardtanh", "nn.functional.leaky_relu", "nn.functional.elu", "nn.functional.softplus",
    "floor", "ceil", "round", "sign", "lerp", "addcmul", "addcdiv", "sum", "mean", "amax", "amin", "max",
    "min", "argmax", "var", "softmax", "log_softmax", "nn.functional.layer_norm", "nn.functional.group_norm",
    "clone", "contiguous", "cat", "stack", "tril", "triu", "cumsum",
    "nn.functional.embedding", "index_select", "gather", "nn.functional.conv1d", "nn.functional.conv2d",
    "nn.functional.pad", "repeat",
}
#: (dtype, requires_grad) runs per OpInfo; a dtype the op does not support on CPU is skipped.
VARIANTS = [(torch.float32, False), (torch.float32, True), (torch.float16, False), (torch.int64, False),
            (torch.bool, False)]
OPINFOS = [o for o in op_db if o.name in OPINFO_NAMES
           and any(dtype in o.supported_dtypes("cpu") for dtype, _ in VARIANTS)]


#: Fake devices the samples are moved to: CUDA fakes need no GPU, and meta kernels can differ by device.
DEVICES = ["cpu", "cuda"]


def _faker(mode: LoomFakeTensorMode, device: str):
    def fake(value):
        if not isinstance(value, torch.Tensor):
            return value
        if device == "cpu":
            return mode.from_tensor(value)
        with mode:  # a CPU-only build cannot move a fake to CUDA, but can make one there
            return torch.empty_strided(value.shape, value.stride(), dtype=value.dtype, device=device,
                                       requires_grad=value.requires_grad)

    return fake


def _call_checked(mode: LoomFakeTensorMode, fn, args, kwargs) -> None:
    try:
        with mode:
            fn(*args, **kwargs)
    except FakeMismatch:
        raise
    except Exception:  # the op refuses these inputs on both paths (the mode checked that both failed)
        pass


def _run_samples(opinfo, dtype: torch.dtype, requires_grad: bool, mode: LoomFakeTensorMode, device: str) -> int:
    ran = 0
    for sample in opinfo.sample_inputs("cpu", dtype, requires_grad=requires_grad):
        args, kwargs = pytree.tree_map(_faker(mode, device), ((sample.input, *sample.args), dict(sample.kwargs)))
        _call_checked(mode, opinfo.op, args, kwargs)
        ran += 1
    return ran


def _checking_mode() -> LoomFakeTensorMode:
    mode = LoomFakeTensorMode()
    mode.check = True
    return mode


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("opinfo", OPINFOS, ids=lambda o: f"{o.name}-{o.variant_test_name}".strip("-"))
def test_direct_meta_matches_pytorch(opinfo, device):
    mode = _checking_mode()
    ran = 0
    supported = opinfo.supported_dtypes("cpu")
    for dtype, requires_grad in VARIANTS:
        # CUDA fakes under autograd need a CUDA build (this CPU-only torch aborts making views of them).
        cuda_grad = requires_grad and device != "cpu" and not torch.backends.cuda.is_built()
        if dtype in supported and (not requires_grad or opinfo.supports_autograd) and not cuda_grad:
            ran += _run_samples(opinfo, dtype, requires_grad, mode, device)
    assert ran > 0


#: Calls OpInfo's samples do not make: Python-number operands (the ``.Scalar`` overloads), clamps with
#: number bounds, ``alias``, and matrix products over transposed operands.
EXTRA_CALLS = {
    "scalar_comparisons": lambda x: [x == 0.5, x != 0.5, x < 0.5, x <= 0.5, x > 0.5, x >= 0.5],
    "clamps": lambda x: [x.clamp(-0.5, 0.5), x.clamp(min=0.1), x.clamp(max=0.1), x.clamp_min(0), x.clamp_max(0)],
    "powers": lambda x: [x ** 2, x ** 0.5, x.pow(3)],
    "alias": lambda x: torch.ops.aten.alias(x),
    "matrix_layouts": lambda x: _matrix_layouts(x),
}


def _matrix_layouts(x):
    """Matrix products over transposed operands (``linear`` passes ``mm`` its weight transposed)."""
    m = x.reshape(x.shape[0], -1)
    b = x.reshape(x.shape[0], x.shape[1], -1)
    return [m @ m.t(), m.t() @ m, torch.addmm(m.sum(1), m, m.t()), torch.nn.functional.linear(m, m, m.sum(1)),
            torch.bmm(b, b.transpose(1, 2)), torch.bmm(b.transpose(1, 2), b)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.float64])
@pytest.mark.parametrize("name", sorted(EXTRA_CALLS))
def test_direct_meta_matches_pytorch_on_extra_calls(name, dtype, device):
    mode = _checking_mode()
    fake = _faker(mode, device)
    for shape in [(4, 3, 5), (2, 3), (1, 3, 1, 1)]:
        x = torch.randn(shape, dtype=dtype)
        for base in (x, x.transpose(0, -1).contiguous().transpose(0, -1)):
            _call_checked(mode, EXTRA_CALLS[name], [fake(base)], {})
    assert mode.checked, "no call took the direct path"


@pytest.mark.parametrize("device", DEVICES)
def test_convolution_of_channels_last_tensors_stays_channels_last(device):
    """Eager keeps a channels-last activation (or weight) channels-last through a convolution, where the meta
    kernel alone answers in the default format: such calls take PyTorch's path (a diffusers UNet's
    upsampled activation fed a group norm that needs the real layout)."""
    mode = _checking_mode()
    fake = _faker(mode, device)
    x, w = torch.randn(2, 4, 6, 6), torch.randn(8, 4, 3, 3)
    channels_last = lambda t: t.to(memory_format=torch.channels_last)
    for xi, wi in ((channels_last(x), w), (x, channels_last(w)), (channels_last(x), channels_last(w)), (x, w)):
        _call_checked(mode, torch.nn.functional.conv2d, [fake(xi), fake(wi)], {"padding": 1})
    assert mode.checked[torch.ops.aten.convolution.default] == 1  # the contiguous call still goes direct
    plain = LoomFakeTensorMode()
    fake_x, fake_w = plain.from_tensor(channels_last(x)), plain.from_tensor(w)
    with plain:
        got = torch.nn.functional.conv2d(fake_x, fake_w, padding=1)
    assert got.stride() == torch.nn.functional.conv2d(channels_last(x), w, padding=1).stride()


def test_every_direct_op_is_reached_by_the_checks():
    """The CPU samples in one dtype (float32 where supported) and the extra calls reach every op on the
    direct list, so the checks above cover it."""
    mode = _checking_mode()
    for opinfo in OPINFOS:
        supported = opinfo.supported_dtypes("cpu")
        dtype = next(d for d in (torch.float32, torch.int64, torch.bool, torch.float16) if d in supported)
        _run_samples(opinfo, dtype, False, mode, "cpu")
    fake = _faker(mode, "cpu")
    for call in EXTRA_CALLS.values():
        _call_checked(mode, call, [fake(torch.randn(4, 3, 5))], {})
    missing = sorted(str(op) for op in DIRECT_META_OPS if op not in mode.checked)
    assert not missing, f"direct ops no check reaches: {missing}"
    missing = sorted(str(op) for op in RULES if op not in mode.rule_checked)
    assert not missing, f"rules no check reaches: {missing}"


def test_every_rule_is_for_a_direct_op():
    assert set(RULES) <= DIRECT_META_OPS


def test_rules_answer_the_contiguous_case_and_leave_the_rest_to_meta_kernels():
    mode = _checking_mode()
    x, w = mode.from_tensor(torch.randn(4, 8)), mode.from_tensor(torch.randn(8, 8))
    with mode:
        torch.nn.functional.gelu(x + 1.0) @ w
        answered = mode.rule_calls
        x.t() + x.t()  # not contiguous: the meta kernel decides
        x + x.double()  # two dtypes: the meta kernel promotes
    assert answered == 3 and mode.rule_calls == answered


def test_mismatch_is_reported():
    mode = LoomFakeTensorMode()
    a, b = mode.from_tensor(torch.randn(2, 3)), mode.from_tensor(torch.randn(3, 2))
    assert describe_mismatch(a, a, [a]) == ""
    assert "output 0" in describe_mismatch(a, b, [a, b])
    assert "structure" in describe_mismatch((a,), a, [a])


def test_direct_path_is_taken_and_keeps_views():
    mode = LoomFakeTensorMode()
    x = mode.from_tensor(torch.randn(4, 8))
    with mode:
        y = x.view(2, 16).t()
        z = torch.relu(x * 2.0 + 1)
    assert mode.direct_calls >= 4
    assert y._base is x and y.stride() == (1, 16) and y.shape == (16, 2)
    assert z.shape == (4, 8) and z.device == torch.device("cpu")


def test_dynamic_shapes_and_constants_take_pytorch_path():
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    mode = LoomFakeTensorMode(shape_env=ShapeEnv())
    x = mode.from_tensor(torch.randn(4, 8))
    with mode:
        x + x
    assert mode.direct_calls == 0
    mode = LoomFakeTensorMode()
    with mode:
        constant = torch.tensor(2.0)
        assert constant.constant is not None
        constant + constant
    assert mode.direct_calls == 0


PARAMETERS = {
    "plain": lambda: torch.nn.Parameter(torch.randn(4, 3)),
    "transposed": lambda: torch.nn.Parameter(torch.randn(4, 3).t()),
    "frozen": lambda: torch.nn.Parameter(torch.randn(5), requires_grad=False),
    "half": lambda: torch.nn.Parameter(torch.randn(4, 3).half()),
    "scalar": lambda: torch.nn.Parameter(torch.tensor(2.0)),
}


@pytest.mark.parametrize("name", sorted(PARAMETERS))
def test_plain_parameters_are_made_directly_and_match_pytorch(name):
    mode = _checking_mode()  # compares with PyTorch's converter, raising FakeMismatch
    value = PARAMETERS[name]()
    fake = mode.fake_input(value)
    assert mode.direct_inputs == 1
    assert isinstance(fake, torch.nn.Parameter) and fake.is_leaf
    assert fake.requires_grad == value.requires_grad and fake.stride() == value.stride()
    assert mode.from_tensor(value) is fake


def _with_grad():
    value = torch.nn.Parameter(torch.randn(3))
    value.grad = torch.ones(3)
    return value


OTHER_INPUTS = {
    "tensor": lambda: torch.randn(4, 3),
    "view of a parameter": lambda: torch.nn.Parameter(torch.randn(4, 3))[1:],
    "parameter over a view": lambda: torch.nn.Parameter(torch.randn(8)[2:6]),
    "parameter with a gradient": _with_grad,
    "parameter in a larger storage": lambda: torch.nn.Parameter(
        torch.randn(8).set_(torch.randn(10).untyped_storage(), 0, (8,))),
}


@pytest.mark.parametrize("name", sorted(OTHER_INPUTS))
def test_other_inputs_go_through_pytorchs_converter(name):
    mode = LoomFakeTensorMode()
    value = OTHER_INPUTS[name]()
    fake = mode.fake_input(value)
    assert mode.direct_inputs == 0
    expected = LoomFakeTensorMode().from_tensor(value, static_shapes=True)
    assert describe_mismatch(fake, expected, []) == ""


def test_device_queries_are_answered_like_pytorch():
    mode = LoomFakeTensorMode()
    x = mode.from_tensor(torch.randn(2, 3))
    query = torch.ops.prim.device.default
    assert mode.dispatch(query, [], (x,)) == torch.device("cpu")
    from torch._subclasses.fake_tensor import in_kernel_invocation_manager

    with in_kernel_invocation_manager(mode):
        assert mode.dispatch(query, [], (x,)) == torch.device("meta")


ARANGE_CALLS = [
    ((16,), {}), ((0,), {}), ((3, 19), {}), ((19, 3, -4), {}), ((0, 10, 3), {}), ((5, 5), {}),
    ((-7, 8, 5), {}), ((16,), {"dtype": torch.int64}), ((2, 9), {"layout": torch.strided, "pin_memory": False}),
    # not the rule's case: PyTorch's path decides (and must agree on what it raises)
    ((4.5,), {}), ((0, 8, 2), {"dtype": torch.float32}), ((True,), {}), ((5, 0), {}), ((0, 4, 0), {}),
]


@pytest.mark.parametrize("device", DEVICES)
def test_arange_rule_matches_pytorch(device):
    mode = _checking_mode()
    for args, kwargs in ARANGE_CALLS:
        _call_checked(mode, torch.arange, list(args), {**kwargs, "device": torch.device(device)})
    answered = mode.rule_checked
    assert answered[torch.ops.aten.arange.default] and answered[torch.ops.aten.arange.start_step]
    assert answered[torch.ops.aten.arange.start] or answered[torch.ops.aten.arange.start_step]


def test_arange_rule_needs_a_device_and_integer_bounds():
    mode = _checking_mode()
    with mode:
        out = torch.arange(2, 8)  # the argument parser passes the (default) device down to aten
        torch.arange(0.0, 1.0, 0.25)  # floating bounds: PyTorch's path
    assert mode.rule_calls == 1 and out.shape == (6,) and out.dtype == torch.int64 and out.device.type == "cpu"
    assert FACTORY_RULES[torch.ops.aten.arange.start](  # no device at all: not the rule's case
        [2, 8], {"dtype": None}) is None
