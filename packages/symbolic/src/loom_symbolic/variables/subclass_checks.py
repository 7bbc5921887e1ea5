"""``issubclass(sub, cls)`` where ``cls``'s metaclass writes ``__subclasscheck__`` in Python (a user's
metaclass): CPython calls it (no fast path, not even for ``sub is cls``), so the trace inlines it with the
class and ``sub``, and its truth is the answer; what it raises is the program's. Every argument being a class
made ``issubclass`` a pure builtin folded by calling it now, which kept what the check read of mutable state
unguarded (a wrong answer once that state changed) and ran its effects at trace time only. A tuple (or a
``X | Y`` union) asks each member in turn, as CPython does. ``abc.ABCMeta``'s, typing's and torch's checks
keep their handlers (``isinstance`` in :mod:`.instance_checks` likewise).
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from .builtins import builtin, call_builtin
from .constant import ConstantVariable
from .instance_checks import metaclass_check
from .registry import wrap, wrap_constant_like

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def _members(cls: Any) -> tuple | None:
    """The classes CPython asks in turn for a tuple or union ``cls``, else None."""
    if type(cls) is tuple:
        return cls
    if isinstance(cls, types.UnionType):
        return cls.__args__
    return None


def _written_check(cls: Any) -> Any:
    if not isinstance(cls, type) or type(cls) is type:
        return None
    return metaclass_check(cls, "__subclasscheck__")


@builtin(issubclass)
def issubclass_through_metaclass(tx: InstructionTranslator, args: list[Variable],
                                 kwargs: dict[str, Variable]) -> Variable | None:
    if len(args) != 2 or kwargs or not args[1].is_python_constant():
        return None
    cls = args[1].as_python_constant()
    members = _members(cls)
    if members is not None:
        if not any(_written_check(member) is not None for member in members):
            return None
        for member in members:  # each as a call of its own (its own check, or the other answers)
            if call_builtin(tx, issubclass, [args[0], wrap_constant_like(member)], {}).truth(tx):
                return ConstantVariable(True)
        return ConstantVariable(False)
    check = _written_check(cls)
    if check is None:
        return None
    answer = wrap(tx, check, None).call(tx, [args[1], args[0]], {})
    return ConstantVariable(bool(answer.truth(tx)))
