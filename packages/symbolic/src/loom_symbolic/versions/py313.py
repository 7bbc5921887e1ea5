"""CPython 3.13: what its bytecode changes for loom, relative to 3.12 (``py312``, which this builds on).

Translating (the handlers are in :mod:`loom_symbolic.opcodes.py313`, registered over 3.12's):

- The callable comes first: CALL's stack is ``[callable, self_or_NULL, args...]`` (3.12 has
  ``[NULL, callable]`` / ``[method, self]``). LOAD_GLOBAL's low bit, LOAD_ATTR's method bit and
  LOAD_SUPER_ATTR's method bit push the NULL *after* the callable; the translator's method form is
  ``[bound method, NULL]``, which CPython calls the same way. CALL_FUNCTION_EX's stack is
  ``[callable, NULL, args, kwargs?]``.
- KW_NAMES is gone: CALL_KW takes the keyword names as a tuple on top of the arguments.
- TO_BOOL converts a condition to ``bool`` before POP_JUMP_IF_TRUE/FALSE and UNARY_NOT; the
  translator keeps the value as it is (those handlers take its truth themselves), so a graph break
  lands on the jump as on 3.11, and the native jump is preceded by the TO_BOOL it needs
  (:func:`before_native`).
- Superinstructions LOAD_FAST_LOAD_FAST, STORE_FAST_LOAD_FAST, STORE_FAST_STORE_FAST carry two
  locals in one argument (4 bits each).
- LOAD_CLOSURE is compiled to LOAD_FAST of the cell's slot: a LOAD_FAST of a cell or free variable
  pushes the cell itself.
- MAKE_FUNCTION takes only the code; SET_FUNCTION_ATTRIBUTE then sets the closure, annotations,
  keyword defaults and defaults (in that order, one flag each) on the function below it.
- f-strings: CONVERT_VALUE (``!s``, ``!r``, ``!a``), FORMAT_SIMPLE and FORMAT_WITH_SPEC replace
  FORMAT_VALUE.
- A loop ends with ``END_FOR; POP_TOP``: an exhausted FOR_ITER pops the iterator and skips both;
  END_FOR pops one item.

Decoding: COMPARE_OP's operator is ``arg >> 5`` (bit 4 asks for a ``bool`` result, which only a
jump reads); the superinstructions' argument is a pair of locals; CONVERT_VALUE's argument names the
converter. Inline cache sizes come from ``opcode._inline_cache_entries`` (by name in 3.13).

Emitting: ``[callable, NULL]`` order (:func:`push_null_then`); CALL_KW after a LOAD_CONST of the
names (:func:`call_kw`); MAKE_FUNCTION + SET_FUNCTION_ATTRIBUTE (:func:`make_function`); LOAD_CLOSURE
as LOAD_FAST of the cell. A resume function's body has its superinstructions split in two
(:data:`SUPERINSTRUCTIONS`): its locals are renumbered, and the ``bytecode`` library packs a second
local at index 16 into the wrong slot.
"""

from __future__ import annotations

from bytecode import Instr

from . import py312
from .py311 import load_global_callable  # noqa: F401  (LOAD_GLOBAL (True, name) is 3.13's form too)
from .py312 import IMPORT_ERROR_KEYWORDS, MATCH_CLASS_NOT_A_TYPE  # noqa: F401  (unchanged in 3.13)

#: ``generator.close()`` returns the generator's return value ("What's New in Python 3.13").
CLOSE_RETURNS_VALUE = True

#: classmethod no longer wraps other descriptors ("What's New in Python 3.13"): it binds what it holds.
CLASSMETHOD_WRAPS_DESCRIPTORS = False

_SET_FUNCTION_ATTRIBUTE_ORDER = (0x08, 0x04, 0x02, 0x01)  # closure, annotations, kwdefaults, defaults


