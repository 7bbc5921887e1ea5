"""CPython 3.12: what its bytecode changes for loom, relative to 3.11 (``py311``, which this builds on).

Translating (the handlers are in :mod:`loom_symbolic.opcodes.py312`, registered over the shared ones):

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

from .py311 import (  # noqa: F401  (unchanged in 3.12)
    CLASSMETHOD_WRAPS_DESCRIPTORS,
    CLOSE_RETURNS_VALUE,
    SUPERINSTRUCTIONS,
    before_native,
    load_global_callable,
    make_function,
    push_null_then,
)

#: 3.12 added ``name_from`` (the from-imported name IMPORT_FROM did not find) to ImportError's keywords.
IMPORT_ERROR_KEYWORDS = frozenset({"name", "path", "name_from"})

_INTRINSIC_1 = {name: index for index, name in enumerate(dis._intrinsic_1_descs)}
_UNARY_POSITIVE = _INTRINSIC_1["INTRINSIC_UNARY_POSITIVE"]
_LIST_TO_TUPLE = _INTRINSIC_1["INTRINSIC_LIST_TO_TUPLE"]
_STOPITERATION_ERROR = _INTRINSIC_1["INTRINSIC_STOPITERATION_ERROR"]
_PREP_RERAISE_STAR = dis._intrinsic_2_descs.index("INTRINSIC_PREP_RERAISE_STAR")


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

#: See ``py311.MATCH_CLASS_NOT_A_TYPE``: 3.12 words it "class".
MATCH_CLASS_NOT_A_TYPE = "called match pattern must be a class"
