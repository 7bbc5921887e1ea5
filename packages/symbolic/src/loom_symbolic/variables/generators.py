"""Generators made by traced code (generator functions and generator expressions), run lazily."""

from __future__ import annotations

import inspect
import types
from typing import TYPE_CHECKING

from ..bytecode_helpers import start_generator
from ..errors import Unsupported
from ..versions import current as version
from . import yield_from_delegates as delegates
from .base import Variable
from .constant import ConstantVariable
from .exception_values import (
    ExceptionVariable,
    SymbolicException,
    instantiate,
    make_exception,
    raised,
    stop_iteration_value,
)
from .iterators import IteratorVariable
from .methods import MethodVariable

if TYPE_CHECKING:
    from ..translator import GeneratorTranslator, InstructionTranslator



class GeneratorVariable(IteratorVariable):
    """A generator object: each ``next`` resumes its translator up to the next ``yield``.

    Evaluation is lazy, item by item, as in Python, so side effects interleave with the consumer
    exactly as they would without loom; ``returned`` keeps the value of its ``return`` statement
    (what ``yield from`` evaluates to).
    """

    def __init__(self, translator: GeneratorTranslator, created_at: tuple[int, int] | None = None) -> None:
        self.translator = translator
        self.started = False
        self.returned: Variable = ConstantVariable(None)
        self.finished = False
        #: whether the last resume is the one that returned (its StopIteration carries the value)
        self.returned_now = False
        #: ``(code, closure cells, bound arguments)`` of a generator function of the frame's module: an
        #: unstarted generator is made again from them where it leaves the trace (:func:`_rebuild_unstarted`).
        self.made_from: tuple | None = None
        #: Where the root frame made this generator: a graph break can move back there, so the
        #: generator is created (and later consumed) by ordinary Python.
        self.created_at = created_at
        #: whether the generator's body is being traced now: resuming it from inside is CPython's ValueError
        self.running = False
        #: the StopIteration that ended a C iterator's stand-in (``starmap``'s function raised it): ``next()``
        #: re-raises it, and a later step is refused (the C iterator would go on; the generator cannot)
        self.cut_short: ExceptionVariable | None = None

    def python_type(self) -> type:
        return types.GeneratorType

    def next_item(self, tx: InstructionTranslator, sent: Variable | None = None,
                  thrown: Variable | None = None) -> Variable | None:
        self.refuse_reentry(tx)
        self.returned_now = False
        if self.cut_short is not None:
            raise Unsupported(f"resuming {self.describe()} after a StopIteration its function raised",
                              "the C iterator would go on with the next items; its stand-in generator has ended")
        if self.finished:
            return None
        try:
            item = self.resume(tx, sent, thrown)
        except SymbolicException as escaped:
            self.finished = True  # a generator an exception escaped from is closed: next() stops it
            if self.translator.stands_for_c_iterator and issubclass(escaped.exc.cls, StopIteration):
                self.cut_short = escaped.exc  # the C iterator's step ends on it (see stop_iteration)
                self.returned = stop_iteration_value(escaped.exc, self.describe())
                self.returned_now = True
                return None
            raise
        self.started = True
        if item is not None and self.source is None and _needs_closing_when_dropped(self.translator):
            paused = self.translator.output.paused_generators  # closed when dropped (generator_drops)
            if not any(gen is self for gen in paused):
                paused.append(self)
        if item is None:
            self.finished = True
            self.returned = self.translator.return_value or ConstantVariable(None)
            self.returned_now = True
        return item

    def refuse_reentry(self, tx: InstructionTranslator) -> None:
        """CPython's refusal to resume a generator whose body is running (a ``next``/``send``/``throw``/
        ``close`` reaching it from its own body): ``ValueError('generator already executing')`` raised in the
        trace, the generator left as it is (re-entering its translator would resume it mid-instruction)."""
        if self.running:
            message = ConstantVariable("generator already executing")
            raise SymbolicException(raised(tx, ExceptionVariable(ValueError, [message])))

    def resume(self, tx: InstructionTranslator, sent: Variable | None, thrown: Variable | None) -> Variable | None:
        """One step of the generator's translator (``GeneratorTranslator.step``), marked running meanwhile."""
        self.running = True
        try:
            return self.translator.step(sent, tx, thrown=thrown)
        finally:
            self.running = False

    def stop_iteration(self, tx: InstructionTranslator) -> SymbolicException:
        """What resuming the finished generator raises: ``StopIteration(value)`` the first time after its
        ``return value`` (value not None), a bare StopIteration after that."""
        if self.cut_short is not None and self.returned_now:
            return SymbolicException(self.cut_short)
        returned = self.returned if self.returned_now else ConstantVariable(None)
        has_value = not (returned.is_python_constant() and returned.as_python_constant() is None)
        return SymbolicException(raised(tx, ExceptionVariable(StopIteration, [returned] if has_value else [])))

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in _METHODS:
            return MethodVariable(self, name)
        if self.source is None:  # made in the trace: its state is the translator's (a frame's is the real one's)
            if name == "gi_running":
                return ConstantVariable(self.running)
            if name == "gi_suspended":
                return ConstantVariable(self.started and not self.finished and not self.running)
            if name == "gi_frame":  # a finished generator's is None, a live one's a frame only tested for None
                return ConstantVariable(None) if self.finished else LiveFrameVariable(self)
            if name == "gi_code" and not self.translator.stands_for_c_iterator:  # its function's code object
                return ConstantVariable(self.translator.code)
        return super().var_getattr(tx, name)

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable:
        method = _METHODS.get(name)
        if method is None or kwargs:
            return super().call_method(tx, name, args, kwargs)
        return method(self, tx, *args)

    def send(self, tx: InstructionTranslator, value: Variable) -> Variable:
        """``gen.send(value)``: resume with ``value`` as the paused ``yield``'s value."""
        item = self.sent_item(tx, value)
        if item is None:
            raise self.stop_iteration(tx)
        return item

    def sent_item(self, tx: InstructionTranslator, value: Variable) -> Variable | None:
        """What resuming with ``value`` yields, None once the generator returned (``returned`` holds its
        value): :meth:`send`, and a ``yield from`` waiting on this generator forwarding what its own
        caller sent (PEP 380). A value other than None for a generator not started is CPython's TypeError."""
        self.refuse_reentry(tx)  # before the just-started check: a running generator is started
        sends_none = value.is_python_constant() and value.as_python_constant() is None
        if not self.started and not self.finished and not sends_none:
            message = ConstantVariable("can't send non-None value to a just-started generator")
            raise SymbolicException(raised(tx, ExceptionVariable(TypeError, [message])))
        return self.next_item(tx, None if sends_none else value)

    def close(self, tx: InstructionTranslator) -> Variable:
        """``gen.close()``: GeneratorExit raised at the paused ``yield``. Outside any ``try`` block of the
        generator that just ends it; inside one, its ``finally`` or handler runs in the trace: the
        GeneratorExit (or a StopIteration) leaving it, or a return, closes the generator (close() returns
        what it returned on 3.13, None before: ``versions``); another exception propagates to the caller;
        a ``yield`` instead is CPython's RuntimeError. A generator
        a paused ``yield from`` waits on is closed first; what its closing raises is raised here instead."""
        self.refuse_reentry(tx)
        exit_exc = None
        if self.started and not self.finished:
            exit_exc = make_exception(GeneratorExit, [], {}, tx)
            receiver = _delegate(self.translator)
            if receiver is not None:
                try:
                    _close_receiver(tx, receiver)
                except SymbolicException as escaped:
                    exit_exc = escaped.exc
        if exit_exc is not None and not _handles_exceptions_at_pause(self.translator):
            self.finished = True
            if not issubclass(exit_exc.python_type(), GeneratorExit):
                raise SymbolicException(exit_exc)
        elif exit_exc is not None:
            try:
                item = self.resume(tx, None, exit_exc)
            except SymbolicException as escaped:
                self.finished = True
                if issubclass(escaped.exc.cls, GeneratorExit):
                    return ConstantVariable(None)
                raise
            if item is not None:
                message = ConstantVariable("generator ignored GeneratorExit")
                raise SymbolicException(raised(tx, ExceptionVariable(RuntimeError, [message])))
            self.finished = True
            returned = self.translator.return_value
            if returned is not None and version.CLOSE_RETURNS_VALUE:
                return returned
            return ConstantVariable(None)
        self.finished = True
        return ConstantVariable(None)

    def throw(self, tx: InstructionTranslator, value: Variable, *rest: Variable) -> Variable:
        """``gen.throw(exc)``: ``exc`` raised at the paused ``yield`` (forwarded into the generator a
        ``yield from`` waits on): the next value it yields; an exception leaving the body propagates to
        the caller (finishing the generator), a return is StopIteration. A generator not started yet or
        finished raises ``exc`` at the call."""
        self.refuse_reentry(tx)
        if rest:  # throw(type, value[, traceback]): 3.11's contextlib calls it so, with no traceback
            value = _thrown_value(value, *rest)
        exc = instantiate(tx, value, _throw_refused(value))  # raised as it is: throw() sets no __context__
        if not self.started or self.finished:
            self.finished = True
            raise SymbolicException(exc)
        item = self.thrown_into(tx, exc, value)
        if item is None:
            raise self.stop_iteration(tx)
        return item

    def thrown_into(self, tx: InstructionTranslator, exc: Variable, given: Variable | None = None) -> Variable | None:
        """:meth:`throw` on a started generator: the value it yields next, None if it returned. ``given``:
        what the caller handed to throw() (a class, or ``exc`` itself), passed on to a subiterator's
        ``throw`` method as CPython passes it."""
        receiver = _delegate(self.translator)
        if receiver is not None and not isinstance(receiver, GeneratorVariable):
            return self._thrown_into_iterator(tx, receiver, exc, given or exc)
        if receiver is not None:
            try:
                item = receiver.thrown_into(tx, exc, given)
            except SymbolicException as escaped:
                exc = escaped.exc  # raised at this generator's ``yield from``
            else:
                if item is None:  # it returned: the ``yield from`` evaluates to its value and goes on
                    return self._resume_after_delegate(tx, delegates.EndedDelegate(receiver.returned))
                return item
        return self.next_item(tx, thrown=exc)

    def _resume_after_delegate(self, tx: InstructionTranslator, ended: Variable) -> Variable | None:
        """Resume the generator, its ``yield from`` receiver replaced by ``ended``: SEND ends the loop with
        the subiterator's value, and the generator runs to its next ``yield``."""
        self.translator.stack[-1] = ended
        return self.next_item(tx)

    def _thrown_into_iterator(self, tx: InstructionTranslator, receiver: Variable, exc: Variable,
                              given: Variable) -> Variable | None:
        """:meth:`thrown_into` when the ``yield from`` waits on an iterator that is not a generator
        (``yield_from_delegates``): GeneratorExit closes it and is raised here; another exception goes to its
        ``throw`` method, or is raised here when it has none; what the iterator raises is raised here."""
        try:
            if issubclass(exc.python_type(), GeneratorExit):
                delegates.close(tx, receiver)
                item = None
            else:
                item = delegates.throw_into(tx, receiver, given)
        except SymbolicException as escaped:
            exc = escaped.exc
            item = None
        if isinstance(item, delegates.EndedDelegate):
            return self._resume_after_delegate(tx, item)
        if item is not None:
            return item
        return self.next_item(tx, thrown=exc)

    def reconstruct(self, codegen) -> None:
        why = "a paused generator cannot be rebuilt"
        if not self.started and not self.finished and _rebuildable(self.made_from, codegen):
            try:
                _rebuild_unstarted(self.made_from, codegen)
                return
            except Unsupported as exc:  # an argument that cannot be rebuilt (the break is abandoned whole)
                why = f"it is unstarted, but its arguments cannot be rebuilt: {exc.reason.what}"
        error = Unsupported("a generator escaping the compiled function", why)
        error.retry_at = self.created_at
        raise error

    def reconstruct_position(self, codegen) -> None:
        """An unstarted generator on the stack at a break: itself, made again, at position 0 (``iter_at``
        gives a generator back as it is)."""
        codegen.reconstruct(self)
        codegen.load_const(0)

    def describe(self) -> str:
        return f"generator {self.translator.code.co_qualname}"


