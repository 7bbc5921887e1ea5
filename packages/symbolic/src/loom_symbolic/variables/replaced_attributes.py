"""``dict.fromkeys``, ``itertools.chain.from_iterable``: a C type's attribute the translator traces through a
Python replacement (:func:`polyfills.attribute_replacement`). A call inlines the replacement; everything
else about the value is the original's: its names (``__qualname__`` is ``'dict.fromkeys'``, not the
replacement's), its ``__self__``, its type, its identity, and the object the rewritten code hands back
where it leaves the graph.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const

from ..errors import Unsupported, missing_attribute
from .base import Variable
from .functions import UserFunctionVariable
from .registry import wrap

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator

#: What a builtin method's attribute reads answer from the original (fixed for a C type's attribute).
_READ_FROM_ORIGINAL = frozenset({"__name__", "__qualname__", "__module__", "__doc__", "__self__",
                                 "__text_signature__", "__class__"})


class ReplacedAttributeVariable(UserFunctionVariable):
    """``owner.name`` of a C type ``owner`` that a Python replacement stands in for while tracing."""

    def __init__(self, replacement: Any, original: Any) -> None:
        super().__init__(replacement)
        self.original = original

    def python_type(self) -> type:
        return type(self.original)

    def as_python_constant(self) -> Any:
        return self.original

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in _READ_FROM_ORIGINAL:
            try:
                value = getattr(self.original, name)
            except AttributeError as exc:
                raise missing_attribute(f"{type(self.original).__name__!r} object", name, raised=exc) from None
            return wrap(tx, value, Attr(Const(self.original), name))
        raise Unsupported(f"attribute {name!r} of {self.describe()}", "not modelled")

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_const(self.original)

    def describe(self) -> str:
        return f"builtin method {getattr(self.original, '__qualname__', self.original)}"
