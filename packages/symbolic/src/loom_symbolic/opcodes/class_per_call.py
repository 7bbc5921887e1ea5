"""A class statement whose methods read values of each call: modelled by a template, made again on each call.

``log = []`` then ``class M: def __enter__(self): log.append("in")``: the class's closure holds a value of the
call (a list made in the frame, a tensor, a cell bound again later or written by ``nonlocal``), so it cannot be
made once for the compiled entry (:mod:`.class_closures`). Eager makes the class on every call, each closing
over that call's cells; so does the compiled code:

* while tracing, the class is a real *template*, made now by ``__build_class__`` as a class made once is, with
  fresh cells of its own. Each of those cells stands for the trace's box of the same name
  (``CellBoxes.templates``): a method called in the trace reads and writes the trace's own cells (the values
  of the call being traced), not the template's;
* the compiled code, wherever it rebuilds the class (returned, stored, handed on at a graph break, an instance
  of it rebuilt), runs ``__build_class__`` on the body again with the frame's real cells, once per run, kept in
  a temporary (``PyCodegen.load_const``, :data:`..made_once.PER_CALL`), so that every instance and name of one
  call share one class, and an instance of call 1 keeps writing call 1's cells;
* where a cell has no real cell to hand over there (a cell argument of the frame, an enclosing function's cell
  at the return), the translation breaks at the class statement instead, naming it (``retry_at``).

The body itself must not read the frame's cells (a class attribute or a default of a method holding a value of
the call): the template is made without them; that stays a break at the class statement.
"""

from __future__ import annotations

import builtins
import dataclasses
import dis
import types
from typing import Any

from ..errors import Unsupported
from ..made_once import PerCall, per_call, register_per_call
from ..variables.cells import CellBox

_READS_CELL = frozenset({"LOAD_DEREF", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF"})


def class_template(tx, body: Any, name: str, bases: list[Any], refused: Unsupported) -> type:
    """The template of class ``name`` (``body``: the class body's NestedFunctionVariable), whose closure
    ``real_closure`` refused with ``refused`` (raised again where the class cannot be made per call either)."""
    code = body.code
    boxes: list[CellBox] = list(body.closure or ())
    if any(ins.opname in _READS_CELL and ins.argval in code.co_freevars for ins in dis.get_instructions(code)):
        raise refused
    cells = tuple(types.CellType() for _ in boxes)
    templates = tx.output.cell_boxes.templates
    for cell, box in zip(cells, boxes):
        templates[id(cell)] = (cell, box)
    function = types.FunctionType(code, body.f_globals, code.co_name, None, cells or None)
    made = builtins.__build_class__(function, name, *bases)
    register_per_call(made, PerCall(code, body.f_globals, boxes, name, tuple(bases), tx.root().break_point()))
    return made


def decorated_template(template: type, decorated: type, decorator: Any) -> type:
    """``decorator(template)`` (``decorated``, run natively on the template): a template too, whose class each
    call makes the same way, then decorates with ``decorator``."""
    recipe = per_call(template)
    register_per_call(decorated, dataclasses.replace(recipe, decorators=(*recipe.decorators, decorator)))
    return decorated


def typed_template(tx, name: str, bases: tuple, namespace: dict[str, Any]) -> type:
    """``type(name, bases, namespace)`` where a base is a template: a template too, each call's class made by
    ``type`` over that call's bases and a copy of ``namespace`` (its values fixed for the compiled entry)."""
    made = type(name, bases, dict(namespace))
    register_per_call(made, PerCall(None, None, [], name, tuple(bases), tx.root().break_point(),
                                    namespace=dict(namespace)))
    return made
