"""Graph breaks: ending the graph at an instruction the translator cannot model, and going on after it.

When translation stops before instruction ``I`` of the frame (see :func:`loom_symbolic.api.translate`),
the rewritten code does, in order:

1. call the graph captured so far and replay the side effects recorded until then;
2. rebuild the live locals (and cell contents) and the value stack from the graph's outputs;
3. run ``I`` itself as ordinary bytecode (inside an exception-table entry when the original had one);
4. call the resume function of the instruction that comes next (both successors for a conditional
   jump; the handler for an exception), passing the stack and locals, and return what it returns.

The resume function is an ordinary frame: loom compiles it in its turn when it runs.
"""

from __future__ import annotations

import copy
import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bytecode import Bytecode, CellVar, FreeVar, Instr, Label, TryBegin, TryEnd

from . import side_effects
from .bytecode_helpers import Bounce, iter_at, run_resume
from .codegen import PyCodegen
from .errors import Unsupported
from .instructions import decode
from .resume import (
    ENTER_SLOT,
    HANDLED_SLOT,
    ITEM_SLOT,
    ITERATOR_SLOT,
    NULL_SLOT,
    VALUE_SLOT,
    ResumeKey,
    dis_to_bytecode_positions,
    is_resume_code,
    note_handed_on,
    origin_of,
    resume_code,
    resume_point,
    super_receiver,
)
from .variables import ctx as _ctx
from .variables.base import NullVariable
from .variables.default_dtype import replay_default_dtype
from .variables.inference_mode import InferenceModeExitVariable
from .variables.iterators import IteratorVariable
from .variables.symbolic_scalars import SymbolicVariable
from .versions import current as version

if TYPE_CHECKING:
    from .instructions import Instruction
    from .translator import RootTranslator



@dataclass(frozen=True)
class StackEffect:
    """How instruction ``I`` changes the stack: items it pops, items it leaves on each path."""

    pops: int
    pushes: int  # on the fall-through path
    jump_pushes: int | None = None  # on the jump path (None: not a jump)
    falls_through: bool = True


def _call_effect(ins: Instruction) -> StackEffect:
    return StackEffect(ins.arg + 2, 1)


def _fixed(pops: int, pushes: int) -> Any:
    return lambda ins: StackEffect(pops, pushes)


#: Instructions a graph may break at, and their stack effects. Others make the frame run as it is.
#: An entry may answer None for a form of its instruction the graph cannot break at. The version
#: module adds the instructions only its CPython has (``register_stack_effects``).
STACK_EFFECTS: dict[str, Any] = {
    "CALL": _call_effect,
    "CALL_FUNCTION_EX": lambda ins: StackEffect(3 + (ins.arg & 1), 1),
    "BINARY_OP": _fixed(2, 1),
    "BINARY_SUBSCR": _fixed(2, 1),
    "COMPARE_OP": _fixed(2, 1),
    "IS_OP": _fixed(2, 1),
    "CONTAINS_OP": _fixed(2, 1),
    "STORE_SUBSCR": _fixed(3, 0),
    "DELETE_SUBSCR": _fixed(2, 0),
    "STORE_ATTR": _fixed(2, 0),
    "DELETE_ATTR": _fixed(1, 0),
    "UNARY_NEGATIVE": _fixed(1, 1),
    "UNARY_INVERT": _fixed(1, 1),
    "UNARY_NOT": _fixed(1, 1),
    "GET_ITER": _fixed(1, 1),
    # Entering a context the translator cannot model (torch.autocast): enter it for real, then the
    # resume function traces the body inside it, with the bound __exit__ among its stack values.
    "BEFORE_WITH": _fixed(1, 2),
    "UNPACK_SEQUENCE": lambda ins: StackEffect(1, ins.arg),
    "UNPACK_EX": lambda ins: StackEffect(1, (ins.arg & 0xFF) + (ins.arg >> 8) + 1),
    "FORMAT_VALUE": lambda ins: StackEffect(2 if ins.arg & 0x04 else 1, 1),
    "BUILD_STRING": lambda ins: StackEffect(ins.arg, 1),
    "STORE_GLOBAL": _fixed(1, 0),
    "IMPORT_NAME": _fixed(2, 1),
    "RAISE_VARARGS": lambda ins: StackEffect(ins.arg, 0, falls_through=False),
    "RETURN_VALUE": lambda ins: StackEffect(1, 0, falls_through=False),
    "FOR_ITER": lambda ins: StackEffect(1, 2, jump_pushes=0),
}
version.register_stack_effects(STACK_EFFECTS, StackEffect)


