"""CPython 3.12: what its bytecode changes for loom, relative to 3.11 (``py311``, which this builds on).

Translating (handlers registered over the shared ones):

- CALL runs without PRECALL. The stack below the arguments is still ``[NULL, callable]`` or
  ``[method, self]`` (the order flips in 3.13), so 3.11's CALL, KW_NAMES, CALL_FUNCTION_EX and
  LOAD_GLOBAL handlers serve as they are.
- LOAD_METHOD is gone: LOAD_ATTR's low bit asks for the method form (``namei >> 1`` is the name).
- ``super().name`` is one LOAD_SUPER_ATTR over ``[super, __class__, self]`` (bit 0: method form,
  bit 1: two-argument ``super(C, obj)``; ``namei >> 2`` is the name).
- Comprehensions are inlined (PEP 709): LOAD_FAST_AND_CLEAR saves the outer value of the loop
  variable (NULL when unbound; the cell itself when the variable is a cell), SWAP moves it under the
  iterator, and a STORE_FAST of the saved value (possibly NULL: unbound again) restores it. An
  argument the trace has not read yet is saved unread, so it gets no guard.
- FOR_ITER, when the iterator is exhausted, pops it and continues *after* the END_FOR its jump
  names; END_FOR itself pops two.
- New: BINARY_SLICE/STORE_SLICE (``x[a:b]``), RETURN_CONST, LOAD_FAST_CHECK (a LOAD_FAST that may
  find the local unbound), CALL_INTRINSIC_1 (unary ``+``, list → tuple, StopIteration → RuntimeError
  at a generator's edge; the rest belong to module, class and async code), CALL_INTRINSIC_2
  (``except*`` and type parameters: not modelled), END_SEND.
- Conditional jumps are POP_JUMP_IF_TRUE/FALSE/NONE/NOT_NONE, forward only (loops jump back with
  JUMP_BACKWARD); JUMP_IF_TRUE_OR_POP/JUMP_IF_FALSE_OR_POP are gone.
- SEND keeps the sub-iterator on the stack when it is done (END_SEND pops it).
- A generator's body is covered by an exception-table entry whose handler turns an escaping
  StopIteration into RuntimeError (CALL_INTRINSIC_1 3) and re-raises.

Decoding: COMPARE_OP's operator is ``arg >> 4`` (the low bits are for specialisation); relative
jumps count from after the instruction's inline caches (FOR_ITER and SEND have one).

Emitting: CALL without PRECALL; ``LOAD_ATTR`` takes ``(method?, name)``; ``LOAD_METHOD`` is written as
LOAD_ATTR's method form. A native FOR_ITER at a graph break is followed by the END_FOR it skips.
"""

from __future__ import annotations

import dis

from bytecode import Instr

from . import py311
from .py311 import (  # noqa: F401  (unchanged in 3.12)
    SUPERINSTRUCTIONS,
    before_native,
    load_global_callable,
    make_function,
    push_null_then,
)

_INTRINSIC_1 = {name: index for index, name in enumerate(dis._intrinsic_1_descs)}
_UNARY_POSITIVE = _INTRINSIC_1["INTRINSIC_UNARY_POSITIVE"]
_LIST_TO_TUPLE = _INTRINSIC_1["INTRINSIC_LIST_TO_TUPLE"]
_STOPITERATION_ERROR = _INTRINSIC_1["INTRINSIC_STOPITERATION_ERROR"]


