"""Readers of torch's global (thread-local) state, shared by the GlobalState guard and both check paths.

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
    return value
