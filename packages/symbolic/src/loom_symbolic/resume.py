"""Resume functions: the rest of a function, from an instruction on, as a code object of its own.

After a graph break the rewritten code calls a resume function with the live stack and locals as
arguments. Its code is the original function's bytecode with a short prologue in front: the prologue
rebuilds the value stack (pushing NULLs and re-creating iterators where the layout says so) and jumps
to the target instruction. Everything after it is the original code, exception table included, so
``with`` blocks, ``try`` handlers and loops continue exactly as they would have.

Cell variables of the original function become free variables of the resume function: the rewritten
code passes the very cell objects in the closure, so closures made before the break stay connected.
Resume functions are cached per (code, target offset, stack layout, live locals).
"""

from __future__ import annotations

import copy
import types
from dataclasses import dataclass
from typing import Any

from bytecode import Bytecode, CellVar, FreeVar, Instr, Label, TryBegin, TryEnd

from .bytecode_helpers import iter_at
from .errors import Unsupported
from .instructions import decode
from .versions import current as version

#: What one original stack slot becomes in a resume function's arguments.
NULL_SLOT = "null"  # no argument: the prologue pushes NULL
VALUE_SLOT = "value"  # one argument
ITERATOR_SLOT = "iter"  # two arguments (iterable, index): the prologue calls iter_at
ITEM_SLOT = "item"  # one argument: the item a native FOR_ITER took (an int item is a runtime value)
#: One argument: the exception an ``except``/``finally`` block handles. Its slot holds the exception handled
#: before it; the prologue re-enters the handler with PUSH_EXC_INFO, which stores exactly that and makes the
#: argument the exception being handled again (``raise``, ``sys.exc_info()`` and implicit chaining see it).
HANDLED_SLOT = "handled"
ENTER_SLOT = "enter"  # one argument, a context manager: the prologue enters it, leaving its __exit__

CO_VARARGS = 0x04
CO_VARKEYWORDS = 0x08
CO_NEWLOCALS_OPTIMIZED = 0x01 | 0x02


@dataclass(frozen=True)
class ResumeKey:
    """Everything that shapes a resume function's code."""

    code: types.CodeType
    target: int  # instruction index in the original code
    layout: tuple[str, ...]
    live_locals: tuple[str, ...]


_cache: dict[ResumeKey, types.CodeType] = {}
#: resume code → (the original code, the instruction index it resumes at)
_points: dict[types.CodeType, tuple[types.CodeType, int]] = {}
#: resume code → (the original code, resume instruction index → original instruction index).
_origins: dict[types.CodeType, tuple[types.CodeType, dict[int, int]]] = {}


def origin_of(code: types.CodeType, index: int) -> tuple[types.CodeType, int]:
    """The original code and instruction a (resume) code's instruction ``index`` stands for.

    A break inside a resume function resumes in terms of the original function, so every pass of a
    loop interrupted by a break reuses the same resume function (and its compiled entries).
    """
    found = _origins.get(code)
    if found is None:
        return code, index
    return found[0], found[1][index]


def in_prologue(code: types.CodeType, index: int) -> bool:
    """Whether instruction ``index`` of resume code ``code`` is its prologue (rebuilding the stack and the
    loop iterators before jumping into the original code): no original instruction to resume at stands for
    it, so a break there runs the whole resume function as it is."""
    found = _origins.get(code)
    return found is not None and index not in found[1]


#: resume code → (int locals that were symbols, locals handed on unread) when a break called it.
_handed_on: dict[types.CodeType, tuple[frozenset[str], frozenset[str]]] = {}


def note_handed_on(code: types.CodeType, symbolic: frozenset[str], unread: frozenset[str]) -> None:
    """Int locals ``symbolic`` were symbols, and locals ``unread`` were handed on unread, in a trace that
    calls resume function ``code``: they vary between its entries (a loop's counter, a list the loop
    appends to), so it treats them so from its first compile."""
    ints, values = _handed_on.get(code, (frozenset(), frozenset()))
    if symbolic - ints or unread - values:
        _handed_on[code] = (ints | symbolic, values | unread)


def handed_on(code: types.CodeType) -> tuple[frozenset[str], frozenset[str]]:
    """(int locals made symbols, locals handed on unread) for resume function ``code``."""
    return _handed_on.get(code, _NOTHING_HANDED_ON)


_NOTHING_HANDED_ON: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())


def is_loop_item(name: str) -> bool:
    """Whether resume-function parameter ``name`` is an item a native ``FOR_ITER`` took (ITEM_SLOT)."""
    return name.startswith("___stack") and name.endswith("_item")


def is_resume_code(code: types.CodeType) -> bool:
    """Whether ``code`` is a resume function's (its rewritten code runs under ``run_resume``)."""
    return code in _origins


def real_instructions(bytecode: Bytecode) -> list[int]:
    """Positions in ``bytecode`` of its real instructions, in the order ``dis`` lists them."""
    return [i for i, item in enumerate(bytecode) if isinstance(item, Instr)]


