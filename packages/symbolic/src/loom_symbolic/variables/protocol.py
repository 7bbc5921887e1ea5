"""What a variable may ask of the translator it runs in, so that no variable imports the translator.

Variables receive the running translator as ``tx``. They read its output graph (``tx.output``: guards,
side effects, graph nodes) and ask it to run code in place (``tx.inline_call``) or to iterate a value
(``tx.iterate``); the translator (:mod:`loom_symbolic.translator`) implements these with the modules
above the variables. A few read the frame's state: a ``with`` block's exit pops ``tx.block_stack``, and
``super()`` without arguments reads ``__class__`` and the first argument (``tx.code``, ``tx.cells``,
``tx.read_local``).
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..output_graph import OutputGraph
    from .base import Variable
    from .cells import CellBox


class Translator(Protocol):
    """The part of :class:`loom_symbolic.translator.InstructionTranslator` variables use."""

    output: OutputGraph
    #: the translator of the calling frame, None for the compiled frame itself
    parent: Translator | None
    code: types.CodeType
    block_stack: list[Any]
    cells: dict[str, CellBox]

    def read_local(self, name: str) -> Variable:
        """The value of local ``name`` (``UnboundLocalError`` where CPython raises it)."""
        ...

    def inline_call(
        self,
        code: types.CodeType,
        f_globals: dict[str, Any],
        defaults: list[Variable],
        kwdefaults: dict[str, Variable],
        closure: list[CellBox],
        args: list[Variable],
        kwargs: dict[str, Variable],
        globals_base: Any,
    ) -> Variable:
        """Run ``code`` in place with these arguments (its tensor work lands in this graph); a
        generator function's code returns its generator."""
        ...

    def iterate(self, value: Variable) -> Variable:
        """``iter(value)``: the translator's iterator over ``value``."""
        ...

    def location(self) -> Any:
        """The user's file, line and function being translated (a higher-order op's node records it)."""
        ...
