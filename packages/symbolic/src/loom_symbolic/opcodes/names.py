"""Loads, stores and deletes: fast locals, constants, globals, cells and attributes."""

from __future__ import annotations

from ..errors import Unsupported, UserError
from ..variables.base import NULL, DeferredAttribute, metaclass_read_runs_no_python, reads_run_no_python
from ..variables.cells import CellVariable
from ..variables.imports import from_import_failure, imported_module
from ..variables.module_globals import delete_module_global, module_of, require_global, store_module_global
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
    if tx.f_globals is tx.root().f_globals:
        tx.output.side_effects.store_global(ins.argval, value)
    else:  # an inlined function of another module
        store_module_global(tx, module_of(tx.f_globals), ins.argval, value)


@handler("DELETE_GLOBAL")
def delete_global(tx, ins) -> None:
    require_global(tx, ins.argval)
    if tx.f_globals is tx.root().f_globals:
        tx.output.side_effects.delete_global(ins.argval)
    else:
        delete_module_global(tx, module_of(tx.f_globals), ins.argval)


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


def method_attribute(tx, obj, name: str):
    """The attribute a method read (3.11's ``LOAD_METHOD``, 3.12/3.13's ``LOAD_ATTR`` method form) pushes.

    A method read cannot be the break instruction (its two results have no form a resume function
    takes), so a read the translator cannot model, on a value whose lookup runs no Python (a builtin
    value, or ``type``'s own attribute of a class made by ``type``), becomes a ``DeferredAttribute``: the break comes at its use, the call, which can split. Every version's
    handler asks here, so the decision is made once."""
    try:
        return obj.var_getattr(tx, name)
    except Unsupported as exc:
        # The program's own AttributeError (UserError) and refusals that carry more are raised as they are.
        if type(exc) is not Unsupported or not (reads_run_no_python(obj) or metaclass_read_runs_no_python(obj, name)):
            raise
        return DeferredAttribute(obj, name, exc)


@handler("LOAD_METHOD")
def load_method(tx, ins) -> None:
    # [NULL, bound method] stands for both of CPython's layouts ([method, self] or [NULL, attr]).
    obj = tx.pop()
    tx.push(NULL)
    tx.push(method_attribute(tx, obj, ins.argval))


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
    tx.push(imported_module(tx, ins.argval, fromlist, level, tx.f_globals))


@handler("IMPORT_FROM")
def import_from(tx, ins) -> None:
    module = tx.peek()
    try:
        tx.push(module.var_getattr(tx, ins.argval))
    except UserError:
        raise from_import_failure(tx, module, ins.argval) from None
