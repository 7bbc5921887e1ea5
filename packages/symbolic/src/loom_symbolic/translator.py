"""The instruction translator: a stack machine that runs bytecode over symbolic values.

:class:`InstructionTranslator` walks one code object. The root translator starts from the real
arguments of a frame; an :class:`InliningTranslator` runs a called Python function in place, sharing
the root's :class:`~loom_symbolic.output_graph.OutputGraph`. Each opcode's behaviour lives in a small
handler registered in :mod:`loom_symbolic.opcodes` (one function per opcode, found by its name).
"""

from __future__ import annotations

import sys
import types
from typing import Any

from loom_guards import Builtin, Closure, Const, Global, Item, Local

from . import side_effects as _side_effects
from .errors import Location, Unsupported, UserError
from .instructions import Instruction, decode
from .opcodes.control import WithBlock
from .opcodes.dispatch import HANDLERS
from .output_graph import OutputGraph
from .policy import is_skipped
from .polyfills.registry import stands_for_c_iterator
from .resume import is_resume_code
from .shapes import NO_DYNAMIC, DynamicSpec
from .variables import catalogue  # noqa: F401  (loads every kind of value, and fills the registries)
from .variables import class_lookups as _class_lookups
from .variables import constant as _constant
from .variables import disable_calls as _disable_calls
from .variables import exception_values as _exceptions
from .variables import functions as _functions
from .variables.arguments import bind_arguments
from .variables.base import Variable
from .variables.cells import CellBox, real_cell_box
from .variables.exception_tracebacks import frame_entry, listed_frames, operation_entry
from .variables.exception_values import ExceptionVariable, SymbolicException
from .variables.generator_drops import DROPS, finalize_dropped
from .variables.generators import GeneratorVariable
from .variables.iterators import iterate
from .variables.library_globals import is_library_setting
from .variables.module_globals import missing_name
from .variables.passed_on import make_passed_on
from .variables.registry import wrap
from .variables.resumed_loops import LoopPositionArgument, is_loop_position_argument, loop_break_point

CO_GENERATOR = 0x20
#: How many instructions one translation may run (unrolled loops included) before giving up.
MAX_INSTRUCTIONS = 500_000
#: How deep inlined calls may nest (a recursion 60 deep is one graph under torch.compile); a nesting that
#: would leave less than half of Python's recursion limit to the rest of the trace stops sooner (:func:`_deep`).
MAX_INLINE_DEPTH = 120
#: Below this nesting the stack is known to be far from the recursion limit: no walk.
_SHALLOW = 24


def _deep(depth: int) -> bool:
    """Whether inlining one call more, at nesting ``depth``, goes too deep: past :data:`MAX_INLINE_DEPTH`, or with
    the Python stack already past half the recursion limit (each level costs the translator several frames; a
    RecursionError in the trace would lose the whole frame's graph where a break loses one call)."""
    if depth > MAX_INLINE_DEPTH:
        return True
    if depth < _SHALLOW:  # (the stack walk below costs a few microseconds: only deep nestings pay it)
        return False
    frame, frames = sys._getframe(1), 1
    limit = sys.getrecursionlimit() // 2
    while frame is not None and frames <= limit:
        frame, frames = frame.f_back, frames + 1
    return frames > limit


class _Budget:
    """The instruction budget shared by a root translator and everything it inlines."""

    def __init__(self) -> None:
        self.left = MAX_INSTRUCTIONS

    def exhausted(self) -> None:
        """Stop the trace: called by the main loop, which decrements ``left`` inline, once it is negative."""
        raise Unsupported(
            "a very long trace",
            f"more than {MAX_INSTRUCTIONS} instructions were traced (a long or endless loop?)",
            hint="move the loop out of the compiled function, or make its trip count smaller",
        )


