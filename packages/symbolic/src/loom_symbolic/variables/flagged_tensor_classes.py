"""``isinstance(t, nn.Parameter)`` / ``isinstance(t, nn.Buffer)`` for a tensor that carries the class's flag.

``nn.Parameter`` and ``nn.Buffer`` have metaclasses whose ``__instancecheck__`` also answers True for any
tensor whose ``_is_param`` / ``_is_buffer`` attribute is true: ``nn.Buffer(t)`` returns a plain tensor so
flagged, and ``nn.Parameter`` does the same for a custom tensor subclass. The class of the tensor alone then
gives the wrong answer, so the flag is read as ``getattr(t, flag, False)`` is in the trace (guarded: absent
from the tensor's ``__dict__``, or the tag's value when a frame tensor carries it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from .base import Variable
from .constant import ConstantVariable
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: class -> the tensor attribute its metaclass's ``__instancecheck__`` also accepts
FLAGS: dict[type, str] = {torch.nn.Parameter: "_is_param", torch.nn.Buffer: "_is_buffer"}


def flagged_instance(tx: InstructionTranslator, value: Variable, classes: Any, getattr_handler: Any) -> bool:
    """Whether ``value`` (a tensor) is an instance of one of ``classes`` only through a flag it carries
    (read with ``getattr_handler``, the ``getattr`` builtin's handler, so that it is guarded)."""
    if not isinstance(value, TensorVariable):
        return False
    for cls in classes if isinstance(classes, tuple) else (classes,):
        flag = FLAGS.get(cls)
        if flag is None or issubclass(value.python_type(), cls):
            continue
        found = getattr_handler(tx, [value, ConstantVariable(flag), ConstantVariable(False)], {})
        if not found.is_python_constant():
            raise Unsupported(f"isinstance() of a tensor and {cls.__qualname__}", f"its {flag} flag is not known")
        if found.as_python_constant():
            return True
    return False
