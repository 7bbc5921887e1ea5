"""The lowering rules: one small function per op family, found by op in :data:`LOWERINGS`.

``LOWERINGS[aten.add.Tensor]`` is the rule for ``aten.add.Tensor``; a rule registered for an overload
packet (``aten.amax``) serves every overload of it. Rules live in:

- ``pointwise.py``: every elementwise op (unary, binary, ternary), with type promotion and broadcasting;
- ``reductions.py``: sum, mean, prod, amax/amin, max/min, argmax/argmin, any/all, var/std, var_mean;
- ``views.py``: view, reshape, permute, expand, squeeze, unsqueeze, slice, select, ... (no copies);
- ``misc.py``: conversions and copies, constants and ``arange``, ``cat``, padding, ``where``, gathers.
"""

from __future__ import annotations

# Importing the rule modules fills the table.
from . import misc, pointwise, reductions, views  # noqa: F401
from .registry import LOWERINGS, lookup, register_lowering

__all__ = ["LOWERINGS", "lookup", "lowered_ops", "register_lowering"]


def lowered_ops() -> list[str]:
    """Names of every op with a rule, sorted (for documentation and tests)."""
    return sorted(str(op) for op in LOWERINGS)