def dis_to_bytecode_positions(code: types.CodeType, bytecode: Bytecode) -> dict[int, int]:
    """Map the translator's instruction indexes (dis order) to positions in ``bytecode``."""
    positions = real_instructions(bytecode)
    mapping: dict[int, int] = {}
    k = 0
    for ins in decode(code).instructions:
        if ins.opname == "EXTENDED_ARG":
            continue  # folded into the next instruction by the bytecode library
        mapping[ins.index] = positions[k]
        item = bytecode[positions[k]]
        if item.name != ins.opname and not (ins.opname.startswith("JUMP") and item.name.startswith("JUMP")):
            raise AssertionError(f"instruction maps misaligned at {ins.offset}: {ins.opname} vs {item.name}")
        k += 1
    return mapping


def super_receiver(original: types.CodeType) -> str | None:
    """The parameter a zero-argument ``super()`` in ``original`` reads, or None if it has none.

    ``super()`` takes the frame's first local as its object, so a resume function of such code keeps
    that parameter first (see :func:`argument_names`).
    """
    if "__class__" not in original.co_freevars or original.co_argcount == 0:
        return None
    name = original.co_varnames[0]
    if name in original.co_cellvars:
        raise Unsupported("a graph break in a method that calls super()",
                          f"its first parameter {name!r} is captured by a closure")
    return name


def argument_names(layout: tuple[str, ...], live_locals: tuple[str, ...], receiver: str | None = None) -> list[str]:
    """A resume function's parameters: the ``super()`` receiver if any, one or two per stack slot,
    then the other live locals."""
    names: list[str] = [receiver] if receiver else []
    for i, kind in enumerate(layout):
        if kind in (VALUE_SLOT, HANDLED_SLOT, ENTER_SLOT):
            names.append(f"___stack{i}")
        elif kind == ITEM_SLOT:
            names.append(f"___stack{i}_item")
        elif kind == ITERATOR_SLOT:
            names += [f"___stack{i}_iterable", f"___stack{i}_index"]
    return names + [name for name in live_locals if name != receiver]


def resume_code(key: ResumeKey) -> types.CodeType:
    """The resume function's code for ``key`` (built once, then cached)."""
    found = _cache.get(key)
    if found is None:
        found = _cache[key] = _build(key)
        _points[found] = (key.code, key.target)
    return found


def resume_point(code: types.CodeType) -> tuple[types.CodeType, int] | None:
    """Where resume code ``code`` resumes: the original function's code and instruction index (None for a code
    that is no resume code). Two resume codes with one point broke at one instruction of the original."""
    return _points.get(code)


def _exception_depths(original: types.CodeType, bytecode: Bytecode) -> None:
    """Give each try block the stack depth of the original exception table.

    ``Bytecode.from_code`` leaves them unset (it would recompute them from the entry point); a resume
    function enters in the middle of the code, so they must come from the original table, entry by
    entry (the bytecode library makes one TryBegin per table entry, in table order).
    """
    import dis

    entries = list(dis._parse_exception_table(original))
    begins = [item for item in bytecode if isinstance(item, TryBegin)]
    if len(entries) != len(begins):
        raise Unsupported("a graph break in this function", "its exception table could not be mapped")
    for entry, begin in zip(entries, begins):
        begin.stack_depth = entry.depth


def _build(key: ResumeKey) -> types.CodeType:
    original = key.code
    bytecode = Bytecode.from_code(original)
    _exception_depths(original, bytecode)
    positions = dis_to_bytecode_positions(original, bytecode)
    target_position = positions[key.target]
    target_instr = bytecode[target_position]
    label = Label()
    body = list(bytecode)
    body.insert(target_position, label)
    _reenter_try_block(body, target_position)
    cellvars = list(bytecode.cellvars)
    names = [item.name for item in body if isinstance(item, Instr)]
    if "MAKE_CELL" in names[names.index("RESUME"):]:
        # 3.12 inlines comprehensions: one whose variable a closure captures makes a fresh cell in
        # the middle of the code, which a resume function (whose cells are free variables) cannot.
        raise Unsupported("a graph break in this function",
                          "a comprehension variable captured by a closure makes a cell in the middle of the code")
    body = [_as_free(single, cellvars) for item in body if not _is_prologue(item) for single in _split(item)]

    line = target_instr.lineno or original.co_firstlineno
    prologue: list[Any] = []
    freevars = list(bytecode.freevars) + cellvars
    if freevars:
        prologue.append(Instr("COPY_FREE_VARS", len(freevars), lineno=line))
    prologue.append(Instr("RESUME", 0, lineno=line))
    for i, kind in enumerate(key.layout):
        if kind == NULL_SLOT:
            prologue.append(Instr("PUSH_NULL", lineno=line))
        elif kind == VALUE_SLOT:
            prologue.append(Instr("LOAD_FAST", f"___stack{i}", lineno=line))
        elif kind == ITEM_SLOT:
            prologue.append(Instr("LOAD_FAST", f"___stack{i}_item", lineno=line))
        elif kind == HANDLED_SLOT:
            prologue += [Instr("LOAD_FAST", f"___stack{i}"), Instr("PUSH_EXC_INFO"), Instr("POP_TOP")]
        elif kind == ENTER_SLOT:  # the block's manager: entered here, its bound __exit__ stays in the slot
            prologue += [Instr("LOAD_FAST", f"___stack{i}"), Instr("BEFORE_WITH"), Instr("POP_TOP")]
        else:
            prologue += [
                *version.push_null_then([Instr("LOAD_CONST", iter_at)]),
                Instr("LOAD_FAST", f"___stack{i}_iterable"),
                Instr("LOAD_FAST", f"___stack{i}_index"),
                *version.call(2),
            ]
    prologue.append(Instr("JUMP_FORWARD", label))
    for instr in prologue:
        instr.lineno = line

    result = Bytecode()
    result.argnames = argument_names(key.layout, key.live_locals, super_receiver(original))
    result.argcount = len(result.argnames)
    result.posonlyargcount = 0
    result.kwonlyargcount = 0
    result.first_lineno = original.co_firstlineno
    result.filename = original.co_filename
    # The function's own name, so a traceback's last frame reads as it would without loom; the
    # qualified name says where it resumes, for logs and explain.
    result.name = original.co_name
    base = original.co_qualname.split(" (resume at line ")[0]
    result.qualname = f"{base} (resume at line {line})"
    result.flags = bytecode.flags & ~(CO_VARARGS | CO_VARKEYWORDS)
    result.freevars = freevars
    result.cellvars = []
    result.docstring = None
    result.extend(prologue + body)
    # The copied try blocks keep the depths of the original exception table: the prologue rebuilds
    # exactly that stack, and blocks before the resume point are unreachable (no depth to compute).
    try:
        built = result.to_code(compute_exception_stack_depths=False)
    except RuntimeError as exc:  # the bytecode library found a path whose stack depth it cannot follow
        # Never guess a stack size: code that underflows its stack crashes the interpreter.
        raise Unsupported("a graph break here", f"the resume function's stack depth cannot be computed ({exc})",
                          hint="the function runs as ordinary Python") from exc
    _origins[built] = (original, _align(built, original))
    return built


