"""``hasattr(obj, name)``: answered without reading the attribute where a variable knows the answer, else by
reading it and seeing whether AttributeError comes.

A variable may define ``known_hasattr(name)``: True or False where the answer needs no read (a partial
made in the trace: its class's names, its instance ``__dict__`` being empty), None where only reading
tells. Reading would otherwise have to model the value (``p.__repr__``, ``p.__dict__``), and a value
the translator cannot model breaks the graph even though ``hasattr`` only asks whether it exists.
"""

from __future__ import annotations

from ..errors import UserError
from .builtins import builtin
from .constant import ConstantVariable
from .exception_values import SymbolicException, is_attribute_error


@builtin(hasattr)
def builtin_hasattr(tx, args, kwargs):
    obj, name = args[0], args[1].as_python_constant()
    known = getattr(obj, "known_hasattr", None)
    answer = known(name) if known is not None else None
    if answer is not None:
        return ConstantVariable(answer)
    try:
        obj.var_getattr(tx, name)
    except (UserError, SymbolicException) as exc:
        if is_attribute_error(exc):
            return ConstantVariable(False)
        raise
    return ConstantVariable(True)
