"""``print(...)`` inside the body of a plain-call higher-order op (``wrap``): made by the rewritten code
after the graph, where it may be.

Eager runs ``wrap(body, x)`` as ``body(x)``. A print in ``body`` cannot break the graph in the middle of a
sub-graph, so it used to take the whole op out of the graph (torch.compile too: it runs the op eagerly).
A print of values the rest of the trace cannot change (constants, symbolic sizes, tuples of them) is
instead recorded as a deferred call (:mod:`.deferred_calls`) and made by the rewritten code in program
order with the other side effects, so prints (and log records) still come out in eager's order; the
body, having a Python effect, is then traced in place as the plain call eager makes
(``trace_body(plain_call=True)``). Made later, the output must not reach anything the trace reads: the
stream (``file``, else ``sys.stdout`` at run time) is guarded on every call to be one whose writes run
only ``io``'s own C code down to its raw file (:func:`writes_in_c`: a ``StringIO``, a file, the console,
pytest's capture), whose contents the trace cannot read without a graph break (a C method of ``io``).
Elsewhere a print stays what it was, a graph break where it stands (programs and tests use one to split
a graph on purpose), and so does a print of a tensor or any other value, or to another stream.
"""

from __future__ import annotations

import io
import sys
import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const
from loom_guards.sources import _Chained, _check_base, _set_chained

from ..errors import Unsupported
from .builtins import builtin
from .constant import ConstantVariable
from .deferred_calls import fixed
from .graph_prints import print_in_graph

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_STDOUT = Attr(Const(sys, "sys"), "stdout")
#: Where a stream hands its bytes on: a text stream to its buffer, a buffered stream to its raw file.
_LOWER = ("buffer", "raw")
_C_ATTRIBUTES = (types.GetSetDescriptorType, types.MemberDescriptorType)


def writes_in_c(stream: Any) -> bool:
    """Whether ``print(..., file=stream)`` runs only ``io``'s C methods (no code of the program's), down the
    stream's chain of buffers, ``flush`` included; a missing stream (``sys.stdout is None``) prints nothing."""
    for _ in range(4):  # text wrapper, buffer, raw file
        if stream is None:
            return True
        if not isinstance(stream, io.IOBase):
            return False
        cls = type(stream)
        # a text stream flushes itself on a newline when line-buffered: both must be io's own
        if any(type(getattr(cls, name, None)) is not types.MethodDescriptorType for name in ("write", "flush")):
            return False
        lower = next((name for name in _LOWER if type(getattr(cls, name, None)) in _C_ATTRIBUTES), None)
        if lower is None:
            return True  # the end of the chain: a StringIO, BytesIO or raw file
        try:
            stream = getattr(stream, lower)
        except ValueError:  # detached
            return False
    return False


class WritesInC(_Chained):
    """:func:`writes_in_c` of the stream ``base`` reaches: guarded True while prints to it are deferred."""

    __slots__ = ()
    fetch_cost = 4

    def __init__(self, base: Any) -> None:
        _set_chained(self, _check_base("WritesInC", base))

    def _key(self) -> tuple:
        return (self._base,)

    def _args(self) -> tuple:
        return (self._base,)

    def read_from(self, base_value: Any) -> bool:
        return writes_in_c(base_value)

    def __str__(self) -> str:
        return f"<{self._base} is written by io's C code only>"


def _constant_of(value: Any, kinds: tuple) -> Any:
    """The constant ``value`` holds if it is one of ``kinds``, else ``...``."""
    return value.value if isinstance(value, ConstantVariable) and isinstance(value.value, kinds) else ...


def _deferred(tx: InstructionTranslator, args: list, kwargs: dict) -> bool:
    """Record the print after the graph if it may be made there; whether it was."""
    if set(kwargs) - {"sep", "end", "file", "flush"} or not all(fixed(a) for a in args):
        return False
    if any(_constant_of(kwargs[k], (str, type(None))) is ... for k in ("sep", "end") if k in kwargs):
        return False
    if "flush" in kwargs and _constant_of(kwargs["flush"], (bool, int)) is ...:
        return False
    stream = kwargs.get("file")
    if stream is not None and _constant_of(stream, (type(None),)) is ...:
        real = getattr(stream, "value", ...)
        if stream.source is None or real is ... or not writes_in_c(real):
            return False
        source = stream.source
    elif not writes_in_c(sys.stdout):
        return False
    else:
        source = _STDOUT
    tx.output.guards.add("constant", WritesInC(source), True)
    tx.output.side_effects.deferred_call(print, args, kwargs, tx.root().location().lineno)
    return True


@builtin(print)
def builtin_print(tx, args, kwargs):
    """``print(*values, sep=, end=, file=, flush=)``: a print node of the graph (``graph_prints``); in a plain
    call's body, of fixed values to an ``io`` stream, made after the graph; else a graph break."""
    if print_in_graph(tx, args, kwargs):
        return ConstantVariable(None)
    if tx.output.plain_call_bodies and _deferred(tx, args, kwargs):
        return ConstantVariable(None)
    raise Unsupported("print()", "printing is I/O, done by ordinary Python", hint="it runs between compiled graphs")
