"""The constructors of the immutable number types called as class attributes: ``bool.__new__(bool, 1)``,
``int.__new__(int, "7")``, ``float.__new__(float)``, ``complex.__new__(complex, 1, 2)`` and the alternative
constructors a subclass inherits bound to itself (``bool.from_bytes(b, "big")``, where ``int.from_bytes``
was folded already). Each makes a new number from its arguments alone, so a call on constants is folded
(:data:`.builtins.PURE`); a subclass of the type passed as ``cls`` is still made by the subclass handlers
(:mod:`.int_subclasses` & co), which answer first."""

from __future__ import annotations

from .builtins import PURE

_NUMBER_TYPES = (bool, int, float, complex)

PURE.update(cls.__new__ for cls in _NUMBER_TYPES)
PURE.update(getattr(cls, name) for cls in _NUMBER_TYPES for name in ("from_bytes", "fromhex") if hasattr(cls, name))