class LiveFrameVariable(Variable):
    """``gi_frame`` of a generator made in the trace that has not finished: a frame object, which the trace has
    no stand-in for. It answers what ``inspect.getgeneratorstate`` asks of it (``is None``: False, as its type
    is not None's; it is true); reading anything from it, or rebuilding it, is a break."""

    def __init__(self, generator: GeneratorVariable) -> None:
        self.generator = generator

    def python_type(self) -> type:
        return types.FrameType

    def truth(self, tx: InstructionTranslator) -> bool:
        return True

    def describe(self) -> str:
        return f"the frame of {self.generator.describe()}"


def _rebuildable(made_from: tuple | None, codegen) -> bool:
    """Whether the function of an unstarted generator can be made again after the graph: its closure cells
    are the real frame's (a cell of an inlined function has no real cell to hand it)."""
    return made_from is not None and all(id(box) in codegen.cell_names for box in made_from[1])


def _rebuild_unstarted(made_from: tuple, codegen) -> None:
    """Push ``function(*arguments)`` for an unstarted generator (``bytecode_helpers.start_generator``): the
    function is made again from its code and the frame's cells, each argument rebuilt, so the real generator
    leaves the graph as eager's does, unstarted, closing over the same cells (a break then hands it to the
    resume function, which runs it: ``frame_generators``)."""
    code, closure, arguments = made_from
    names = code.co_varnames
    n_positional, n_keywords = code.co_argcount, code.co_kwonlyargcount
    codegen.load_callable(start_generator)
    codegen.make_function(types.SimpleNamespace(defaults=None, kwdefaults=None, closure=closure, code=code,
                                                qualname=code.co_qualname))
    for name in names[:n_positional]:
        codegen.reconstruct(arguments[name])
    codegen.emit("BUILD_TUPLE", n_positional)
    slot = n_positional + n_keywords
    if code.co_flags & inspect.CO_VARARGS:
        codegen.reconstruct(arguments[names[slot]])
        slot += 1
    else:
        codegen.load_const(())
    for name in names[n_positional:n_positional + n_keywords]:
        codegen.load_const(name)
        codegen.reconstruct(arguments[name])
    codegen.emit("BUILD_MAP", n_keywords)
    if code.co_flags & inspect.CO_VARKEYWORDS:
        codegen.reconstruct(arguments[names[slot]])
    else:
        codegen.emit("BUILD_MAP", 0)
    codegen.call(5)