def _reenter_try_block(body: list[Any], at: int) -> None:
    """Split the try block around the resume point ``body[at]`` (a label) in two, the second starting at it.

    The prologue jumps to the label, past the block's ``TryBegin``. The exception table is the same
    either way, but the bytecode library computes a handler's entry depth from the smallest stack it
    saw since the ``TryBegin`` on the path: entered from the prologue, that is the function's entry, and
    a ``with`` body that can only leave by raising gave its cleanup a stack one short (a resume function
    it refused). The second half's ``TryBegin`` is on the prologue's path."""
    opened = None
    for item in body[:at]:
        if isinstance(item, TryBegin):
            opened = item
        elif isinstance(item, TryEnd) and opened is not None and item.entry is opened:
            opened = None
    if opened is None:
        return
    second = opened.copy()
    for i in range(at + 1, len(body)):
        if isinstance(body[i], TryEnd) and body[i].entry is opened:
            body[i] = TryEnd(second)
            break
    body[at + 1:at + 1] = [second]
    body.insert(at, TryEnd(opened))


def _align(resume: types.CodeType, original: types.CodeType) -> dict[int, int]:
    """Resume instruction index → original instruction index, for the copied body (both halves of a
    split superinstruction stand for it)."""
    dropped = ("EXTENDED_ARG", "MAKE_CELL", "COPY_FREE_VARS")
    originals = [
        ins for ins in decode(original).instructions
        if ins.opname not in dropped and not (ins.opname == "RESUME" and ins.arg == 0)
    ]
    split = version.SUPERINSTRUCTIONS
    copies = [ins for ins in decode(resume).instructions if ins.opname != "EXTENDED_ARG"]
    at = len(copies) - len(originals) - sum(1 for ins in originals if ins.opname in split)
    mapping: dict[int, int] = {}
    for ins in originals:
        width = 2 if ins.opname in split else 1
        for copied in copies[at:at + width]:
            mapping[copied.index] = ins.index
        at += width
    return mapping


def _split(item: Any) -> list[Any]:
    """A superinstruction as its two single-local instructions (see ``versions.py313``); others as they are."""
    names = version.SUPERINSTRUCTIONS.get(item.name) if isinstance(item, Instr) else None
    if names is None:
        return [item]
    return [Instr(name, arg, location=item.location) for name, arg in zip(names, item.arg)]


def _is_prologue(item: Any) -> bool:
    return isinstance(item, Instr) and item.name in ("MAKE_CELL", "COPY_FREE_VARS", "RESUME") and (
        item.name != "RESUME" or item.arg == 0
    )


def _as_free(item: Any, cellvars: list[str]) -> Any:
    """Cell variables of the original are free variables of the resume function.

    3.13 loads a closure's cell with LOAD_FAST; the ``bytecode`` library names the cell of an argument
    by the argument's name (a plain string), which in a resume function must be the free variable too.
    """
    if not isinstance(item, Instr):
        return item
    arg = item.arg
    if isinstance(arg, CellVar) or (item.name == "LOAD_FAST" and type(arg) is str and arg in cellvars):
        clone = copy.copy(item)
        clone.arg = FreeVar(arg.name if isinstance(arg, CellVar) else arg)
        return clone
    return item
