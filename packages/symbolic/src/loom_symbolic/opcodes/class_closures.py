"""The closure a class made while tracing is given: real cells holding what the frame's cells hold.

A class statement's body (and so every method it defines) closes over the traced function's cell variables
(``scale = 3`` then ``def apply(self, t): return t * scale``, or a method naming another class made in the
same function). The class is made once, while tracing, and the compiled code holds that one class (see
:mod:`.class_definitions`), so its methods hold the cells they were made with for as long as the compiled
entry lives. A cell can be given to the class only where that is the same as sharing the frame's cell:

* what it holds is fixed for the compiled entry: a constant of an immutable kind (guarded, or made from guarded
  values), a class or a real function (guarded by identity, or made by this trace), a module, or a function
  made by this trace whose own closure holds such values (it is made real once too, and the trace's variable
  stands for that real function from then on);
* nothing binds the cell again after the class is made: its owner's code stores it at most once, outside any
  loop (or not at all: an argument), and deletes it never, and no function nested in that code stores it
  (``nonlocal``). This is decided from the bytecode, so it holds for the code a graph break runs natively too.

A cell not bound yet is given empty only where it is the class's own name, stored right after the class
statement (methods that make instances of their own class); the store fills it. Anything else (a tensor, a
list made in the frame, a cell of an enclosing function outside the trace, another cell not bound yet, one
bound again later) is refused, saying which name and why: the class is then made on each call instead
(:mod:`.class_per_call`), or, where it cannot be, that is one graph break at the class statement.
"""

from __future__ import annotations

import contextlib
import dis
import functools
import types
from typing import Any

from ..errors import Unsupported
from ..made_once import immutable, per_call
from ..variables.base import Variable
from ..variables.cells import CellBox, RealCellBox
from ..variables.nested_functions import NestedFunctionVariable

#: Objects with an identity the compiled entry keeps: fixed as long as the entry lives.
_FIXED_OBJECTS = (type, types.FunctionType, types.BuiltinFunctionType, types.ModuleType)

_BACKWARD_JUMPS = ("JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "POP_JUMP_BACKWARD_IF_TRUE",
                   "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE")


def real_closure(tx, code: types.CodeType, closure: list[CellBox], what: str) -> tuple[types.CellType, ...] | None:
    """Real cells for ``code``'s free variables, each holding what the trace's box holds (see the module's
    docstring); raises Unsupported naming the first that cannot be given (undoing what it gave before)."""
    if not closure:
        return None
    with undone_on_break(tx) as journal:
        return tuple(_real_cell(tx, name, box, what, journal, code) for name, box in zip(code.co_freevars, closure))


@contextlib.contextmanager
def undone_on_break(tx):
    """A journal of the cells and functions made real inside the block, undone if it raises Unsupported (a
    class the break refuses leaves the trace's variables as they were)."""
    journal: list[Any] = []
    try:
        yield journal
    except Unsupported:
        for made in journal:
            if isinstance(made, CellBox):
                made.frozen = None
            else:
                tx.output.side_effects.made_once.pop(id(made.real), None)
                made.real = None
        raise


def _real_cell(tx, name: str, box: CellBox, what: str, journal: list[Any],
               runs_now: types.CodeType | None = None) -> types.CellType:
    if box.frozen is not None:
        return box.frozen  # given to a class already: one cell, as the frame has one
    if isinstance(box, RealCellBox):
        raise Unsupported(what, f"its body reads {name!r}, a cell the frame was handed (an enclosing function's, "
                                "or a resumed frame's): it may hold another value on each call")
    if box.contents is None:
        if not _binds_to_itself(tx, name, box, runs_now):
            raise Unsupported(what, f"its body reads {name!r}, which is not bound yet")
        # ``class Node: def grow(self): return Node(...)``: the cell is the class's own name, bound by the store
        # right after the class statement (traced: nothing runs between) and never again; the class gets an
        # empty cell that store fills with the class (:meth:`CellBox.store`)
        box.frozen = types.CellType()
        journal.append(box)
        return box.frozen
    if box.owner is None or not bound_once(box.owner, name):
        raise Unsupported(what, f"its body reads {name!r}, which may be bound again after the class is made (a "
                                "second store, a store in a loop, a del, or a nonlocal store in a nested function)",
                          hint="bind the value to a name the function assigns once")
    box.frozen = types.CellType(fixed_value(tx, box.contents, what, f"its body reads {name!r}", journal))
    journal.append(box)
    return box.frozen


