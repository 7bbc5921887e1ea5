"""``fn.__globals__`` of a real function read in the trace (``typing.get_type_hints(fn)`` reads it, as do
decorators that look names up in the function's module): the module's globals dict, read by name as
``globals()`` is (:class:`.globals_dict.GlobalsDictVariable`: the trace's own stores first, then the real
dict, guarded as global reads are). A function's ``__globals__`` is read-only, fixed with the function; a
function whose globals belong to no imported module (made by ``exec`` with a fresh dict) still breaks.
Registered in :data:`.functions.ATTRIBUTE_READERS`.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from loom_guards import Const

from ..errors import Unsupported
from . import functions as _functions
from .globals_dict import GlobalsDictVariable
from .module_globals import module_of

if TYPE_CHECKING:
    from ..translator import InstructionTranslator
    from .base import Variable


def globals_of(tx: InstructionTranslator, fn: types.FunctionType, source: Any) -> Variable:
    """``fn.__globals__`` (see the module's docstring)."""
    f_globals = fn.__globals__
    if f_globals is tx.f_globals:  # the running code's own module: globals() itself
        return GlobalsDictVariable(tx)
    module = module_of(f_globals)
    if module is None:
        raise Unsupported(f"{fn.__qualname__}.__globals__", "globals that belong to no imported module are not modelled")
    return GlobalsDictVariable(tx, module, Const(module))


_functions.ATTRIBUTE_READERS["__globals__"] = globals_of