class InstructionTranslator:
    """Runs one code object symbolically, recording tensor work into ``output``."""

    def __init__(
        self,
        code: types.CodeType,
        f_globals: dict[str, Any],
        f_builtins: dict[str, Any],
        output: OutputGraph,
        *,
        budget: _Budget | None = None,
    ) -> None:
        self.code = code
        self.decoded = decode(code)
        self.instructions = self.decoded.instructions
        self.f_globals = f_globals
        self.f_builtins = f_builtins
        self.output = output
        output.provenance.note_code(code)
        self.budget = budget or _Budget()
        self.stack: list[Variable] = []
        self.symbolic_locals: dict[str, Variable] = {}
        self.cells: dict[str, CellBox] = {}
        self.block_stack: list[WithBlock] = []
        self.ip = 0
        self.current: Instruction | None = None
        self.kw_names: tuple[str, ...] | None = None
        self.return_value: Variable | None = None
        self.depth = 0
        self.parent: InstructionTranslator | None = None
        #: Set by YIELD_VALUE: a generator translator pauses and hands this value out.
        self.suspended = False
        self.yielded: Variable | None = None
        #: Exceptions being handled (PUSH_EXC_INFO / POP_EXCEPT), innermost last.
        self.exc_info: list[Variable] = []
        #: Where on the stack each of them saved the exception handled before it (the slot POP_EXCEPT pops).
        self.exc_info_depths: list[int] = []

    # -- the main loop -----------------------------------------------------------------------------
    def run(self) -> Variable:
        """Run until the code returns; return the symbolic return value."""
        instructions = self.instructions
        budget = self.budget
        is_root = self.parent is None
        try:
            while self.return_value is None and not self.suspended:
                budget.left -= 1
                if budget.left < 0:
                    budget.exhausted()
                ins = instructions[self.ip]
                self.current = ins
                if is_root:
                    self.count_visit(ins)
                self.ip += 1
                handler = HANDLERS.get(ins.opname)
                if handler is None:
                    raise Unsupported(
                        f"the {ins.opname} instruction",
                        "the translator has no handler for this opcode",
                        hint="this construct runs as ordinary Python instead",
                    )
                try:
                    handler(self, ins)
                    if is_root and ins.opname in DROPS and self.output.paused_generators:
                        finalize_dropped(self)  # (an inlined frame's caller holds values where it cannot be searched)
                except SymbolicException as raised:
                    if raised.again:  # re-raised here: this frame adds no traceback entry
                        raised.again = False
                    else:
                        # each frame it passes gives it a new traceback object listing this frame, as in CPython
                        raised.exc.was_raised(self.traceback_entry())
                        raised.exc.traceback.raised_at = self.root().break_point()
                    if not self.handle_exception(raised.exc):
                        raise
                except UserError as error:
                    if error.exc_type is Exception:
                        raise  # the translator does not know which exception the program would raise
                    self.annotate(error)
                    made = ExceptionVariable(error.exc_type, _known_args(error))
                    made.attrs.update({name: value if isinstance(value, Variable) else _constant.ConstantVariable(value)
                                       for name, value in error.exc_attrs.items()})
                    exc = _exceptions.raised(self, made)
                    raised = SymbolicException(exc, error.reason)
                    exc.traceback.entries = listed_frames(None, True, operation_entry(self.traceback_entry(), error))
                    if not self.handle_exception(raised.exc):
                        raise raised from None
        except Unsupported as exc:
            self.annotate(exc)
            raise
        except SymbolicException as raised:
            if self.parent is None:
                error = raised.to_unsupported()
                self.annotate(error)
                raise error from None
            raise
        return self.return_value

    def traceback_entry(self) -> Any:
        """This frame as a traceback lists it (:func:`frame_entry`): its code and current line."""
        line = self.current.lineno if self.current is not None else None
        return frame_entry(self.code, line if line is not None else self.code.co_firstlineno,
                           getattr(self, "resumes_a_frame", False), self.parent is None)

    def count_visit(self, ins: Instruction) -> None:
        """Root frames only: count executions, and stop where a graph break was decided."""

    def break_point(self) -> tuple[int, int] | None:
        """Where the current instruction is: (index, how many times it has been reached)."""
        return None

    def handle_exception(self, exc: Variable) -> bool:
        """Unwind to the handler covering the current instruction, as CPython's exception table says."""
        entry = self.decoded.handler_for(self.current.index) if self.current is not None else None
        if entry is None:
            return False
        del self.stack[entry.depth :]
        if entry.lasti:
            self.push(_constant.ConstantVariable(self.current.offset))
        self.push(exc)
        self.ip = entry.target
        return True

    def handled_exception(self) -> Variable | None:
        """The exception being handled where this code runs (CPython's topmost ``exc_info``): this
        frame's innermost ``except``/``finally`` block, else its caller's; None outside any."""
        tx: InstructionTranslator | None = self
        while tx is not None:
            if tx.exc_info:
                return tx.exc_info[-1]
            tx = tx.caller()
        return None

    def caller(self) -> InstructionTranslator | None:
        """The frame this one returns to: its exception state is seen from here."""
        return self.parent

    def annotate(self, exc: Unsupported) -> None:
        """Attach where the failure happened (innermost location, then the inlined call chain)."""
        here = self.location()
        if exc.reason.location is None:
            exc.reason.location = here
        elif self.parent is not None or exc.reason.stack:
            exc.reason.stack.insert(0, here)

    def location(self) -> Location:
        """The user's file, line and function of the current instruction."""
        line = self.current.lineno if self.current is not None else self.code.co_firstlineno
        return Location(self.code.co_filename, line, self.code.co_qualname)

    # -- the stack ---------------------------------------------------------------------------------
    def push(self, value: Variable) -> None:
        self.stack.append(value)

    def pop(self) -> Variable:
        return self.stack.pop()

    def popn(self, n: int) -> list[Variable]:
        if n == 0:
            return []
        items = self.stack[-n:]
        del self.stack[-n:]
        return items

    def peek(self, depth: int = 1) -> Variable:
        return self.stack[-depth]

    def jump(self, ins: Instruction) -> None:
        """Continue at ``ins``'s jump target."""
        assert ins.target is not None
        self.ip = ins.target

    # -- names -------------------------------------------------------------------------------------
    def read_local(self, name: str) -> Variable:
        try:
            return self.symbolic_locals[name]
        except KeyError:
            raise UserError(
                f"local variable {name!r}", f"cannot access local variable {name!r} where it is not associated with a value",
                exc_type=UnboundLocalError,
            ) from None

    def store_local(self, name: str, value: Variable) -> None:
        self.symbolic_locals[name] = value

    def delete_local(self, name: str) -> None:
        self.read_local(name)
        del self.symbolic_locals[name]

    def globals_source(self, name: str) -> Any:
        """How to reach global ``name`` of this code from the root frame."""
        return Global(name)

    def load_global(self, name: str) -> Variable:
        """A global (or builtin) read: overlay of stores made by the trace first, then the real one."""
        effects = self.output.side_effects
        if self.f_globals is self.root().f_globals:
            overlay = effects.global_overlay.get(name)
        else:  # another module's code: what the trace stored among that module's globals
            overlay = effects.stored_module_global(self.f_globals, name) if effects.global_modules else None
        if overlay is _side_effects.DELETED:
            raise missing_name(name)
        if overlay is not None:
            return overlay
        if name in self.f_globals:
            return wrap(self, self.f_globals[name], self.globals_source(name))
        # A global (or builtin) defined later would be found first: the lookup relied on its absence.
        self.guard_absent(self.f_globals, name)
        if name in self.f_builtins:
            return wrap(self, self.f_builtins[name], self.builtins_source(name))
        self.guard_absent(self.f_builtins, name)
        raise missing_name(name)

    def guard_absent(self, namespace: dict[str, Any], name: str) -> None:
        """Guard that ``name`` is still missing from a globals or builtins dict (held by the guard)."""
        if not self.globals_are_fixed():
            label = "G" if namespace is self.f_globals else "B" if namespace is self.f_builtins else None
            self.output.guards.add("absent_key", Const(namespace, label), name)

    def globals_are_fixed(self) -> bool:
        """Whether this code's globals are taken as fixed (torch and the standard library)."""
        return False

    def builtins_source(self, name: str) -> Any:
        return Builtin(name)

    def root(self) -> InstructionTranslator:
        tx = self
        while tx.parent is not None:
            tx = tx.parent
        return tx

    def inline_call(
        self,
        code: types.CodeType,
        f_globals: dict[str, Any],
        defaults: list[Variable],
        kwdefaults: dict[str, Variable],
        closure: list[CellBox],
        args: list[Variable],
        kwargs: dict[str, Variable],
        globals_base: Any,
        qualname: str | None = None,
    ) -> Variable:
        """Run ``code`` in place with the given arguments; its tensor work lands in this graph. A
        generator function's code returns its generator, run one item at a time. ``qualname`` (the
        function's) makes the TypeError of a call that cannot bind say what CPython's says."""
        if is_skipped(code):
            raise Unsupported(
                f"call to {code.co_qualname}",
                "the function is marked to be skipped (loom.disable) or lives in a library loom does not trace",
                hint="it runs as ordinary Python instead",
            )
        bound = bind_arguments(code, defaults, kwdefaults, args, kwargs, qualname)
        if code.co_flags & CO_GENERATOR:
            arguments = dict(bound)  # before its cell arguments move into cells: how a break makes it again
            generator = GeneratorTranslator(self, code, f_globals, bound, closure, globals_base)
            made = GeneratorVariable(generator, self.root().break_point())
            root = self.root()
            if f_globals is root.f_globals and not _broke_inside(root, code):
                made.made_from = (code, closure, arguments)  # MAKE_FUNCTION in the rewritten frame gives it these
            return made
        return InliningTranslator(self, code, f_globals, bound, closure, globals_base).run()

    def iterate(self, value: Variable) -> Variable:
        """``iter(value)`` (what a variable below the iterators asks for)."""
        return iterate(self, value)


