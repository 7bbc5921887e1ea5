"""CPython 3.12's opcode handlers: what its bytecode means, over the shared handlers of this package.

The bytecode facts of CPython 3.12 (decoding, stack effects, how to emit) are in :mod:`loom_symbolic.versions.py312`;
only :mod:`.dispatch` imports this module, and only on CPython 3.12.
"""

from __future__ import annotations

import dis

from ..errors import Unsupported, UserError
from ..variables import operator_semantics as ops
from ..variables.base import NULL, NullVariable, Variable
from ..variables.cells import CellBox
from ..variables.exception_values import SymbolicException, stop_iteration_error
from ..versions.py312 import _LIST_TO_TUPLE, _PREP_RERAISE_STAR, _STOPITERATION_ERROR, _UNARY_POSITIVE
from . import py311  # noqa: F401  (its handlers first: this module says what changes)
from .build import list_to_tuple, make_slice
from .control import next_loop_item, return_value, send_to_receiver
from .exception_opcodes import prep_reraise_star_op
from .names import load_const, load_fast, load_method
from .operator_opcodes import unary_positive
from .registry import handler, replace


def _after_end_for(instructions, ins) -> int:
    """Where an exhausted FOR_ITER continues: past the END_FOR its jump names (dis gives the END_FOR)."""
    target = ins.target
    return target + 1 if instructions[target].opname == "END_FOR" else target


class SavedCell(Variable):
    """What LOAD_FAST_AND_CLEAR saves of a loop variable that is a cell: the cell itself."""

    def __init__(self, box: CellBox) -> None:
        self.box = box

    def describe(self) -> str:
        return f"the saved cell of {self.box.name!r}"

    def reconstruct(self, codegen) -> None:
        raise Unsupported("a graph break inside a comprehension whose variable a closure captures",
                          "the saved cell cannot be rebuilt")


class SavedArgument(Variable):
    """What LOAD_FAST_AND_CLEAR saves of an argument the trace has not read yet: its real value,
    put back unread (so a comprehension reusing the name adds no guard on the argument)."""

    def __init__(self, name: str, value) -> None:
        self.name = name
        self.value = value

    def describe(self) -> str:
        return f"the saved argument {self.name!r}"

    def reconstruct(self, codegen) -> None:
        codegen.emit("LOAD_FAST", self.name)  # the frame's slot still holds it: a break reads before it writes


# -- names and attributes ------------------------------------------------------------------------
@replace("LOAD_ATTR")
def load_attr(tx, ins) -> None:
    if ins.arg & 1:  # the method form: 3.11's LOAD_METHOD
        load_method(tx, ins)
    else:
        tx.push(tx.pop().var_getattr(tx, ins.argval))


@handler("LOAD_SUPER_ATTR")
def load_super_attr(tx, ins) -> None:
    receiver = tx.pop()
    cls = tx.pop()
    global_super = tx.pop()
    # CPython calls the global `super` as the source did: with (cls, self), or with no arguments
    # (then super() finds __class__ and the first argument in the frame, as the translator does).
    proxy = global_super.call(tx, [cls, receiver] if ins.arg & 2 else [], {})
    if ins.arg & 1:
        tx.push(NULL)
    tx.push(proxy.var_getattr(tx, ins.argval))


handler("LOAD_FAST_CHECK")(load_fast)  # read_local raises UnboundLocalError where CPython does


@handler("LOAD_FAST_AND_CLEAR")
def load_fast_and_clear(tx, ins) -> None:
    name = ins.argval
    if name in tx.code.co_cellvars:
        tx.push(SavedCell(tx.cells[name]))
        tx.cells[name] = CellBox(name, owner=tx.code)  # the MAKE_CELL that follows has nothing left to do
        return
    unrealized = getattr(tx, "_unrealized", None)  # a root frame's arguments not read yet
    if unrealized is not None and name in unrealized:
        tx.push(SavedArgument(name, unrealized.pop(name)))
        return
    try:
        value = tx.read_local(name)
    except UserError:
        value = NULL
    else:
        del tx.symbolic_locals[name]
    tx.push(value)