def operands(tx: RootTranslator, ins: Instruction) -> list[Any]:
    """The stack values instruction ``ins`` takes (the whole stack when its effect is not known)."""
    effect_of = STACK_EFFECTS.get(ins.opname)
    effect = effect_of(ins) if effect_of is not None else None
    if effect is None or effect.pops > len(tx.stack):
        return list(tx.stack)
    return tx.stack[len(tx.stack) - effect.pops:]


#: Locals loom's own generated code uses; dead after the code that set them, never passed on.
_INTERNAL_PREFIXES = ("___stack", "___result", "___loom")


@dataclass
class BreakCode:
    """The instructions of the rewritten code after its prologue, and the resume codes it calls."""

    body: list[Any]
    graph_outputs: list[Any]
    resume_codes: list[types.CodeType]


class _Slots:
    """The frame's stack at the break, stored in temporaries (iterators as (iterable, index))."""

    def __init__(self, kinds: list[str], names: list[list[str]]) -> None:
        self.kinds = kinds
        self.names = names  # per slot: [] for NULL, [temp] for a value, [iterable, index] for an iterator


def emit_break(tx: RootTranslator, ins: Instruction) -> BreakCode:
    """The rewritten code for a graph break before ``ins`` (translation stopped there)."""
    effect_of = STACK_EFFECTS.get(ins.opname)
    effect = effect_of(ins) if effect_of is not None else None
    if effect is None:
        raise Unsupported(f"a graph break at {ins.opname}", "the translator cannot split the function there")
    if effect.pops > len(tx.stack):
        raise Unsupported(f"a graph break at {ins.opname}", "the stack is shallower than the instruction needs")
    code = tx.code
    cg = PyCodegen()
    cg.frame_globals = tx.f_globals
    cg.cell_names = {
        id(box): CellVar(name) if name in code.co_cellvars else FreeVar(name) for name, box in tx.cells.items()
    }
    cg.cellvars = frozenset(code.co_cellvars)
    cg.made_once = tx.output.side_effects.made_once  # a class made in the trace, handed on: watched
    cg.made_guards = tx.output.guards
    cg.made_sources = tx.output.guards.made_sources
    cg.hands_on = True
    effects = tx.output.side_effects.replayed
    staged = side_effects.stage(effects, cg)
    _restore_grad_mode(tx, cg)
    replay_default_dtype(tx.output, cg)
    # Every value is read before anything is written: a local that held `x` before the trace rebound
    # `x` is rebuilt by reading `x`, so the frame's slots and the mutated objects change only after.
    stores = _push_locals(tx, cg)
    slots = _store_stack(tx, cg)
    live_locals = _pop_locals(stores, cg)
    side_effects.apply(effects, staged, cg)

    original = Bytecode.from_code(code)
    native = copy.copy(original[dis_to_bytecode_positions(code, original)[ins.index]])
    kept = len(tx.stack) - effect.pops
    handling = _reenter_handlers(cg, slots)
    _push_operands(cg, slots, kept)

    handler_range = tx.decoded.handler_for(ins.index)
    handler_label = Label() if handler_range is not None else None
    if handler_label is not None:
        try_begin = TryBegin(handler_label, push_lasti=handler_range.lasti, stack_depth=handling)
        cg.instrs.append(try_begin)
    jump_label = Label() if effect.jump_pushes is not None else None
    if jump_label is not None:
        native.name, landing, jump_target = version.jump_landing(ins)
        native.arg = jump_label
    cg.extend(version.before_native(ins))
    if ins.opname == "CALL":  # as this CPython calls (3.11: PRECALL + CALL)
        if tx.kw_names:
            cg.call_kw(ins.arg, tuple(tx.kw_names))
        else:
            cg.call(ins.arg)
    else:
        cg.instrs.append(native)
    if handler_label is not None:
        cg.instrs.append(TryEnd(try_begin))

    resumes: list[types.CodeType] = []
    if ins.opname == "FOR_ITER" and slots.kinds[kept] == ITERATOR_SLOT:
        # The next pass of a loop: its iterator goes on as (iterable, index + 1), read by the resume
        # function only if it takes an item itself, so each pass enters the same compiled entries.
        advanced = _advance_position(cg, slots, kept, tx.stack[kept].hands_on_itself())
        _call_resume(tx, cg, ins.index + 1, advanced, kept + 1, 1, live_locals, resumes, pushed_kind=ITEM_SLOT,
                     handling=handling)
    elif effect.falls_through and not _next_pass_inline(tx, cg, ins.index + 1, slots, kept, effect.pushes,
                                                         live_locals, resumes, handling):
        _call_resume(tx, cg, ins.index + 1, slots, kept, effect.pushes, live_locals, resumes, handling=handling)
    if jump_label is not None:
        cg.instrs.append(jump_label)
        cg.extend(landing)
        _call_resume(tx, cg, jump_target, slots, kept, effect.jump_pushes, live_locals, resumes, handling=handling)
    if handler_label is not None:
        cg.instrs.append(handler_label)
        pushed = 2 if handler_range.lasti else 1
        _call_resume(tx, cg, handler_range.target, slots, min(handler_range.depth, len(slots.kinds)), pushed,
                     live_locals, resumes, from_handler=True, handling=handling)
    for item in cg.instrs:  # tracebacks through the rewritten code point at the line that broke
        if isinstance(item, Instr) and (item.location is None or item.location.lineno is None):
            item.lineno = ins.lineno
    return BreakCode(cg.instrs, cg.graph_outputs, resumes)