def _broke_inside(root: InstructionTranslator, code: types.CodeType) -> bool:
    """Whether the graph break this translation makes (a restarted one) was met while running ``code``: a
    generator of that code made again at the break would meet it again in the resume function, so it is
    made where it was, with the rest of the function as ordinary Python (as before it was ever rebuilt)."""
    reason = root.break_reason
    if reason is None:
        return False
    where = [reason.location, *reason.stack]
    return any(w is not None and w.filename == code.co_filename and w.function == code.co_qualname for w in where)


class StopBeforeBreak(Exception):
    """Raised when a restarted translation reaches the instruction where it must break the graph."""


class RootTranslator(InstructionTranslator):
    """Translates a frame from its entry, starting from the frame's real arguments.

    ``stop_at`` (instruction index, how many times it was reached) makes the translator stop just
    before that execution of that instruction: the graph breaks there (see :mod:`.breaks`).
    """

    #: Why a restarted translation breaks where it stops (``api._translate_with_break``), else None.
    break_reason: Any = None

    def __init__(
        self,
        code: types.CodeType,
        f_locals: dict[str, Any],
        f_globals: dict[str, Any],
        f_builtins: dict[str, Any],
        closure: tuple | None,
        stop_at: tuple[int, int] | None = None,
        dynamic: DynamicSpec = NO_DYNAMIC,
    ) -> None:
        super().__init__(code, f_globals, f_builtins, OutputGraph(dynamic))
        _class_lookups.record_into(self.output.guards)  # what this trace assumes of user classes is guarded
        _disable_calls.include_dynamo_disable()  # the fake mode just made has imported torch._dynamo
        self.f_locals = f_locals
        self.stop_at = stop_at
        #: How many times each instruction started (identifies a point in an unrolled loop).
        self.visits: dict[int, int] = {}
        self._unrealized: dict[str, Any] = dict(f_locals)
        #: Whether this is a resume function's frame (a loop's per-pass values are handed on in it).
        self.resumes_a_frame = is_resume_code(code)
        for name in code.co_cellvars:
            box = CellBox(name, owner=code)
            if name in f_locals:  # a cell argument: at first entry the slot holds the raw value
                box.contents = self.realize_argument(name)
                del self.symbolic_locals[name]
            self.cells[name] = box
        for name, cell in zip(code.co_freevars, closure or ()):
            self.cells[name] = real_cell_box(self, name, cell, Closure(name), _store_free_var(name),
                                             way="frame")

    def count_visit(self, ins: Instruction) -> None:
        visits = self.visits[ins.index] = self.visits.get(ins.index, 0) + 1
        if self.stop_at is not None and self.stop_at == (ins.index, visits):
            raise StopBeforeBreak

    def break_point(self) -> tuple[int, int] | None:
        if self.current is None:
            return None
        return (self.current.index, self.visits.get(self.current.index, 0))

    def graph_break_point(self) -> tuple[int, int] | None:
        """Where a graph break that stopped this trace goes: at the current instruction, or, inside a
        loop resumed after a break that took an item in this trace, at that loop's ``FOR_ITER``
        (see :mod:`.variables.resumed_loops`)."""
        return loop_break_point(self.stack) or self.break_point()

    def read_local(self, name: str) -> Variable:
        if name in self._unrealized:
            self.realize_argument(name)
        return super().read_local(name)

    def realize_argument(self, name: str) -> Variable:
        """Wrap argument ``name`` on first use (unused arguments get no guards)."""
        value = self._unrealized.pop(name)
        variable = None
        if is_loop_position_argument(name):  # read (and guarded) only when the loop takes an item
            variable = LoopPositionArgument(value, Local(name))
        elif name in self.output.shapes.spec.varying:  # changes in every pass of a loop: handed on unread
            variable = make_passed_on(self, value, Local(name), name)
        if variable is None:
            variable = wrap(self, value, Local(name))
        self.symbolic_locals[name] = variable
        return variable

    def store_local(self, name: str, value: Variable) -> None:
        self._unrealized.pop(name, None)
        super().store_local(name, value)

    def delete_local(self, name: str) -> None:
        if name in self._unrealized:
            self.realize_argument(name)
        super().delete_local(name)