# -- decoding ------------------------------------------------------------------------------------------
#: See ``py311.DECODE_RULES``; 3.13 moves COMPARE_OP's operator to ``arg >> 5``, packs two locals in
#: the superinstructions, and drops FORMAT_VALUE for CONVERT_VALUE.
DECODE_RULES = {
    "LOAD_GLOBAL": "name>>1",
    "LOAD_ATTR": "name>>1",
    "LOAD_SUPER_ATTR": "name>>2",
    "COMPARE_OP": "compare>>5",
    "LOAD_FAST_LOAD_FAST": "local pair",
    "STORE_FAST_LOAD_FAST": "local pair",
    "STORE_FAST_STORE_FAST": "local pair",
    "CONVERT_VALUE": "convert",
}


# -- graph breaks --------------------------------------------------------------------------------------
def register_stack_effects(table: dict, effect) -> None:
    """3.12's break points, and 3.13's CALL_KW and f-string pieces.

    TO_BOOL is not a break point: it never fails to translate (its consumer takes the truth).
    """
    py312.register_stack_effects(table, effect)
    table.pop("FORMAT_VALUE", None)
    table["CALL_KW"] = lambda ins: effect(ins.arg + 3, 1)
    table["CONVERT_VALUE"] = lambda ins: effect(1, 1)
    table["FORMAT_SIMPLE"] = lambda ins: effect(1, 1)
    table["FORMAT_WITH_SPEC"] = lambda ins: effect(2, 1)


#: Instructions whose operand 3.13 wants as an exact ``bool`` (the compiler puts TO_BOOL before them).
_WANTS_BOOL = frozenset({"POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "UNARY_NOT"})


def before_native(ins) -> list[Instr]:
    """What the rewritten code runs right before instruction ``ins`` run natively at a graph break:
    the TO_BOOL the translator passed over (its operand is the value itself, not yet a bool)."""
    return [Instr("TO_BOOL")] if ins.opname in _WANTS_BOOL else []


def jump_landing(ins) -> tuple[str, list[Instr], int]:
    """See ``py311.jump_landing``. An exhausted FOR_ITER skips the two instructions after its target,
    ``END_FOR; POP_TOP``: the rewritten code puts them there, and the original continues after its own."""
    if ins.opname == "FOR_ITER":
        return ins.opname, [Instr("END_FOR"), Instr("POP_TOP")], ins.target + 2
    return ins.opname, [], ins.target


# -- emitting ------------------------------------------------------------------------------------------
def _load_closure(arg) -> list[Instr]:
    return [Instr("LOAD_FAST", arg)]  # 3.13's LOAD_CLOSURE is a LOAD_FAST of the cell's slot


#: The code generator's 3.11 forms, as 3.13 writes them.
EMIT_REWRITES = {**py312.EMIT_REWRITES, "LOAD_CLOSURE": _load_closure}

#: superinstruction → its two single-local instructions (see the module docstring, "Emitting").
SUPERINSTRUCTIONS = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
}

call = py312.call  # CALL argc, as in 3.12


def call_kw(argc: int, names: tuple[str, ...]) -> list[Instr]:
    """Call with the last ``len(names)`` of ``argc`` arguments passed by keyword."""
    return [Instr("LOAD_CONST", names), Instr("CALL_KW", argc)]


def push_null_then(instrs: list[Instr]) -> list[Instr]:
    """Whatever ``instrs`` push (a callable), then the NULL that 3.13 wants after it."""
    return [*instrs, Instr("PUSH_NULL")]


def make_function(flags: int) -> list[Instr]:
    """MAKE_FUNCTION over the code on top of the stack, then one SET_FUNCTION_ATTRIBUTE per flag
    (the values pushed before the code, in MAKE_FUNCTION's 3.12 order)."""
    return [Instr("MAKE_FUNCTION"), *(Instr("SET_FUNCTION_ATTRIBUTE", flag)
                                      for flag in _SET_FUNCTION_ATTRIBUTE_ORDER if flags & flag)]
