"""``locals()``, ``vars()`` and ``dir()`` (no arguments) while tracing: the names bound in the frame being traced.

Run natively they would read the wrong frame: loom's rewritten frame holds its own temporaries
(``___loom_slot1``...) and a resume function holds only the locals still live where the graph broke. So in
the trace they are answered from the translator's own locals (the values the program bound, in the order
CPython lists them), and a frame that names one of them runs as it is at any graph break (see
:func:`reads_frame_locals`), so that no native call ever reads a rewritten frame.

Only the first ``locals()`` of a frame is modelled: up to 3.12 every call hands back the frame's one dict,
re-synchronised, which a second call would have to alias. Cells and free variables are listed by CPython
too, with their contents: those frames are left as they are.
"""

from __future__ import annotations

import dis
import types
from typing import TYPE_CHECKING

from ..errors import Unsupported
from .base import Variable
from .constant import ConstantVariable
from .containers import DictVariable, ListVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: The builtins that read the locals of the frame calling them when given no argument.
NAMES = frozenset({"locals", "vars", "dir"})


def reads_frame_locals(code: types.CodeType) -> bool:
    """Whether ``code`` may call a builtin that reads its own frame's locals: a graph break in it runs the
    whole frame as it is (its rewritten frame, or a resume function, would answer other names). ``locals``
    read at all counts; ``vars`` and ``dir`` only called with no argument (``vars(self)`` reads no frame)."""
    if NAMES.isdisjoint(code.co_names):
        return False
    loaded = None
    for ins in dis.get_instructions(code):
        if ins.opname in ("PRECALL", "CACHE", "PUSH_NULL"):
            continue
        if loaded == "locals" or (loaded is not None and ins.opname == "CALL" and ins.arg == 0):
            return True
        loaded = ins.argval if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval in NAMES else None
    return loaded == "locals"


def frame_locals(tx: InstructionTranslator, what: str) -> DictVariable:
    """A new dict of the locals bound in ``tx``'s frame, as ``locals()`` returns it."""
    if getattr(tx, "frame_locals_read", False):
        _as_is(f"call to {what}() again", "up to Python 3.12 each call returns the frame's one dict, updated")
    items = _bound(tx, what)
    tx.frame_locals_read = True
    return DictVariable(items)


def frame_names(tx: InstructionTranslator) -> ListVariable:
    """``dir()``: the sorted names of the locals bound in ``tx``'s frame (a new list: no aliasing)."""
    return ListVariable([ConstantVariable(name) for name in sorted(_bound(tx, "dir"))])


def _bound(tx: InstructionTranslator, what: str) -> dict[str, Variable]:
    code = tx.code
    if code.co_cellvars or code.co_freevars or getattr(tx, "resumes_a_frame", False):
        _as_is(f"call to {what}()", "the frame has cells or free variables, or is a resume function")
    unrealized = getattr(tx, "_unrealized", {})
    return {name: tx.read_local(name) for name in code.co_varnames if name in tx.symbolic_locals or name in unrealized}


def _as_is(what: str, why: str) -> None:
    error = Unsupported(what, why, hint="the function runs as ordinary Python")
    error.reason.frame_as_is = True
    raise error