#: Jumps that always jump: resuming at one is resuming at its target.
_UNCONDITIONAL = frozenset({"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP_ABSOLUTE", "JUMP"})


def _through_jumps(code: types.CodeType, index: int) -> int:
    """Where execution goes from instruction ``index`` once unconditional jumps are followed.

    Successors that differ only by a jump share one resume function: 3.12 tests a ``while`` loop's
    condition at the top and again at the bottom, where the fall-through is a JUMP_BACKWARD into the
    body, the very instruction the first test falls through to.
    """
    instructions = decode(code).instructions
    seen = set()
    while instructions[index].opname in _UNCONDITIONAL and index not in seen:
        seen.add(index)
        index = instructions[index].target
    return index


def _restore_grad_mode(tx: RootTranslator, cg: PyCodegen) -> None:
    """Set the real grad mode to what it was before the innermost grad-mode ``with`` blocks.

    Rebuilding the stack re-enters those blocks (their ``__exit__`` is on the stack), which switches
    the mode to what the trace had at the break.
    """
    import torch

    exits = [v for v in tx.stack if isinstance(v, (_ctx.WithExitVariable, InferenceModeExitVariable))]
    mode = exits[0].restore if exits else tx.output.grad_enabled
    if mode != tx.output.initial_grad_enabled:
        cg.call_const(torch._C._set_grad_enabled, 1, lambda: cg.load_const(mode))
        cg.emit("POP_TOP")


def _push_locals(tx: RootTranslator, cg: PyCodegen) -> list[tuple[str, Any]]:
    """Push the trace's locals and cell contents (the frame is read, not written); the stores to make."""
    code = tx.code
    stores: list[tuple[str, Any]] = []
    for name in code.co_cellvars:
        box = tx.cells[name]
        if box.contents is not None:
            cg.reconstruct(box.contents)
            stores.append(("STORE_DEREF", CellVar(name)))
    for name in code.co_varnames:
        if name in code.co_cellvars or name.startswith(_INTERNAL_PREFIXES):
            continue
        if name in tx.symbolic_locals:
            cg.reconstruct(tx.symbolic_locals[name])
            stores.append(("STORE_FAST", name))
        elif name in getattr(tx, "_unrealized", {}):
            stores.append(("", name))  # an argument never read: still in its slot
    return stores


