"""CPython 3.11: the PRECALL/CALL protocol, KW_NAMES, LOAD_GLOBAL's NULL bit, and how to emit them.

This is the base the other version modules start from. Bytecode facts only: the handlers of 3.11's
opcodes are in :mod:`loom_symbolic.opcodes.py311`.
"""

from __future__ import annotations

from bytecode import Instr

# -- decoding ------------------------------------------------------------------------------------------
#: Opcodes whose ``argval`` is not what dis's generic tables give (see ``instructions._argument_kinds``):
#: LOAD_GLOBAL's name index is shifted past the NULL bit; FORMAT_VALUE's flags give (conversion, spec).
DECODE_RULES = {"LOAD_GLOBAL": "name>>1", "COMPARE_OP": "compare", "FORMAT_VALUE": "format"}


# -- graph breaks --------------------------------------------------------------------------------------
#: 3.11 has forward and backward conditional jumps; in the rewritten code every successor comes after
#: the jump, so a backward one becomes forward.
_FORWARD = {
    "POP_JUMP_BACKWARD_IF_TRUE": "POP_JUMP_FORWARD_IF_TRUE",
    "POP_JUMP_BACKWARD_IF_FALSE": "POP_JUMP_FORWARD_IF_FALSE",
    "POP_JUMP_BACKWARD_IF_NONE": "POP_JUMP_FORWARD_IF_NONE",
    "POP_JUMP_BACKWARD_IF_NOT_NONE": "POP_JUMP_FORWARD_IF_NOT_NONE",
}


def register_stack_effects(table: dict, effect) -> None:
    """Add the instructions only 3.11 has to ``breaks.STACK_EFFECTS``."""
    table["LOAD_ATTR"] = lambda ins: effect(1, 1)
    table["UNARY_POSITIVE"] = lambda ins: effect(1, 1)
    for name in (*_FORWARD.values(), *_FORWARD):
        table[name] = lambda ins: effect(1, 0, jump_pushes=0)
    table["JUMP_IF_TRUE_OR_POP"] = lambda ins: effect(1, 0, jump_pushes=1)
    table["JUMP_IF_FALSE_OR_POP"] = lambda ins: effect(1, 0, jump_pushes=1)


def before_native(ins) -> list[Instr]:
    """What the rewritten code runs right before instruction ``ins`` run natively at a graph break
    (nothing on 3.11: its operands are on the stack as the translator left them)."""
    return []


def jump_landing(ins) -> tuple[str, list[Instr], int]:
    """For jump ``ins`` run natively at a graph break: the opname to emit, the instructions right after
    its label, and the original instruction the jump continues at."""
    return _FORWARD.get(ins.opname, ins.opname), [], ins.target


# -- emitting ------------------------------------------------------------------------------------------
#: opname → instructions to emit instead (none: 3.11 is the form the code generator writes).
EMIT_REWRITES: dict = {}
#: Superinstruction → the two instructions a resume function's body writes for it (3.11 has none).
SUPERINSTRUCTIONS: dict = {}


def call(argc: int) -> list[Instr]:
    """Call the callable below ``argc`` arguments (with a NULL or self below it)."""
    return [Instr("PRECALL", argc), Instr("CALL", argc)]


def call_kw(argc: int, names: tuple[str, ...]) -> list[Instr]:
    """Call with the last ``len(names)`` of ``argc`` arguments passed by keyword."""
    return [Instr("KW_NAMES", names), *call(argc)]


def load_global_callable(name: str) -> list[Instr]:
    """Push NULL and the global ``name``, ready for :func:`call`."""
    return [Instr("LOAD_GLOBAL", (True, name))]


def push_null_then(instrs: list[Instr]) -> list[Instr]:
    """Push NULL, then whatever ``instrs`` push (a callable)."""
    return [Instr("PUSH_NULL"), *instrs]


def make_function(flags: int) -> list[Instr]:
    """MAKE_FUNCTION with the code object on top of the stack."""
    return [Instr("MAKE_FUNCTION", flags)]


# -- runtime behaviour ---------------------------------------------------------------------------------
#: Whether ``generator.close()`` returns the value the generator returns on GeneratorExit (a ``return``
#: in its ``finally`` or ``except GeneratorExit``): 3.13 hands it back, 3.11 and 3.12 drop it.
CLOSE_RETURNS_VALUE = False

#: ``classmethod.__get__`` hands the class to a descriptor it wraps (a classmethod over a property reads it).
CLASSMETHOD_WRAPS_DESCRIPTORS = True

#: The keywords ``ImportError(msg, ...)`` takes: the attributes a made ImportError carries besides ``args``.
IMPORT_ERROR_KEYWORDS = frozenset({"name", "path"})

#: The TypeError a class pattern whose name is not a class raises (``case len():``): 3.12 says "class".
MATCH_CLASS_NOT_A_TYPE = "called match pattern must be a type"
