"""Sources that reach a value by asking a question: a tensor's metadata that ``TensorMatch`` does not
compare (``is_leaf``, ``storage_offset()``), and the answer of a state query called with constant arguments
(``torch.is_anomaly_enabled()``, ``torch._C._get_cudnn_enabled()``).

A trace that folds such an answer into a constant guards it through one of these with ``ConstantMatch``, so
the compiled entry is reused only while the question still has that answer.
"""

from __future__ import annotations

from typing import Any

import torch

from .sources import Const, _Chained, _check_base, _set, _set_chained

_TensorBase = torch._C.TensorBase


def _storage_offset(tensor: torch.Tensor) -> int:
    return int(_TensorBase.storage_offset(tensor))


def _is_leaf(tensor: torch.Tensor) -> bool:
    return bool(_TensorBase.is_leaf.__get__(tensor))


#: field → how it is read from a tensor (torch's own C accessors: no ``__torch_function__``, no user code).
_TENSOR_FIELDS = {"storage_offset": _storage_offset, "is_leaf": _is_leaf}
_TENSOR_TEXT = {"storage_offset": "{}.storage_offset()", "is_leaf": "{}.is_leaf"}


class TensorMeta(_Chained):
    """A tensor's metadata beyond what ``TensorMatch`` compares: ``"is_leaf"`` (whether autograd made it)
    or ``"storage_offset"`` (where a view starts in its storage), read with torch's C accessors."""

    __slots__ = ("field",)
    fetch_cost = 2

    def __init__(self, base: Any, field: str) -> None:
        if field not in _TENSOR_FIELDS:
            raise ValueError(f"TensorMeta field must be one of {sorted(_TENSOR_FIELDS)}, got {field!r}")
        _set_chained(self, _check_base("TensorMeta", base), "field", field)

    def _key(self) -> tuple:
        return (self._base, self.field)

    def _args(self) -> tuple:
        return (self._base, self.field)

    def read_from(self, base_value: Any) -> Any:
        if not isinstance(base_value, torch.Tensor):
            raise TypeError(f"{self._base} is a {type(base_value).__name__}, not a tensor")
        return _TENSOR_FIELDS[self.field](base_value)

    def __str__(self) -> str:
        return _TENSOR_TEXT[self.field].format(self._base)


class Called(_Chained):
    """``base(*args, **dict(kwargs))``: what a query without side effects answers (``torch.is_anomaly_enabled()``),
    called again at every check. ``args`` (a tuple) and ``kwargs`` (a tuple of (name, value) pairs) are
    constants, held by the source."""

    __slots__ = ("args", "kwargs")
    fetch_cost = 5

    def __init__(self, base: Any, args: tuple = (), kwargs: tuple = ()) -> None:
        if type(args) is not tuple or type(kwargs) is not tuple:
            raise TypeError(f"Called args and kwargs must be tuples, got {type(args).__name__}, {type(kwargs).__name__}")
        if not all(type(pair) is tuple and len(pair) == 2 and type(pair[0]) is str for pair in kwargs):
            raise TypeError(f"Called kwargs must hold (name, value) pairs, got {kwargs!r:.100}")
        _set(self, _base=_check_base("Called", base), args=args, kwargs=kwargs)

    def _key(self) -> tuple:
        # (type, value) pairs: a query asked with True is not the one asked with 1
        return (self._base, tuple((type(a), a) for a in self.args),
                tuple((k, type(v), v) for k, v in self.kwargs))

    def _args(self) -> tuple:
        return (self._base, self.args, self.kwargs)

    def read_from(self, base_value: Any) -> Any:
        return base_value(*self.args, **dict(self.kwargs))

    def __str__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs]
        return f"{_callee_text(self._base)}({', '.join(parts)})"


def _callee_text(base: Any) -> str:
    """A constant function by its qualified name (``torch.is_anomaly_enabled``), anything else as printed."""
    fn = getattr(base, "value", None) if type(base) is Const else None
    name, module = getattr(fn, "__qualname__", None), getattr(fn, "__module__", None)
    if isinstance(name, str) and isinstance(module, str) and not name.startswith("<"):
        return f"{module}.{name}"
    return str(base)
