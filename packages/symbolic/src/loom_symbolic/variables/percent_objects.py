"""``template % obj`` for a text template known while tracing and one object the trace holds (not a tuple).

str's own ``%`` answers first (an object's ``__rmod__`` is asked only when its class derives from str): each
``%s`` of the object is its ``str()``, each ``%r`` its ``repr()``, both through the class's own methods, which the
translator traces; flags, width and precision then apply to that text as they would to the object. Only a
template with exactly one such field (``%%`` aside) is answered here: a ``*`` width, a ``%(key)s`` field, a number
conversion or a count of fields that CPython would reject stays a graph break.
"""

from __future__ import annotations

import operator
import re
from typing import TYPE_CHECKING, Any

from . import operator_semantics as _operators
from .base import Variable
from .builtins import call_builtin
from .constant import ConstantVariable
from .sequences import SequenceVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_FIELD = re.compile(r"%(?:%|[-+ #0]*\d*(?:\.\d+)?([sr])|.)", re.DOTALL)


def _single_text_field(template: str) -> str | None:
    """The conversion (``s`` or ``r``) of the template's one field, or None."""
    found = [m.group(1) for m in _FIELD.finditer(template) if m.group(0) != "%%"]
    return found[0] if len(found) == 1 and found[0] is not None else None


def _percent_object(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
    if op not in (operator.mod, operator.imod) or not isinstance(left, ConstantVariable):
        return None
    template = left.value
    if type(template) is not str or right.is_python_constant() or isinstance(right, SequenceVariable):
        return None
    if issubclass(right.python_type(), (str, tuple)):
        return None  # a str subclass's __rmod__ is asked first; a tuple holds the arguments
    conversion = _single_text_field(template)
    if conversion is None:
        return None
    text = call_builtin(tx, str if conversion == "s" else repr, [right], {})
    if not text.is_python_constant():
        return None
    spelled = _FIELD.sub(lambda m: m.group(0)[:-1] + "s" if m.group(1) else m.group(0), template)
    try:
        return ConstantVariable(spelled % (text.as_python_constant(),))
    except (TypeError, ValueError):  # a template CPython rejects (a lone % at its end): the break says so
        return None


_operators.CONTAINER_OPERATORS.append(_percent_object)