def _pop_locals(stores: list[tuple[str, Any]], cg: PyCodegen) -> tuple[str, ...]:
    """Write what :func:`_push_locals` pushed into the real frame; the local names passed on."""
    for opname, target in reversed(stores):
        if opname:
            cg.emit(opname, target)
    return tuple(target for opname, target in stores if opname != "STORE_DEREF")


def _store_stack(tx: RootTranslator, cg: PyCodegen) -> _Slots:
    kinds: list[str] = []
    names: list[list[str]] = []
    handled = dict(zip(tx.exc_info_depths, tx.exc_info))  # slot -> the exception its handler handles
    for i, value in enumerate(tx.stack):
        if i in handled:
            cg.reconstruct(handled[i])
            cg.emit("STORE_FAST", f"___loom_slot{i}")
            kinds.append(HANDLED_SLOT)
            names.append([f"___loom_slot{i}"])
        elif isinstance(value, NullVariable):
            kinds.append(NULL_SLOT)
            names.append([])
        elif isinstance(value, IteratorVariable):
            iterable, index = f"___loom_slot{i}_iterable", f"___loom_slot{i}_index"
            value.reconstruct_position(cg)
            cg.emit("STORE_FAST", index)
            cg.emit("STORE_FAST", iterable)
            kinds.append(ITERATOR_SLOT)
            names.append([iterable, index])
        else:
            cg.reconstruct(value)
            cg.emit("STORE_FAST", f"___loom_slot{i}")
            kinds.append(VALUE_SLOT)
            names.append([f"___loom_slot{i}"])
    return _Slots(kinds, names)


def _reenter_handlers(cg: PyCodegen, slots: _Slots) -> int:
    """Make the exceptions the trace was handling at the break the ones being handled while the native
    instruction runs (a function it calls may read ``sys.exc_info()`` or re-raise); the real stack keeps
    the exceptions handled before them, for :func:`_call_resume` to restore. Returns how many."""
    handling = 0
    for kind, names in zip(slots.kinds, slots.names):
        if kind == HANDLED_SLOT:
            cg.emit("LOAD_FAST", names[0])
            cg.emit("PUSH_EXC_INFO")
            cg.emit("POP_TOP")
            handling += 1
    return handling


def _push_operands(cg: PyCodegen, slots: _Slots, kept: int) -> None:
    """Put the instruction's operands on the real stack (the items below it stay in temporaries)."""
    for kind, names in zip(slots.kinds[kept:], slots.names[kept:]):
        if kind == NULL_SLOT:
            cg.emit("PUSH_NULL")
        elif kind == VALUE_SLOT:
            cg.emit("LOAD_FAST", names[0])
        elif kind == HANDLED_SLOT:  # only POP_EXCEPT takes it, and it is never a break
            raise Unsupported("a graph break here", "the instruction ends an exception handler")
        else:
            cg.load_callable(iter_at)
            cg.emit("LOAD_FAST", names[0])
            cg.emit("LOAD_FAST", names[1])
            cg.call(2)


def _is_symbolic_int(value: Any) -> bool:
    return type(value) is SymbolicVariable and value.python_type() is int


def _is_unread(value: Any) -> bool:
    """A local handed on unread, itself (a value the trace only grew is rebuilt from it)."""
    return value is not None and value.passed_on


def _advance_position(cg: PyCodegen, slots: _Slots, kept: int, itself: bool) -> _Slots:
    """After a native ``FOR_ITER`` over the iterator slot ``kept`` (stack: iterator, item): drop the
    iterator and pass the slot on as (iterable, index + 1); the item stays on the stack. An iterator
    looped over itself (``itself``) took the step in its own state: it goes on as (iterator, index)."""
    iterable, index = slots.names[kept]
    cg.emit("SWAP", 2)
    cg.emit("POP_TOP")
    if itself:
        return _Slots([*slots.kinds[:kept], ITERATOR_SLOT], [*slots.names[:kept], [iterable, index]])
    cg.emit("LOAD_FAST", index)
    cg.load_const(1)
    cg.emit("BINARY_OP", 0)  # NB_ADD
    advanced = f"{index}_next"
    cg.emit("STORE_FAST", advanced)
    return _Slots([*slots.kinds[:kept], ITERATOR_SLOT], [*slots.names[:kept], [iterable, advanced]])


