"""Loads, stores and deletes: fast locals, constants, globals, cells and attributes."""

from __future__ import annotations

import sys

from ..errors import Unsupported, UserError
from ..variables.base import NULL
from ..variables.cells import CellVariable
from ..variables.registry import wrap_constant_like
from .registry import handler


@handler("LOAD_CONST")
def load_const(tx, ins) -> None:
    tx.push(wrap_constant_like(ins.argval))


@handler("LOAD_FAST")
def load_fast(tx, ins) -> None:
    tx.push(tx.read_local(ins.argval))


@handler("STORE_FAST")
def store_fast(tx, ins) -> None:
    tx.store_local(ins.argval, tx.pop())


@handler("DELETE_FAST")
def delete_fast(tx, ins) -> None:
    tx.delete_local(ins.argval)


@handler("STORE_GLOBAL")
def store_global(tx, ins) -> None:
    value = tx.pop()
    if tx.f_globals is not tx.root().f_globals:
        raise Unsupported("assigning a global of another module", "not modelled")
    tx.output.side_effects.store_global(ins.argval, value)


@handler("DELETE_GLOBAL")
def delete_global(tx, ins) -> None:
    if tx.f_globals is not tx.root().f_globals:
        raise Unsupported("deleting a global of another module", "not modelled")
    tx.load_global(ins.argval)  # raises NameError semantics when absent
    tx.output.side_effects.delete_global(ins.argval)


@handler("LOAD_DEREF", "LOAD_CLASSDEREF")
def load_deref(tx, ins) -> None:
    tx.push(tx.cells[ins.argval].load(tx))


@handler("STORE_DEREF")
def store_deref(tx, ins) -> None:
    tx.cells[ins.argval].store(tx, tx.pop())


@handler("DELETE_DEREF")
def delete_deref(tx, ins) -> None:
    tx.cells[ins.argval].delete(tx)


@handler("LOAD_CLOSURE")
def load_closure(tx, ins) -> None:
    tx.push(CellVariable(tx.cells[ins.argval]))


@handler("MAKE_CELL", "COPY_FREE_VARS")
def cell_prologue(tx, ins) -> None:
    """Cells are set up when the translator starts; the prologue instructions have nothing left to do."""


@handler("LOAD_ATTR")
def load_attr(tx, ins) -> None:
    obj = tx.pop()
    tx.push(obj.var_getattr(tx, ins.argval))


@handler("LOAD_METHOD")
def load_method(tx, ins) -> None:
    # [NULL, bound method] stands for both of CPython's layouts ([method, self] or [NULL, attr]).
    obj = tx.pop()
    tx.push(NULL)
    tx.push(obj.var_getattr(tx, ins.argval))


@handler("STORE_ATTR")
def store_attr(tx, ins) -> None:
    obj = tx.pop()
    value = tx.pop()
    setter = getattr(obj, "store_attr", None)
    if setter is None:
        raise Unsupported(f"assigning attribute {ins.argval!r} of {obj.describe()}", "not modelled")
    setter(tx, ins.argval, value)


@handler("DELETE_ATTR")
def delete_attr(tx, ins) -> None:
    obj = tx.pop()
    deleter = getattr(obj, "delete_attr", None)
    if deleter is None:
        raise Unsupported(f"deleting attribute {ins.argval!r} of {obj.describe()}", "not modelled")
    deleter(tx, ins.argval)


@handler("LOAD_ASSERTION_ERROR")
def load_assertion_error(tx, ins) -> None:
    tx.push(wrap_constant_like(AssertionError))


@handler("IMPORT_NAME")
def import_name(tx, ins) -> None:
    fromlist = tx.pop().as_python_constant()
    level = tx.pop().as_python_constant()
    name = ins.argval
    if level != 0:
        raise Unsupported("a relative import inside a compiled function", "not modelled")
    module = sys.modules.get(name)
    if module is None:
        raise Unsupported(f"importing {name}", "the module is not imported yet: importing runs its code",
                          hint="import it at the top of the file")
    if not fromlist:
        module = sys.modules.get(name.partition(".")[0], module)
    tx.push(wrap_constant_like(module))


@handler("IMPORT_FROM")
def import_from(tx, ins) -> None:
    module = tx.peek()
    try:
        tx.push(module.var_getattr(tx, ins.argval))
    except UserError:
        raise Unsupported(f"from-import of {ins.argval}", "not found as an attribute") from None