def _known_args(error: UserError) -> list[Variable] | None:
    """The raised exception's ``args`` as variables, when the error says them and each is a constant."""
    if error.exc_args is None or not all(_constant.is_constant_value(a) for a in error.exc_args):
        return None
    return [_constant.ConstantVariable(a) for a in error.exc_args]


def _store_free_var(name: str) -> Any:
    def record(tx: InstructionTranslator, value: Variable) -> None:
        tx.output.side_effects.store_cell(name, value)

    return record


class InliningTranslator(InstructionTranslator):
    """Runs a called Python function in place: its ops land in the caller's graph."""

    def __init__(
        self,
        parent: InstructionTranslator,
        code: types.CodeType,
        f_globals: dict[str, Any],
        bound: dict[str, Variable],
        closure_cells: list[CellBox],
        globals_base: Any,
    ) -> None:
        super().__init__(code, f_globals, parent.f_builtins, parent.output, budget=parent.budget)
        self.parent = parent
        self.depth = parent.depth + 1
        if _deep(self.depth):
            raise Unsupported("deep recursion", f"calls nest {self.depth} deep while inlining (at most {MAX_INLINE_DEPTH}, "
                                                "and half of Python's recursion limit in translator frames)")
        self._globals_base = globals_base
        flags = code.co_flags
        if flags & (0x80 | 0x100 | 0x200):  # CO_COROUTINE, CO_ITERABLE_COROUTINE, CO_ASYNC_GENERATOR
            raise Unsupported(f"calling coroutine function {code.co_qualname}", "coroutines are not inlined")
        if flags & 0x20 and not isinstance(self, GeneratorTranslator):
            raise Unsupported(f"calling generator function {code.co_qualname}", "generators are run step by step")
        for name in code.co_cellvars:
            self.cells[name] = CellBox(name, bound.pop(name, None), owner=code)
        for name, box in zip(code.co_freevars, closure_cells):
            self.cells[name] = box
        self.symbolic_locals.update(bound)

    def globals_are_fixed(self) -> bool:
        return self._globals_base is _functions.TRUSTED_GLOBALS

    def globals_source(self, name: str) -> Any:
        if self.f_globals is self.root().f_globals:
            return Global(name)

        if self._globals_base is _functions.TRUSTED_GLOBALS:
            module = self.f_globals.get("__name__", "?")
            if is_library_setting(self.f_globals.get(name)):  # a flag the library sets at run time: guarded
                return Item(Const(self.f_globals, f"{module}.__dict__"), name)
            self.output.provenance.fixed_globals.add((module, name))
            return None
        if self._globals_base is None:
            raise Unsupported(
                f"global {name!r} of {self.code.co_qualname}",
                "the function was not reached from the frame, so its globals cannot be guarded",
            )

        return Item(self._globals_base, name)