def _leave_regions(tx: RootTranslator, cg: PyCodegen, slots: _Slots, kept: int, target: int) -> _Slots:
    """Leave, innermost first, the regions (autocast, ``record_function``) the rebuilt stack entered for
    the native instruction, and hand the resume function fresh managers to enter in its prologue
    (ENTER_SLOT): its trace then enters them as a region of its own graph, as it would have without the
    break, instead of running torch's ``__exit__`` on one entered natively (a second break)."""
    regions = [i for i in range(kept) if isinstance(tx.stack[i], _ctx.RegionExitVariable)]
    if not regions:
        return slots
    kinds, names = list(slots.kinds), [list(n) for n in slots.names]
    for i in reversed(regions):
        cg.extend(version.push_null_then([Instr("LOAD_FAST", names[i][0])]))
        for _ in range(3):
            cg.load_const(None)
        cg.call(3)
        cg.emit("POP_TOP")
        tx.stack[i].rebuild_manager(cg)
        fresh = f"___loom_enter{target}_{i}"
        cg.emit("STORE_FAST", fresh)
        kinds[i], names[i] = ENTER_SLOT, [fresh]
    return _Slots(kinds, names)


def _call_resume(
    tx: RootTranslator,
    cg: PyCodegen,
    target: int,
    slots: _Slots,
    kept: int,
    pushed: int,
    live_locals: tuple[str, ...],
    resumes: list[types.CodeType],
    from_handler: bool = False,
    pushed_kind: str = VALUE_SLOT,
    handling: int = 0,
    at_original: tuple[types.CodeType, int] | None = None,
) -> None:
    """Call the resume function of instruction ``target`` (or of the original code's instruction
    ``at_original``) and return its result.

    On entry the real stack holds the ``pushed`` values the native instruction left (or, for an
    exception handler, the saved offset and the exception); the ``kept`` slots below are temporaries.
    """
    # Temporaries are named apart from resume functions' parameters (___stack*): this code may itself
    # run in a resume function, whose parameters are still read while the stack is rebuilt.
    results = [f"___loom_result{target}_{j}" for j in range(pushed)]
    for name in reversed(results):
        cg.emit("STORE_FAST", name)
    for _ in range(handling):  # the frame's caller goes on handling what it handled (the resume function re-enters)
        cg.emit("POP_EXCEPT")
    if not from_handler:
        slots = _leave_regions(tx, cg, slots, kept, target)
    layout = tuple(slots.kinds[:kept]) + (pushed_kind,) * pushed
    original, original_target = at_original or origin_of(tx.code, target)
    original_target = _through_jumps(original, original_target)
    key = ResumeKey(original, original_target, layout, live_locals)
    resume = resume_code(key)
    resumes.append(resume)
    symbolic = frozenset(name for name in live_locals if _is_symbolic_int(tx.symbolic_locals.get(name)))
    varying = tx.output.shapes.spec.varying
    unread = frozenset(name for name in live_locals if _is_unread(tx.symbolic_locals.get(name)) or (
        name in varying and name in getattr(tx, "_unrealized", ())))  # handed on without a look
    if symbolic or unread:
        note_handed_on(resume, symbolic, unread)
    # A resume function hands the call on to the loop in run_resume (a tail call, see Bounce);
    # the original function's code runs that loop.
    bounce = is_resume_code(tx.code)
    cg.load_callable(Bounce if bounce else run_resume)
    closure = list(original.co_freevars) + list(original.co_cellvars)
    if closure:
        for name in closure:
            cg.emit("LOAD_CLOSURE", CellVar(name) if name in tx.code.co_cellvars else FreeVar(name))
        cg.emit("BUILD_TUPLE", len(closure))
    if bounce and not closure:
        # Made once, not per pass: the entry runs only in these globals (the hook's backend match).
        cg.load_const(types.FunctionType(resume, tx.f_globals))
    else:
        cg.load_const(resume)
        cg.extend(version.make_function(0x08 if closure else 0))
    receiver = super_receiver(original)
    arguments = [receiver] if receiver else []  # in the order of resume.argument_names
    arguments += [name for names in slots.names[:kept] for name in names] + results
    arguments += [name for name in live_locals if name != receiver]
    for name in arguments:
        cg.emit("LOAD_FAST", name)
    if bounce:
        cg.emit("BUILD_TUPLE", len(arguments))
        cg.emit("BUILD_TUPLE", 2)  # Bounce((function, arguments))
        cg.call(1)
    else:
        cg.call(1 + len(arguments))
    cg.emit("RETURN_VALUE")


