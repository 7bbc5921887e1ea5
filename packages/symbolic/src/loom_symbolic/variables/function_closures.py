"""``fn.__closure__`` of a real function read in the trace: None, or a tuple of its cells.

Each cell is the one box the translation keeps for that real cell (:func:`.cells.real_cell_box`, reached the
way a call of ``fn`` reaches it), so a write through ``cell_contents`` is the one a call of ``fn`` sees, and
its contents are read under guards through the function's source. A function reached without a source breaks
(its cells could not be guarded). Registered in :data:`.functions.ATTRIBUTE_READERS` (tuples sit above it).
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Item

from ..errors import Unsupported
from . import cells as _cells
from . import functions as _functions
from .constant import ConstantVariable
from .containers import TupleVariable

if TYPE_CHECKING:
    from ..translator import InstructionTranslator
    from .base import Variable


def closure_of(tx: InstructionTranslator, fn: types.FunctionType, source: Any) -> Variable:
    """``fn.__closure__`` (see the module's docstring)."""
    if fn.__closure__ is None:
        return ConstantVariable(None)
    if source is None:
        raise Unsupported(f"{fn.__qualname__}.__closure__", "the closure's cells cannot be guarded")
    boxes = [_cells.real_cell_box(tx, name, cell, Attr(Item(Attr(source, "__closure__"), i), "cell_contents"),
                                  _functions.store_real_cell(cell), way=id(fn))
             for i, (name, cell) in enumerate(zip(fn.__code__.co_freevars, fn.__closure__))]
    return TupleVariable([_cells.CellVariable(box) for box in boxes])


_functions.ATTRIBUTE_READERS["__closure__"] = closure_of
