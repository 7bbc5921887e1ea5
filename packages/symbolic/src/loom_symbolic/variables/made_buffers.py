"""``io.StringIO()`` and ``io.BytesIO()`` made while tracing, with constant arguments.

Making an in-memory buffer has no effect outside it, so the trace does not make one: it holds a
:class:`MadeBufferVariable` that the program can pass around, store, compare by identity and hand to
``contextlib.redirect_stdout``. The rewritten code makes the real buffer (``io.StringIO(*args)``) where the
value leaves the trace: once, the codegen keeping it in a temporary, so every name that held it holds the
one object. Reading or writing it is a graph break: the buffer is made there and the method runs as
ordinary Python on it.
"""

from __future__ import annotations

import io
import types
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported
from .base import DeferredAttribute, Variable
from .new_objects import CONSTRUCTORS

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


class MadeBufferVariable(Variable):
    """A new ``io.StringIO``/``io.BytesIO`` whose contents the trace has not touched."""

    mutable = True  # one object: rebuilt once, kept in a temporary (codegen.reconstruct)

    def __init__(self, cls: type, args: tuple[Any, ...]) -> None:
        self.cls = cls
        self.args = args  # all positional (see _PARAMETERS)

    def python_type(self) -> type:
        return self.cls

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        why = Unsupported(f"{self.cls.__name__}.{name} of a buffer made in the trace", "its contents are not modelled",
                          hint="the buffer is made at the break and the call runs as ordinary Python")
        if isinstance(getattr(self.cls, name, None), types.MethodDescriptorType):
            # read in method position, it cannot be the break (see DeferredAttribute): the call is, and
            # reading a C method of a C class at the break instead runs no code
            return DeferredAttribute(self, name, why)
        raise why

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.call_const(self.cls, len(self.args), lambda: [codegen.load_const(a) for a in self.args])

    def describe(self) -> str:
        return f"{self.cls.__name__} made while tracing"


def make_buffer(cls: type):
    """The constructor :func:`.new_objects.construct` calls for ``cls``."""

    def make(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        values = [*args, *kwargs.values()]
        if not all(v.is_python_constant() for v in values):
            raise Unsupported(f"creating a {cls.__name__} object", "its arguments are not constants")
        consts = [a.as_python_constant() for a in args]
        named = {k: v.as_python_constant() for k, v in kwargs.items()}
        try:
            cls(*consts, **named)  # bad arguments raise their own TypeError natively, at a break
        except Exception as exc:
            raise Unsupported(f"creating a {cls.__name__} object", f"it raises {type(exc).__name__}") from None
        names = _PARAMETERS[cls]
        for name in names[len(consts):]:  # keywords made positional: the rewritten code passes none
            if not named:
                break
            consts.append(named.pop(name, _DEFAULTS[name]))
        return MadeBufferVariable(cls, tuple(consts))

    return make


#: The constructors' parameters, in order, and their defaults.
_PARAMETERS = {io.StringIO: ("initial_value", "newline"), io.BytesIO: ("initial_bytes",)}
_DEFAULTS = {"initial_value": "", "newline": "\n", "initial_bytes": b""}

CONSTRUCTORS[io.StringIO] = make_buffer(io.StringIO)
CONSTRUCTORS[io.BytesIO] = make_buffer(io.BytesIO)
