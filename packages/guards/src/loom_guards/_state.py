"""Readers of torch's global state (thread-local modes, process-wide backend settings), shared by the
GlobalState guard and both check paths.

Each field has a reader (a zero-argument callable returning a comparable value) and the Python
expression a user would write to see it. The C++ accelerator reads the same facts from torch's C++ state
directly; ``tests/test_global_state.py`` checks that both agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

_C = torch._C


def _autocast_devices() -> tuple[str, ...]:
    getter = getattr(_C, "_autocast_supported_devices", None)
    if getter is not None:
        try:
            return tuple(getter())
        except Exception:
            pass
    return ("cpu", "cuda")


AUTOCAST_DEVICES: tuple[str, ...] = _autocast_devices()


def _autocast_state() -> tuple[tuple[str, torch.dtype], ...]:
    """The devices with autocast enabled, each with its autocast dtype (empty when none is)."""
    any_enabled = getattr(_C, "_is_any_autocast_enabled", None)
    if any_enabled is not None and not any_enabled():
        return ()
    out = []
    for dev in AUTOCAST_DEVICES:
        if torch.is_autocast_enabled(dev):
            out.append((dev, torch.get_autocast_dtype(dev)))
    return tuple(out)


_TF_NAMES = ("enabled", "subclasses_disabled", "all_disabled")


def _torch_function_state() -> str:
    if _C._is_torch_function_enabled():
        return "enabled"
    all_disabled = getattr(_C, "_is_torch_function_all_disabled", None)
    if all_disabled is not None and all_disabled():
        return "all_disabled"
    return "subclasses_disabled"


def _functorch_active() -> bool:
    f = getattr(_C, "_are_functorch_transforms_active", None)
    return bool(f()) if f is not None else False


def _len_or_zero(name: str) -> Callable[[], int]:
    f = getattr(_C, name, None)
    if f is None:
        return lambda: 0
    return f


# name -> (reader, expression shown to users)
FIELDS: dict[str, tuple[Callable[[], Any], str]] = {
    # inference mode first: it also turns grad mode off, and is the more specific explanation
    "inference_mode": (torch.is_inference_mode_enabled, "torch.is_inference_mode_enabled()"),
    "grad_mode": (_C.is_grad_enabled, "torch.is_grad_enabled()"),
    "default_dtype": (torch.get_default_dtype, "torch.get_default_dtype()"),
    "deterministic_algorithms": (
        _C._get_deterministic_algorithms,
        "torch.are_deterministic_algorithms_enabled()",
    ),
    "deterministic_warn_only": (
        _C._get_deterministic_algorithms_warn_only,
        "torch.is_deterministic_algorithms_warn_only_enabled()",
    ),
    "autocast": (_autocast_state, "autocast (device, dtype) pairs enabled"),
    "autocast_cache": (torch.is_autocast_cache_enabled, "torch.is_autocast_cache_enabled()"),
    "torch_function": (_torch_function_state, "torch function state"),
    "torch_function_modes": (_len_or_zero("_len_torch_function_stack"), "torch._C._len_torch_function_stack()"),
    "dispatch_modes": (_len_or_zero("_len_torch_dispatch_stack"), "torch._C._len_torch_dispatch_stack()"),
    "functorch": (_functorch_active, "torch._C._are_functorch_transforms_active()"),
}


# -- matmul precision, TF32, reduced-precision reductions, threads ---------------------------------------

#: What a precision or TF32 field reads when torch refuses to say: it raises when the legacy API
#: (``set_float32_matmul_precision``, ``allow_tf32``) and the new one (``fp32_precision``) were mixed.
MIXED = "mixed"
MATMUL_PRECISIONS = ("highest", "high", "medium", MIXED)  # the accelerator's codes, in this order


def _or_mixed(reader: Callable[[], Any]) -> Callable[[], Any]:
    def read() -> Any:
        try:
            return reader()
        except RuntimeError:
            return MIXED

    return read


def _reduction(reader: Callable[[], Any]) -> Callable[[], tuple[bool, bool]]:
    """``(allow_reduced_precision, allow_split_k)`` (older torch reports the first alone)."""

    def read() -> tuple[bool, bool]:
        value = reader()
        if isinstance(value, bool):
            return (value, True)
        return (bool(value[0]), bool(value[1]))

    return read


def _optional(name: str, wrap: Callable[[Callable[[], Any]], Callable[[], Any]]) -> Callable[[], Any] | None:
    f = getattr(_C, name, None)
    return None if f is None else wrap(f)


def _reduction_text(kind: str) -> str:
    return (f"(allow_{kind}_reduced_precision_reduction, allow_{kind}_reduced_precision_reduction_split_k) "
            "of torch.backends.cuda.matmul")


# Guarded where this torch has them (torch's own global-state guard covers TF32, the reductions and the
# thread count; the matmul precision also decides bf16/TF32 use by oneDNN on CPU).
_BACKEND_FIELDS: dict[str, tuple[Callable[[], Any] | None, str]] = {
    "float32_matmul_precision": (
        _optional("_get_float32_matmul_precision", _or_mixed),
        "torch.get_float32_matmul_precision()",
    ),
    "cuda_matmul_allow_tf32": (_optional("_get_cublas_allow_tf32", _or_mixed), "torch.backends.cuda.matmul.allow_tf32"),
    "cudnn_allow_tf32": (_optional("_get_cudnn_allow_tf32", _or_mixed), "torch.backends.cudnn.allow_tf32"),
    "cuda_matmul_fp16_reduction": (
        _optional("_get_cublas_allow_fp16_reduced_precision_reduction", _reduction),
        _reduction_text("fp16"),
    ),
    "cuda_matmul_bf16_reduction": (
        _optional("_get_cublas_allow_bf16_reduced_precision_reduction", _reduction),
        _reduction_text("bf16"),
    ),
    "num_threads": (torch.get_num_threads, "torch.get_num_threads()"),
}
FIELDS.update({name: (reader, text) for name, (reader, text) in _BACKEND_FIELDS.items() if reader is not None})

FIELD_ORDER: tuple[str, ...] = tuple(FIELDS)


def read(name: str) -> Any:
    return FIELDS[name][0]()


def capture(names: tuple[str, ...] = FIELD_ORDER) -> dict[str, Any]:
    return {name: read(name) for name in names}


def validate(name: str, value: Any) -> Any:
    """Check a field value's type; returns it normalised."""
    if name not in FIELDS:
        raise ValueError(f"unknown global state field {name!r}; known: {', '.join(FIELD_ORDER)}")
    if name in ("grad_mode", "inference_mode", "deterministic_algorithms", "deterministic_warn_only",
                "autocast_cache", "functorch"):
        if type(value) is not bool:
            raise TypeError(f"global state {name} must be a bool, got {type(value).__name__}")
    elif name == "default_dtype":
        if not isinstance(value, torch.dtype):
            raise TypeError(f"global state default_dtype must be a torch.dtype, got {type(value).__name__}")
    elif name in ("torch_function_modes", "dispatch_modes"):
        if type(value) is not int or value < 0:
            raise TypeError(f"global state {name} must be an int >= 0, got {value!r}")
    elif name == "torch_function":
        if value not in _TF_NAMES:
            raise ValueError(f"global state torch_function must be one of {_TF_NAMES}, got {value!r}")
    elif name == "autocast":
        value = tuple(value)
        for entry in value:
            if (
                not isinstance(entry, tuple)
                or len(entry) != 2
                or entry[0] not in AUTOCAST_DEVICES
                or not isinstance(entry[1], torch.dtype)
            ):
                raise TypeError(f"global state autocast must hold (device type, dtype) pairs, got {entry!r}")
    elif name == "float32_matmul_precision":
        if value not in MATMUL_PRECISIONS:
            raise ValueError(f"global state float32_matmul_precision must be one of {MATMUL_PRECISIONS}, got {value!r}")
    elif name in ("cuda_matmul_allow_tf32", "cudnn_allow_tf32"):
        if type(value) is not bool and value != MIXED:
            raise TypeError(f"global state {name} must be a bool or {MIXED!r}, got {value!r}")
    elif name in ("cuda_matmul_fp16_reduction", "cuda_matmul_bf16_reduction"):
        if type(value) is bool:
            value = (value, True)
        if not isinstance(value, (tuple, list)) or len(value) != 2 or any(type(v) is not bool for v in value):
            raise TypeError(f"global state {name} must be (allow_reduced_precision, allow_split_k), got {value!r}")
        value = tuple(value)
        if value == (True, False):
            raise ValueError(f"global state {name}: torch never allows reduced precision without split-K")
    elif name == "num_threads":
        if type(value) is not int or value < 1:
            raise TypeError(f"global state num_threads must be an int >= 1, got {value!r}")
    return value
