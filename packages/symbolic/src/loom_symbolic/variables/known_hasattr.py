"""``hasattr(obj, name)`` answered without reading the attribute, for a variable that knows the answer.

A variable may define ``known_hasattr(name)``: True or False where the answer needs no read (a partial
made in the trace: its class's names, its instance ``__dict__`` being empty), None where only reading
tells. Reading would otherwise have to model the value (``p.__repr__``, ``p.__dict__``), and a value
the translator cannot model breaks the graph even though ``hasattr`` only asks whether it exists.
"""

from __future__ import annotations

from .builtins import HANDLERS
from .constant import ConstantVariable

_reading = HANDLERS[hasattr]  # the handler that reads the attribute and sees whether AttributeError comes


def _known_or_read(tx, args, kwargs):
    known = getattr(args[0], "known_hasattr", None)
    answer = known(args[1].as_python_constant()) if known is not None else None
    return ConstantVariable(answer) if answer is not None else _reading(tx, args, kwargs)


HANDLERS[hasattr] = _known_or_read