def _needs_closing_when_dropped(translator: GeneratorTranslator) -> bool:
    """Whether closing the paused generator runs code: a handler of its own at the pause, or the ``close``
    a subiterator (not a generator: one is tracked itself) its ``yield from`` waits on may have."""
    receiver = _delegate(translator)
    return _handles_exceptions_at_pause(translator) or (
        not isinstance(receiver, GeneratorVariable) and delegates.may_need_closing(receiver))


def _handles_exceptions_at_pause(translator: GeneratorTranslator) -> bool:
    """Whether an exception at the generator's paused ``yield`` reaches a handler of its own code
    (3.12's handler turning StopIteration into RuntimeError, which covers every generator, aside)."""
    current = translator.current
    entry = translator.decoded.handler_for(current.index) if current is not None else None
    return entry is not None and translator.instructions[entry.target].opname != "CALL_INTRINSIC_1"


def _thrown_value(kind: Variable, value: Variable, traceback: Variable | None = None) -> Variable:
    """The exception ``throw(kind, value, traceback)`` raises, when ``value`` is already a ``kind`` (and
    ``traceback`` None or the one ``value`` holds already, as a with statement's ``__exit__`` passes on)."""
    if traceback is not None and not (traceback.is_python_constant() and traceback.as_python_constant() is None) \
            and not (isinstance(value, ExceptionVariable) and traceback is value.traceback):
        raise Unsupported("generator.throw() with a traceback", "not modelled")
    if not (isinstance(value, ExceptionVariable) and kind.is_python_constant()
            and isinstance(kind.as_python_constant(), type) and issubclass(value.cls, kind.as_python_constant())):
        raise Unsupported("generator.throw(type, value)", "only a value that is an instance of the type is modelled")
    return value


def _delegate(translator: GeneratorTranslator) -> Variable | None:
    """The iterator a paused ``yield from`` waits on (throw() and close() go to it first), None when the
    pause is a plain ``yield``."""
    current = translator.current
    if current is None or current.index == 0 or translator.instructions[current.index - 1].opname != "SEND":
        return None
    return translator.stack[-1] if translator.stack else None


def _close_receiver(tx: InstructionTranslator, receiver: Variable) -> None:
    """Close the iterator a ``yield from`` waits on: a generator's own close(), another's ``close`` method."""
    if isinstance(receiver, GeneratorVariable):
        receiver.close(tx)
    else:
        delegates.close(tx, receiver)


def _throw_refused(value: Variable) -> str:
    """CPython's TypeError message for ``gen.throw(value)`` with a value that is no exception."""
    kind = type(value.as_python_constant()).__name__ if value.is_python_constant() else "object"
    return f"exceptions must be classes or instances deriving from BaseException, not {kind}"


_METHODS = {
    "throw": lambda gen, tx, *args: gen.throw(tx, *args),
    "send": lambda gen, tx, *args: gen.send(tx, *args),
    "close": lambda gen, tx, *args: gen.close(tx, *args),
}
