"""GlobalState: every field it captures is noticed when it changes, on both back ends, and the
accelerator reads torch's state the way the Python readers do."""

from __future__ import annotations

import contextlib

import pytest
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

import loom_guards
from loom_guards import GlobalState, simplify
from loom_guards import _state as state


class NoopFunctionMode(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


class NoopDispatchMode(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def default_dtype(dt):
    old = torch.get_default_dtype()
    torch.set_default_dtype(dt)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


@contextlib.contextmanager
def deterministic(on, warn_only=False):
    old, old_warn = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(on, warn_only=warn_only)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(old, warn_only=old_warn)


@contextlib.contextmanager
def autocast_cache(on):
    old = torch.is_autocast_cache_enabled()
    torch.set_autocast_cache_enabled(on)
    try:
        yield
    finally:
        torch.set_autocast_cache_enabled(old)


# (backend, op) pairs of torch's newer fp32_precision API (torch.backends.*.fp32_precision)
FP32_PRECISION_PAIRS = [
    (backend, op)
    for backend in ("generic", "cuda", "mkldnn")
    for op in ("all", "matmul", "conv", "rnn")
    if backend != "generic" or op == "all"
]


@contextlib.contextmanager
def precision_setting(apply):
    """Apply a matmul precision / TF32 / reduction setting, then restore all of them (the newer
    fp32_precision API's included: the legacy setters write to it)."""
    C = torch._C
    saved_new = {pair: C._get_fp32_precision_getter(*pair) for pair in FP32_PRECISION_PAIRS}
    precision = torch.get_float32_matmul_precision()
    cudnn = C._get_cudnn_allow_tf32()
    fp16 = C._get_cublas_allow_fp16_reduced_precision_reduction()
    bf16 = C._get_cublas_allow_bf16_reduced_precision_reduction()
    apply()
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(precision)
        C._set_cudnn_allow_tf32(cudnn)
        C._set_cublas_allow_fp16_reduced_precision_reduction(*fp16)
        C._set_cublas_allow_bf16_reduced_precision_reduction(*bf16)
        for (backend, op), value in saved_new.items():
            C._set_fp32_precision_setter(backend, op, value)


@contextlib.contextmanager
def num_threads(n):
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)


THREADS = torch.get_num_threads()

CHANGES = {
    "grad_mode": torch.no_grad,
    "inference_mode": torch.inference_mode,
    "default_dtype": lambda: default_dtype(torch.float64),
    "deterministic_algorithms": lambda: deterministic(True),
    "deterministic_warn_only": lambda: deterministic(True, warn_only=True),
    "autocast": lambda: torch.autocast("cpu", dtype=torch.bfloat16),
    "autocast_cache": lambda: autocast_cache(False),
    "torch_function": torch._C.DisableTorchFunctionSubclass,
    "torch_function_modes": NoopFunctionMode,
    "dispatch_modes": NoopDispatchMode,
    "float32_matmul_precision": lambda: precision_setting(lambda: torch.set_float32_matmul_precision("high")),
    "cuda_matmul_allow_tf32": lambda: precision_setting(
        lambda: setattr(torch.backends.cuda.matmul, "allow_tf32", True)  # the legacy precision follows
    ),
    "cudnn_allow_tf32": lambda: precision_setting(lambda: setattr(torch.backends.cudnn, "allow_tf32", False)),
    "cuda_matmul_fp16_reduction": lambda: precision_setting(
        lambda: setattr(torch.backends.cuda.matmul, "allow_fp16_reduced_precision_reduction", False)
    ),
    "cuda_matmul_bf16_reduction": lambda: precision_setting(
        lambda: setattr(torch.backends.cuda.matmul, "allow_bf16_reduced_precision_reduction", False)
    ),
    "num_threads": lambda: num_threads(THREADS + 1),
    # the legacy and the newer fp32_precision API mixed: torch refuses to report the legacy values
    "mixed: mkldnn matmul bf16": lambda: precision_setting(
        lambda: setattr(torch.backends.mkldnn.matmul, "fp32_precision", "bf16")
    ),
    "mixed: cuda matmul tf32": lambda: precision_setting(
        lambda: setattr(torch.backends.cuda.matmul, "fp32_precision", "tf32")
    ),
    "mixed: cudnn conv ieee": lambda: precision_setting(
        lambda: setattr(torch.backends.cudnn.conv, "fp32_precision", "ieee")
    ),
}

EXPRESSIONS = {
    "grad_mode": "torch.is_grad_enabled() == True, got False",
    "inference_mode": "torch.is_inference_mode_enabled() == False, got True",
    "default_dtype": "torch.get_default_dtype() == torch.float32, got torch.float64",
    "deterministic_algorithms": "torch.are_deterministic_algorithms_enabled() == False, got True",
    "autocast": "autocast (device, dtype) pairs enabled == off, got [cpu:bfloat16]",
    "autocast_cache": "torch.is_autocast_cache_enabled() == True, got False",
    "torch_function": "torch function state == enabled, got subclasses_disabled",
    "torch_function_modes": "torch._C._len_torch_function_stack() == 0, got 1",
    "dispatch_modes": "torch._C._len_torch_dispatch_stack() == 0, got 1",
    "float32_matmul_precision": "torch.get_float32_matmul_precision() == highest, got high",
    "cuda_matmul_allow_tf32": "torch.get_float32_matmul_precision() == highest, got high",
    "cudnn_allow_tf32": "torch.backends.cudnn.allow_tf32 == True, got False",
    "cuda_matmul_fp16_reduction": (
        "(allow_fp16_reduced_precision_reduction, allow_fp16_reduced_precision_reduction_split_k) of "
        "torch.backends.cuda.matmul == (True, True), got (False, True)"
    ),
    "num_threads": f"torch.get_num_threads() == {THREADS}, got {THREADS + 1}",
    "mixed: mkldnn matmul bf16": "torch.get_float32_matmul_precision() == highest, got mixed",
    "mixed: cuda matmul tf32": "torch.get_float32_matmul_precision() == highest, got mixed",
    "mixed: cudnn conv ieee": "torch.backends.cudnn.allow_tf32 == True, got mixed",
}


def test_passes_where_captured(build):
    check = build([GlobalState()])
    assert check({}) is True
    assert check.why_failed({}) is None


@pytest.mark.parametrize("field", sorted(CHANGES))
def test_each_field_change_fails(build, field):
    check = build([GlobalState()])
    with CHANGES[field]():
        assert check({}) is False
        why = check.why_failed({})
        assert why is not None
        if field in EXPRESSIONS:
            assert why == EXPRESSIONS[field]
    assert check({}) is True


@pytest.mark.parametrize("field", sorted(CHANGES))
def test_state_captured_inside_a_change(build, field):
    with CHANGES[field]():
        check = build([GlobalState()])
        assert check({}) is True
    assert check({}) is False
    assert check.why_failed({}) is not None


def test_autocast_dtype_change(build):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        check = build([GlobalState()])
        assert check({})
        assert GlobalState().values["autocast"] == (("cpu", torch.bfloat16),)
    with torch.autocast("cpu", dtype=torch.float16):
        assert not check({})
        assert check.why_failed({}) == (
            "autocast (device, dtype) pairs enabled == [cpu:bfloat16], got [cpu:float16]"
        )


def test_functorch_transform(build):
    check = build([GlobalState()])
    seen = {}

    def body(t):
        seen["ok"] = check({})
        seen["why"] = check.why_failed({})
        return t

    torch.func.vmap(body)(torch.randn(3, 2))
    assert seen["ok"] is False
    assert seen["why"] is not None
    assert check({})


def test_backend_settings_partial_and_normalised(build):
    check = build([GlobalState({"float32_matmul_precision": "high", "cuda_matmul_fp16_reduction": True})])
    assert check.guards[0].values["cuda_matmul_fp16_reduction"] == (True, True)  # a bool: split-K allowed
    assert check.why_failed({}) == "torch.get_float32_matmul_precision() == high, got highest"
    with precision_setting(lambda: torch.set_float32_matmul_precision("high")):
        assert check({})
    mixed = build([GlobalState({"cuda_matmul_allow_tf32": "mixed"})])
    assert not mixed({})
    with precision_setting(lambda: setattr(torch.backends.cuda.matmul, "fp32_precision", "tf32")):
        assert mixed({})
        assert GlobalState().values["cuda_matmul_allow_tf32"] == "mixed"  # capturing never raises


def test_backend_settings_seen_after_every_change(build):
    # the accelerator reuses torch's answers while the settings are unchanged: each change must show
    check = build([GlobalState()])
    other = build([GlobalState()])
    for _ in range(3):
        assert check({}) and other({})
        with precision_setting(lambda: torch.set_float32_matmul_precision("medium")):
            assert not check({}) and not other({})
            with precision_setting(lambda: setattr(torch.backends.cudnn, "allow_tf32", False)):
                assert check.why_failed({}) == "torch.get_float32_matmul_precision() == highest, got medium"
                assert not check({})
        with precision_setting(lambda: setattr(torch.backends.cudnn.rnn, "fp32_precision", "ieee")):
            assert check.why_failed({}) == "torch.backends.cudnn.allow_tf32 == True, got mixed"
            assert not check({})
    assert check({}) and other({})


def test_partial_state_only_checks_its_fields(build):
    check = build([GlobalState({"grad_mode": True})])
    with default_dtype(torch.float64):
        assert check({})
    with torch.no_grad():
        assert check.why_failed({}) == "torch.is_grad_enabled() == True, got False"


def test_merge_and_contradiction():
    (merged,) = simplify([GlobalState({"grad_mode": True}), GlobalState({"default_dtype": torch.float32})])
    assert merged.values == {"grad_mode": True, "default_dtype": torch.float32}
    with pytest.raises(ValueError, match="contradictory"):
        simplify([GlobalState({"grad_mode": True}), GlobalState({"grad_mode": False})])


@pytest.mark.parametrize(
    ("values", "error"),
    [
        ({"bogus": 1}, ValueError),
        ({"grad_mode": 1}, TypeError),
        ({"default_dtype": "float32"}, TypeError),
        ({"dispatch_modes": -1}, TypeError),
        ({"torch_function": "sometimes"}, ValueError),
        ({"autocast": [("gpu?", torch.float16)]}, TypeError),
        ({"float32_matmul_precision": "low"}, ValueError),
        ({"cuda_matmul_allow_tf32": 1}, TypeError),
        ({"cudnn_allow_tf32": "on"}, TypeError),
        ({"cuda_matmul_fp16_reduction": (True, False)}, ValueError),
        ({"cuda_matmul_bf16_reduction": "yes"}, TypeError),
        ({"cuda_matmul_bf16_reduction": (True,)}, TypeError),
        ({"num_threads": 0}, TypeError),
        ({}, ValueError),
        ([("grad_mode", True)], TypeError),
    ],
)
def test_bad_state_values(values, error):
    with pytest.raises(error):
        GlobalState(values)


def test_describe_lists_fields():
    text = GlobalState().describe()
    assert text.startswith("global state: inference_mode=False, grad_mode=True, default_dtype=torch.float32")
    assert "autocast=off" in text and "dispatch_modes=0" in text
    assert "float32_matmul_precision=highest" in text and f"num_threads={THREADS}" in text
    assert GlobalState.fields() == tuple(state.FIELDS)


# c10::ScalarType numbers of the floating dtypes these tests use
SCALAR_TYPES = {5: torch.float16, 6: torch.float32, 7: torch.float64, 15: torch.bfloat16}


def _accel_view() -> dict:
    """The accelerator's reading of the state, in the Python readers' terms."""
    raw = loom_guards.compiler._accel.read_state(state.AUTOCAST_DEVICES)
    raw["torch_function"] = ("enabled", "subclasses_disabled", "all_disabled")[raw["torch_function"]]
    raw["default_dtype"] = SCALAR_TYPES[raw["default_dtype"]]
    raw["autocast"] = tuple((dev, SCALAR_TYPES[code]) for dev, code in raw["autocast"])
    return raw


@pytest.mark.parametrize("field", [None, *sorted(CHANGES)])
def test_accelerator_reads_state_like_python(backend, field):
    if backend != "accel":
        pytest.skip("accelerator only")
    ctx = CHANGES[field]() if field else contextlib.nullcontext()
    with ctx:
        python_view = state.capture()
        accel_view = _accel_view()
    assert set(python_view) <= set(accel_view)  # fields this torch lacks are not captured
    assert {name: accel_view[name] for name in python_view} == python_view
