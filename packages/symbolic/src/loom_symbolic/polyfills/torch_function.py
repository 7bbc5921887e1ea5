"""``torch.Tensor.__torch_function__``, what a tensor subclass's ``super().__torch_function__(...)`` runs (and what
a subclass without its own runs): ``func`` called with subclass dispatch off, its tensor results made instances of
the subclass. The original asks ``get_default_nowrap_functions()`` on every call, a C attribute the trace cannot
read; the set is fixed, so it is read once here."""

from __future__ import annotations

from typing import Any

import torch

from .registry import method

_NOWRAP = frozenset(torch.overrides.get_default_nowrap_functions())


@method(torch.Tensor, "__torch_function__", classmethod=True)
def tensor_torch_function(cls: type, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    """``Tensor.__torch_function__(func, types, args, kwargs)`` of subclass ``cls``."""
    if kwargs is None:
        kwargs = {}
    for t in types:
        if not issubclass(cls, t):
            return NotImplemented
    with torch._C.DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
    if getattr(func, "__name__", None) == "__get__" and func in _NOWRAP:  # .grad, ._base: never rewrapped
        return ret
    return _convert(ret, cls)


def _convert(ret: Any, cls: type) -> Any:
    """Tensors in ``ret`` (itself, or the items of a tuple or list) as ``cls`` instances."""
    if cls is torch.Tensor:
        return ret
    if isinstance(ret, torch.Tensor) and not isinstance(ret, cls):
        ret = ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        ret = type(ret)(_convert(r, cls) for r in ret)
    return ret