def register(handler, replace) -> None:
    """Register 3.11's call protocol, then what 3.12 adds or changes."""
    from ..errors import Unsupported, UserError
    from ..opcodes.build import list_to_tuple, make_slice
    from ..opcodes.control import next_loop_item, return_value, send_to_receiver
    from ..opcodes.names import load_const, load_fast
    from ..opcodes.operators import unary_positive
    from ..variables import operators as ops
    from ..variables.base import NULL, NullVariable, Variable
    from ..variables.cells import CellBox
    from ..variables.exceptions import stop_iteration_error

    py311.register(handler, replace)  # PRECALL's handler stays registered; 3.12 code never reaches it

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
        # The method form pushes [NULL, bound method], standing for both of CPython's layouts.
        obj = tx.pop()
        if ins.arg & 1:
            tx.push(NULL)
        tx.push(obj.var_getattr(tx, ins.argval))

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
            tx.cells[name] = CellBox(name)  # the MAKE_CELL that follows has nothing left to do
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
            tx.push(stop_iteration_error(tx.pop()))
        else:
            raise Unsupported(f"the {dis._intrinsic_1_descs[ins.arg]} intrinsic", "not modelled in function code")

    @handler("CALL_INTRINSIC_2")
    def call_intrinsic_2(tx, ins) -> None:
        raise Unsupported(f"the {dis._intrinsic_2_descs[ins.arg]} intrinsic",
                          "exception groups (except*) and type parameters are not modelled")

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

    @handler("END_SEND")
    def end_send(tx, ins) -> None:
        value = tx.pop()
        tx.pop()
        tx.push(value)


def _after_end_for(instructions, ins) -> int:
    """Where an exhausted FOR_ITER continues: past the END_FOR its jump names (dis gives the END_FOR)."""
    target = ins.target
    return target + 1 if instructions[target].opname == "END_FOR" else target


# -- decoding ------------------------------------------------------------------------------------------
#: See ``py311.DECODE_RULES``; 3.12 adds LOAD_ATTR's method bit, LOAD_SUPER_ATTR's two flag bits and
#: COMPARE_OP's four specialisation bits.
DECODE_RULES = {
    "LOAD_GLOBAL": "name>>1",
    "LOAD_ATTR": "name>>1",
    "LOAD_SUPER_ATTR": "name>>2",
    "COMPARE_OP": "compare>>4",
    "FORMAT_VALUE": "format",
}


# -- graph breaks --------------------------------------------------------------------------------------
def register_stack_effects(table: dict, effect) -> None:
    """Add 3.12's instructions to ``breaks.STACK_EFFECTS``.

    A method-form LOAD_ATTR or LOAD_SUPER_ATTR is not a break point (as 3.11's LOAD_METHOD is not):
    what it leaves below the method may be NULL, which no temporary can hold.
    """
    table["LOAD_ATTR"] = lambda ins: None if ins.arg & 1 else effect(1, 1)
    table["LOAD_SUPER_ATTR"] = lambda ins: None if ins.arg & 1 else effect(3, 1)
    table["BINARY_SLICE"] = lambda ins: effect(3, 1)
    table["STORE_SLICE"] = lambda ins: effect(4, 0)
    table["RETURN_CONST"] = lambda ins: effect(0, 0, falls_through=False)
    table["CALL_INTRINSIC_1"] = lambda ins: effect(1, 1) if ins.arg in (_UNARY_POSITIVE, _LIST_TO_TUPLE) else None
    for name in ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"):
        table[name] = lambda ins: effect(1, 0, jump_pushes=0)


def jump_landing(ins) -> tuple[str, list[Instr], int]:
    """See ``py311.jump_landing``. An exhausted FOR_ITER skips the instruction after its target, which
    must be END_FOR: the rewritten code puts one there, and the original continues after its own."""
    if ins.opname == "FOR_ITER":
        return ins.opname, [Instr("END_FOR")], ins.target + 1
    return ins.opname, [], ins.target


# -- emitting ------------------------------------------------------------------------------------------
def _load_attr(arg) -> list[Instr]:
    return [Instr("LOAD_ATTR", arg if isinstance(arg, tuple) else (False, arg))]


def _load_method(name: str) -> list[Instr]:
    return [Instr("LOAD_ATTR", (True, name))]


#: The code generator's 3.11 forms, as 3.12 writes them.
EMIT_REWRITES = {"LOAD_ATTR": _load_attr, "LOAD_METHOD": _load_method}


def call(argc: int) -> list[Instr]:
    """Call the callable below ``argc`` arguments (NULL or self below it): no PRECALL in 3.12."""
    return [Instr("CALL", argc)]


def call_kw(argc: int, names: tuple[str, ...]) -> list[Instr]:
    """Call with the last ``len(names)`` of ``argc`` arguments passed by keyword (KW_NAMES, then CALL)."""
    return [Instr("KW_NAMES", names), *call(argc)]