def _binds_to_itself(tx, name: str, box: CellBox, body: types.CodeType | None) -> bool:
    """Whether the instruction after this class statement's call stores its result in cell ``name`` of the
    frame making it (a class with no decorators, named ``name``), ``name`` is bound nowhere else, and the class
    ``body`` (run while the class is made) does not read it itself (CPython's NameError, left to a break)."""
    if body is None or any(ins.argval == name and "DEREF" in ins.opname for ins in dis.get_instructions(body)):
        return False
    following = tx.instructions[tx.ip] if tx.ip < len(tx.instructions) else None
    return (following is not None and following.opname == "STORE_DEREF" and following.argval == name
            and tx.cells.get(name) is box and box.owner is not None and bound_once(box.owner, name))


def fixed_value(tx, variable: Variable, what: str, where: str, journal: list[Any]) -> Any:
    """The real object ``variable`` stands for, when it is fixed for the compiled entry; else a break at
    ``what``, saying ``where`` it was met. A function made real is noted in ``journal`` (see
    :func:`undone_on_break`)."""
    if isinstance(variable, NestedFunctionVariable):
        return real_function(tx, variable, what, journal)
    if variable.is_python_constant():
        value = variable.as_python_constant()
        if (immutable(value) or isinstance(value, _FIXED_OBJECTS)) and per_call(value) is None:
            return value
    raise Unsupported(what, f"{where}, which holds {variable.describe()}: a value of each call, while the compiled "
                            "code keeps one class", hint="pass the value to the class's methods as an argument")


def real_function(tx, function: NestedFunctionVariable, what: str, journal: list[Any]) -> types.FunctionType:
    """The real function standing for ``function`` (a ``def`` made by this trace) from now on: made once,
    from its code, constant defaults and a closure given as a class's is; the variable then rebuilds as that
    very function (``NestedFunctionVariable.real``), so names holding it and the class agree on identity."""
    made = getattr(function, "real", None)
    if made is not None:
        return made
    if function.assigned or function.namespace.items:
        raise Unsupported(what, f"it reads function {function.qualname}, whose attributes the trace set")
    where = f"function {function.qualname}"
    annotations = {k: fixed_value(tx, v, what, f"{where}'s annotation", journal)
                   for k, v in (function.annotations or {}).items()}
    defaults = [fixed_value(tx, v, what, f"{where}'s default", journal) for v in function.defaults]
    kwdefaults = {k: fixed_value(tx, v, what, f"{where}'s default", journal) for k, v in function.kwdefaults.items()}
    closure = tuple(_real_cell(tx, name, box, what, journal)
                    for name, box in zip(function.code.co_freevars, function.closure)) or None
    made = types.FunctionType(function.code, function.f_globals, function.code.co_name, tuple(defaults) or None,
                              closure)
    made.__qualname__ = function.qualname
    made.__kwdefaults__ = kwdefaults or None
    if annotations:
        made.__annotations__ = annotations
    function.real = made
    journal.append(function)
    tx.output.side_effects.made_once[id(made)] = (made, tx.root().break_point())
    return made


@functools.lru_cache(maxsize=512)
def bound_once(owner: types.CodeType, name: str) -> bool:
    """Whether cell ``name`` of ``owner`` is bound at most once per call of ``owner``: no ``del``, no store in
    a nested function, and at most one store in ``owner`` itself, outside every loop (none for an argument,
    which the call binds)."""
    instructions = list(dis.get_instructions(owner))
    stores = [ins.offset for ins in instructions if ins.opname == "STORE_DEREF" and ins.argval == name]
    if any(ins.opname == "DELETE_DEREF" and ins.argval == name for ins in instructions):
        return False
    arguments = owner.co_varnames[:owner.co_argcount + owner.co_kwonlyargcount + bool(owner.co_flags & 0x04)
                                  + bool(owner.co_flags & 0x08)]
    if len(stores) > (0 if name in arguments else 1):
        return False
    loops = [(ins.argval, ins.offset) for ins in instructions if ins.opname in _BACKWARD_JUMPS]
    if any(start <= offset <= end for offset in stores for start, end in loops):
        return False
    return not _stored_inside(owner, name)


def _stored_inside(code: types.CodeType, name: str) -> bool:
    """Whether a function nested in ``code`` that shares cell ``name`` stores or deletes it."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and name in const.co_freevars:
            if any(ins.opname in ("STORE_DEREF", "DELETE_DEREF") and ins.argval == name
                   for ins in dis.get_instructions(const)):
                return True
            if _stored_inside(const, name):
                return True
    return False