@replace("STORE_FAST")
def store_fast(tx, ins) -> None:
    value = tx.pop()
    if isinstance(value, (NullVariable, SavedCell, SavedArgument)):  # restoring what LOAD_FAST_AND_CLEAR saved
        if isinstance(value, SavedCell):
            tx.cells[ins.argval] = value.box
            return
        tx.symbolic_locals.pop(ins.argval, None)
        unrealized = getattr(tx, "_unrealized", None)
        if unrealized is not None:
            # NULL restored over an argument the trace has not read (a resume function's loop variable):
            # the name is unbound from here, as in eager, not the stale argument a later
            # LOAD_FAST_AND_CLEAR would save and a break would hand on (a new value on every pass)
            unrealized.pop(ins.argval, None)
        if isinstance(value, SavedArgument):
            tx._unrealized[ins.argval] = value.value
        return
    tx.store_local(ins.argval, value)


# -- operators -----------------------------------------------------------------------------------
@handler("BINARY_SLICE")
def binary_slice(tx, ins) -> None:
    stop = tx.pop()
    start = tx.pop()
    container = tx.pop()
    tx.push(ops.getitem(tx, container, make_slice([start, stop])))


@handler("STORE_SLICE")
def store_slice(tx, ins) -> None:
    stop = tx.pop()
    start = tx.pop()
    container = tx.pop()
    value = tx.pop()
    ops.setitem(tx, container, make_slice([start, stop]), value)


@handler("CALL_INTRINSIC_1")
def call_intrinsic_1(tx, ins) -> None:
    if ins.arg == _UNARY_POSITIVE:
        unary_positive(tx, ins)
    elif ins.arg == _LIST_TO_TUPLE:
        list_to_tuple(tx, ins)
    elif ins.arg == _STOPITERATION_ERROR:
        if not getattr(tx, "stands_for_c_iterator", False):  # a C iterator's stand-in ends on it instead
            tx.push(stop_iteration_error(tx.pop()))
    else:
        raise Unsupported(f"the {dis._intrinsic_1_descs[ins.arg]} intrinsic", "not modelled in function code")


@handler("CALL_INTRINSIC_2")
def call_intrinsic_2(tx, ins) -> None:
    if ins.arg == _PREP_RERAISE_STAR:  # what a try/except* raises once its clauses ran
        prep_reraise_star_op(tx, ins)
        return
    raise Unsupported(f"the {dis._intrinsic_2_descs[ins.arg]} intrinsic", "type parameters are not modelled")


# -- control flow --------------------------------------------------------------------------------
@handler("RETURN_CONST")
def return_const(tx, ins) -> None:
    load_const(tx, ins)
    return_value(tx, ins)


@replace("FOR_ITER")
def for_iter(tx, ins) -> None:
    item = next_loop_item(tx)
    if item is None:
        tx.ip = _after_end_for(tx.instructions, ins)
    else:
        tx.push(item)


@handler("END_FOR")
def end_for(tx, ins) -> None:
    tx.pop()
    tx.pop()


@replace("SEND")
def send(tx, ins) -> None:
    send_to_receiver(tx, ins, pop_receiver_when_done=False)  # END_SEND pops the receiver


@handler("CLEANUP_THROW")
def cleanup_throw(tx, ins) -> None:
    """The handler around a ``yield from``'s pause: an exception thrown in that the inner generator let
    out goes on from here (a StopIteration would be the inner generator's return value: not modelled)."""
    exc = tx.pop()
    tx.popn(2)  # the last value sent and the inner iterator
    if issubclass(exc.python_type(), StopIteration):
        raise Unsupported("a generator returning while an exception is thrown into it", "not modelled")
    raise SymbolicException(exc)


@handler("END_SEND")
def end_send(tx, ins) -> None:
    value = tx.pop()
    tx.pop()
    tx.push(value)
