"""C builtins that have a Python replacement in :mod:`loom_symbolic.polyfills`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from loom_guards import Attr

from .. import polyfills
from .._late import LateModule
from .base import Variable
from .constant import ObjectConstantVariable

if TYPE_CHECKING:
    from ..translator import InstructionTranslator

# In an import cycle with this module: imported at first read (see _late.py).
_builder = LateModule("loom_symbolic.variables.builder", globals(), "_builder")
_functions = LateModule("loom_symbolic.variables.functions", globals(), "_functions")


class PolyfilledVariable(ObjectConstantVariable):
    """``itertools.chain``, ``functools.reduce``, ...: a call is traced through the Python replacement;
    everything else (identity, being passed along, other attributes) sees the original."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        replacement = polyfills.replacement_for(self.value)
        if isinstance(replacement, type):  # a class standing in for a C class (deque): a new instance of it
            return _builder.wrap(tx, replacement, None).call(tx, args, kwargs)
        return _functions.UserFunctionVariable(replacement).call(tx, args, kwargs)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        replacement = polyfills.attribute_replacement(self.value, name)
        if replacement is not None:
            return _functions.UserFunctionVariable(replacement)
        return super().var_getattr(tx, name)

    def describe(self) -> str:
        return f"{getattr(self.value, '__module__', '?')}.{getattr(self.value, '__qualname__', self.value)}"

    def __repr__(self) -> str:
        return f"PolyfilledVariable({self.describe()})"


class CachedFunctionVariable(ObjectConstantVariable):
    """A function wrapped by ``functools.lru_cache`` or ``functools.cache``: a call traces the wrapped
    function (``__wrapped__``), as torch.compile does. The trace neither reads nor fills the cache:
    what the function computes is the same either way, and is in the graph."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        wrapped_source = Attr(self.source, "__wrapped__") if self.source is not None else None
        return _builder.wrap(tx, self.value.__wrapped__, wrapped_source).call(tx, args, kwargs)

    def describe(self) -> str:
        return f"cached function {getattr(self.value, '__qualname__', self.value)}"