def _next_pass_inline(tx: RootTranslator, cg: PyCodegen, target: int, slots: _Slots, kept: int, pushed: int,
                      live_locals: tuple[str, ...], resumes: list[types.CodeType], handling: int) -> bool:
    """Go on into the loop's next pass here, when the break ends the body of a loop whose items are taken
    natively: the code from ``target`` only drops the call's result and jumps back to the ``FOR_ITER`` that
    handed this resume function its item. That loop head has no graph work (its resume function breaks at
    the ``FOR_ITER`` at once), so the rewritten code takes the item itself, as that entry would, and hands
    it to this same body: one frame entry per pass, not two. Returns False (nothing emitted) elsewhere."""
    head = _inline_loop_head(tx, target, slots, kept, pushed, handling)
    if head is None:
        return False
    original, for_iter = head
    iterator = kept - 1
    cg.emit("POP_TOP")  # the call's result, as the original's POP_TOP drops it
    _push_operands(cg, _Slots(slots.kinds[:kept], slots.names[:kept]), iterator)  # iter_at(iterable, index)
    native = decode(original).instructions[for_iter]
    opname, landing, jump_target = version.jump_landing(native)
    exhausted = Label()
    cg.instrs.append(Instr(opname, exhausted))
    advanced = _advance_position(cg, slots, iterator, tx.stack[iterator].hands_on_itself())
    _call_resume(tx, cg, target, advanced, kept, 1, live_locals, resumes, pushed_kind=ITEM_SLOT,
                 at_original=(original, for_iter + 1))
    cg.instrs.append(exhausted)
    cg.extend(landing)
    _call_resume(tx, cg, target, slots, iterator, STACK_EFFECTS["FOR_ITER"](native).jump_pushes, live_locals,
                 resumes, at_original=(original, jump_target))
    return True


def _inline_loop_head(tx: RootTranslator, target: int, slots: _Slots, kept: int, pushed: int,
                      handling: int) -> tuple[types.CodeType, int] | None:
    """(original code, its ``FOR_ITER``) when the resume point ``target`` is a POP_TOP of the one value
    pushed, then jumps back to the ``FOR_ITER`` of the loop whose iterator is the top kept slot, and this
    frame is the resume function that loop's native ``FOR_ITER`` hands its item to; else None. Only plain
    slots (no handled exception, no entered region) and no exception handler at that ``FOR_ITER``."""
    if pushed != 1 or handling or kept == 0 or slots.kinds[kept - 1] != ITERATOR_SLOT:
        return None
    if any(kind not in (VALUE_SLOT, ITERATOR_SLOT, NULL_SLOT) for kind in slots.kinds[:kept]):
        return None
    if any(isinstance(value, _ctx.RegionExitVariable) for value in tx.stack[:kept]):
        return None
    original, at = origin_of(tx.code, target)
    decoded = decode(original)
    if decoded.instructions[at].opname != "POP_TOP" or at + 1 >= len(decoded.instructions):
        return None
    for_iter = _through_jumps(original, at + 1)
    if decoded.instructions[for_iter].opname != "FOR_ITER" or decoded.handler_for(for_iter) is not None:
        return None
    code = tx.code
    if resume_point(code) != (original, for_iter + 1) or f"___stack{kept}_item" not in code.co_varnames[:code.co_argcount]:
        return None
    return original, for_iter
