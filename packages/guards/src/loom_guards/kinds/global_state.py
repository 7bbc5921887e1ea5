"""``GlobalState(values=None)``: torch's global (thread-local) state is what it was.

The fields, their readers and their validation live in ``loom_guards._state``; the C++ accelerator reads
the same facts from torch's C++ state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import _state
from .base import Guard, _set


class GlobalState(Guard):
    """torch's global (thread-local) state is what it was: grad mode, inference mode, default dtype,
    deterministic algorithms (and warn-only), autocast (enabled devices and their dtypes, cache),
    torch-function state and mode stack depth, dispatch mode stack depth, functorch transforms, and,
    where this torch has them, the float32 matmul precision, TF32 for cuBLAS matmuls and cuDNN, cuBLAS
    fp16/bf16 reduced-precision reductions, and the number of threads.

    The precision and TF32 fields read ``"mixed"`` where torch refuses to report them (it raises once
    the legacy API and the newer ``fp32_precision`` one were both used).

    ``GlobalState()`` captures every field now; ``GlobalState({"grad_mode": True})`` checks only the
    fields given. ``GlobalState.fields()`` lists the field names.
    """

    __slots__ = ("values",)
    kind = "global_state"
    cost = 5

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        if values is None:
            captured = _state.capture()
        else:
            if not isinstance(values, Mapping):
                raise TypeError(f"GlobalState needs a mapping of field values, got {type(values).__name__}")
            captured = {name: _state.validate(name, value) for name, value in values.items()}
            if not captured:
                raise ValueError("GlobalState needs at least one field")
        ordered = {name: captured[name] for name in _state.FIELD_ORDER if name in captured}
        _set(self, values=ordered)

    @staticmethod
    def fields() -> tuple[str, ...]:
        return _state.FIELD_ORDER

    def _key(self) -> tuple:
        return tuple(self.values.items())

    def describe(self) -> str:
        parts = ", ".join(f"{k}={_state_text(k, v)}" for k, v in self.values.items())
        return f"global state: {parts}"

    def explain(self) -> tuple[str, str] | None:
        for name, want in self.values.items():
            got = _state.read(name)
            if got != want:
                return (f"{_state.FIELDS[name][1]} == {_state_text(name, want)}", _state_text(name, got))
        return None

    def merged_with(self, other: GlobalState) -> GlobalState | None:
        """One guard checking both field sets (None when a field contradicts)."""
        values = dict(self.values)
        for name, value in other.values.items():
            if name in values and values[name] != value:
                return None
            values[name] = value
        return GlobalState(values)


def _state_text(name: str, value: Any) -> str:
    if name == "autocast":
        if not value:
            return "off"
        return "[" + ", ".join(f"{dev}:{str(dt).replace('torch.', '')}" for dev, dt in value) + "]"
    return str(value)