class GeneratorTranslator(InliningTranslator):
    """Runs a generator's code lazily: each :meth:`step` runs to the next ``yield`` and pauses there."""

    #: The frame whose ``next``/``send`` runs the generator now: exceptions it handles are the
    #: generator's context, as CPython links a running generator's exception state to its caller's.
    resumer: InstructionTranslator | None = None

    def caller(self) -> InstructionTranslator | None:
        return self.resumer if self.resumer is not None else self.parent

    @property
    def stands_for_c_iterator(self) -> bool:
        """Whether this generator stands in for a C iterator (itertools'): a StopIteration escaping it is
        its end, not PEP 479's RuntimeError."""
        return stands_for_c_iterator(self.code)

    def step(self, sent: Variable | None = None, resumer: InstructionTranslator | None = None,
             thrown: Variable | None = None) -> Variable | None:
        """The next yielded value, or None when the generator returned (``returned`` holds its value).
        ``sent``: the value of the paused ``yield`` expression (``gen.send(value)``; ``next`` sends None);
        ``thrown``: an exception raised at the paused ``yield`` instead (``gen.close()``'s GeneratorExit);
        ``resumer``: the frame calling ``next``/``send`` (see :meth:`caller`). An exception the body
        raises propagates from here; a StopIteration does so as PEP 479's RuntimeError."""
        if self.return_value is not None:
            return None
        raise_now = False
        if self.suspended:
            self.suspended = False
            if thrown is None:
                self.push(sent if sent is not None else _constant.ConstantVariable(None))
            else:
                thrown.was_raised(self.traceback_entry())  # raised at the paused yield, in this frame
                raise_now = not self.handle_exception(thrown)  # unwound to the handler covering the yield
        self.resumer = resumer
        try:
            if raise_now:
                raise SymbolicException(thrown)
            self.run()
        except SymbolicException as escaped:
            if self.stands_for_c_iterator:
                raise
            converted = _exceptions.stop_iteration_error(escaped.exc)
            if converted is escaped.exc:
                raise
            raise SymbolicException(converted, escaped.reason) from None
        finally:
            self.resumer = None
        if self.suspended:
            value, self.yielded = self.yielded, None
            return value
        return None
