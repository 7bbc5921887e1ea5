"""NumPy's float64 for the ``torch._numpy`` work of a graph, in a form a backend's retrace keeps.

torch computes an int array's ``/``, ``sqrt`` or ``mean`` in its default dtype (float32, unless the program
changed it), where NumPy always gives float64. The graph targets of :mod:`.numpy_calls` therefore run under
torch's default dtype float64 (:data:`NUMPY_FLOATS`). That is enough when the target itself runs (the
``eager`` backend), but a backend that retraces the graph into ATen ops (AOTAutograd: ``aot_eager``, the
default ``c``) records ``aten.div(int, int)``, whose result dtype is the default dtype *when the ATen graph
runs*: float32 again. So each op that turned integer tensors into a float64 result by promotion is made
again on those tensors cast to float64 first (``_ExplicitFloat64``), which every trace records.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves, tree_map_only

#: Ops whose float64 result from an integer input is the conversion asked for, not a promotion.
_CONVERSIONS = frozenset({"_to_copy", "to", "copy", "copy_", "_copy_from", "lift_fresh", "lift_fresh_copy",
                          "clone", "empty_like", "zeros_like", "ones_like", "full_like", "new_empty", "new_zeros",
                          "new_ones", "new_full", "scalar_tensor", "detach", "alias"})


def _promoted(func: Any, args: tuple, kwargs: dict, result: Any) -> bool:
    """Whether ``func`` made a float64 tensor from integer tensors by the default dtype's promotion."""
    if not isinstance(result, torch.Tensor) or result.dtype is not torch.float64:
        return False
    if func.overloadpacket.__name__ in _CONVERSIONS or func._schema.is_mutable:
        return False
    tensors = [t for t in tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor)]
    return bool(tensors) and not any(t.is_floating_point() or t.is_complex() for t in tensors) \
        and any(t.dtype is not torch.bool for t in tensors)


def _as_float64(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.to(torch.float64) if tensor.dtype is not torch.bool else tensor


class _ExplicitFloat64(TorchDispatchMode):
    """Makes each promotion of integer tensors to float64 an explicit cast before the op."""

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        result = func(*args, **kwargs)
        if _promoted(func, args, kwargs, result):
            args, kwargs = tree_map_only(torch.Tensor, _as_float64, (args, kwargs))
            result = func(*args, **kwargs)
        return result


class NumpyFloats:
    """Runs ``torch._numpy`` with torch's default dtype float64, promotions made explicit (module docstring).
    A context manager made once (re-entrant: the dtypes it replaced and the modes it entered are stacks)."""

    def __init__(self) -> None:
        self.saved: list[tuple[torch.dtype, Any]] = []

    def __enter__(self) -> None:
        mode = _ExplicitFloat64()
        self.saved.append((torch.get_default_dtype(), mode))
        torch.set_default_dtype(torch.float64)
        mode.__enter__()

    def __exit__(self, *exc: Any) -> None:
        dtype, mode = self.saved.pop()
        try:
            mode.__exit__(*exc)
        finally:
            torch.set_default_dtype(dtype)


NUMPY_FLOATS = NumpyFloats()
