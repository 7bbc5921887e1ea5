"""``count``, ``index`` and ``__contains__`` of a constant tuple called with a value that is not a constant:
``(1, 2).count(obj)``, ``("a", "b").index(t)``. CPython compares each member with the argument, identity
first, then ``==`` (which an object's class may write in Python, and which may raise); the tuple's own
model does exactly that, so the constant is handed to it as a tuple of its members."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .constant import NON_CONSTANT_ARGUMENTS, ConstantVariable
from .sequences import TupleVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_SEARCHES = frozenset({"count", "index", "__contains__"})


def _tuple_search(tx: InstructionTranslator, constant: ConstantVariable, name: str, args: list[Variable],
                  kwargs: dict[str, Variable]) -> Variable | None:
    if type(constant.value) is not tuple or name not in _SEARCHES:
        return None
    members = TupleVariable([ConstantVariable(v) for v in constant.value])
    return members.call_method(tx, name, args, kwargs)


NON_CONSTANT_ARGUMENTS.append(_tuple_search)
