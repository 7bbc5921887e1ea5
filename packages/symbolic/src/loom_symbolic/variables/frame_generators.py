"""A generator object from the frame that has not started yet: the trace runs it, lazily, as it runs the
generators it makes (``next(gen)`` on the generator of a ``@contextlib.contextmanager`` object passed in,
entered by hand with ``ctx.__enter__()``/``ctx.__exit__(...)``).

An unstarted generator is its code, its arguments and its closure cells: the trace reads them from the
object (``gen.gi_code``, guarded by identity; ``gen.gi_frame.f_locals``, each value wrapped with its own guards,
a ``*args`` tuple's length and a ``**kwargs`` dict's keys guarded too; the cells are those of the function that
made it, shared with every other way the trace reaches them) and runs the code in a generator translator, as ``tx.inline_call`` does for a generator function called
in the trace. The state is guarded too: still created (a frame, not suspended, not running). All of this
happens at the generator's first step: one the trace only passes along relies on its type alone.

The real generator must end where eager leaves it. A generator the trace ran to its end (or closed) is
closed after the graph: an unstarted generator's ``close()`` runs none of its code and leaves it finished,
as running it out does. One the trace left paused inside cannot be put there: rebuilding it raises, and
the translation breaks where the trace first resumed it (``retry_at``), from where the generator and the
rest of the function run as ordinary Python (as a paused generator made in the trace does).
"""

from __future__ import annotations

import inspect
import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, GeneratorFunction, Item
from loom_guards.generator_sources import generator_function

from ..bytecode_helpers import LiveIterator
from ..errors import Unsupported
from ..policy import is_skipped, opaque_module, trusted_module_name
from . import registry
from .cells import real_cell_box
from .functions import TRUSTED_GLOBALS
from .generators import GeneratorVariable
from .iterators import IteratorVariable
from .wrap_rules import _remember, _wrap_object

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


class FrameGeneratorVariable(GeneratorVariable):
    """An unstarted generator reached through ``source``: run by the trace, closed after the graph if the
    trace finished it. Its code and arguments are read (and guarded, with its state) at its first step: a
    generator the trace only passes along, or reaches a break before stepping, relies on its type alone."""

    def __init__(self, value: types.GeneratorType, source: Any, tx: InstructionTranslator) -> None:
        self._touched = False
        self._tx = tx
        self._value = value
        super().__init__(None, None)
        self.source = source

    @property
    def translator(self) -> Any:
        if self._translator is None:
            self._translator = _run_from_its_start(self._tx.root(), self._value, self.source)
        return self._translator

    @translator.setter
    def translator(self, value: Any) -> None:
        self._translator = value

    # GeneratorVariable sets these as it runs: the first change is the first step the real one must take.
    @property
    def started(self) -> bool:
        return self._started

    @started.setter
    def started(self, value: bool) -> None:
        self._started = value
        if value:
            self._touch()

    @property
    def finished(self) -> bool:
        return self._finished

    @finished.setter
    def finished(self, value: bool) -> None:
        self._finished = value
        if value:
            self._touch()

    # Each way in: the frame that resumes it first is where a break lets ordinary Python run it from its start.
    def next_item(self, tx: InstructionTranslator, *args: Any, **kwargs: Any) -> Variable | None:
        self._resumer = tx
        return super().next_item(tx, *args, **kwargs)

    def close(self, tx: InstructionTranslator) -> Variable:
        self._resumer = tx
        return super().close(tx)

    def throw(self, tx: InstructionTranslator, *args: Variable) -> Variable:
        self._resumer = tx
        return super().throw(tx, *args)

    def _touch(self) -> None:
        if self._touched:
            return
        self._touched = True
        root = self._tx.root()
        self.created_at = root.break_point()
        self._first_step = getattr(self, "_resumer", root).location()
        root.output.side_effects.advanced_iterator(self)

    def replay(self) -> tuple[Any, tuple]:
        """What the rewritten code calls on the real generator after the graph (see ``side_effects.Reposition``):
        it is only reached for a finished one, :meth:`reconstruct` refusing a paused one first."""
        return types.GeneratorType.close, ()

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self._started and not self._finished:
            error = Unsupported(f"resuming {self.describe()}",
                                "the trace would leave it paused inside, where the real generator cannot be put")
            error.reason.location = self._first_step
            error.retry_at = self.created_at
            raise error
        codegen.load_source(self.source)

    def live_position(self) -> tuple[Any, int]:
        """On the stack at a break (a ``for`` loop over it): the real generator, which the loop goes on from
        where it is, the items taken before the break having been taken from it for real."""
        return (lambda codegen: codegen.call_const(LiveIterator, 1, lambda: self.reconstruct(codegen))), 0

    def reconstruct_position(self, codegen: PyCodegen) -> None:
        IteratorVariable.reconstruct_position(self, codegen)

    def describe(self) -> str:
        return f"generator {self._value.gi_code.co_qualname} from the frame"


def _modelled(value: Any) -> bool:
    """An unstarted generator whose code the trace can run from its arguments and closure cells."""
    if type(value) is not types.GeneratorType or inspect.getgeneratorstate(value) != inspect.GEN_CREATED:
        return False
    code = value.gi_code
    if is_skipped(code) or (code.co_freevars and _closure(value) is None):
        return False
    return opaque_module(types.SimpleNamespace(__globals__=value.gi_frame.f_globals)) is None


def _closure(value: types.GeneratorType) -> tuple | None:
    """The closure cells of the function that made ``value``, which its frame shares (``COPY_FREE_VARS`` ran
    before the generator was returned). The generator exposes only their contents (``gi_frame.f_locals``);
    its frame keeps the function itself alive, and the garbage collector's view of the generator finds it."""
    try:
        return generator_function(value).__closure__
    except LookupError:
        return None


def _wrap_frame_generator(tx: InstructionTranslator | None, value: Any, source: Any) -> Variable:
    if tx is None or source is None or not _modelled(value):
        return _wrap_object(tx, value, source)

    def make() -> Variable:
        tx.output.guards.add("type", source, value)
        return FrameGeneratorVariable(value, source, tx)

    return _remember(tx, value, source, make)  # one variable per generator: its state is one state


def _run_from_its_start(tx: InstructionTranslator, value: types.GeneratorType, source: Any) -> Any:
    """A generator translator for ``value``'s code and arguments, as ``tx.inline_call`` makes for a generator
    function called in the trace; the code, the arguments and the unstarted state guarded."""
    guards = tx.output.guards
    guards.add("identity", Attr(source, "gi_code"), value.gi_code)
    frame_source = Attr(source, "gi_frame")
    guards.add("type", frame_source, value.gi_frame)  # not None: not finished
    guards.add("constant", Attr(source, "gi_suspended"), False)
    guards.add("constant", Attr(source, "gi_running"), False)
    code, frame = value.gi_code, value.gi_frame
    arguments = frame.f_locals
    locals_source = Attr(frame_source, "f_locals")

    def argument(name: str) -> Variable:
        return registry.wrap(tx, arguments[name], Item(locals_source, name))

    positional = code.co_varnames[: code.co_argcount]
    keywords = code.co_varnames[code.co_argcount: code.co_argcount + code.co_kwonlyargcount]
    args = [argument(n) for n in positional]
    kwargs = {n: argument(n) for n in keywords}
    slot = code.co_argcount + code.co_kwonlyargcount
    if code.co_flags & inspect.CO_VARARGS:  # the tuple's items are handed on again, bound afresh as eager did
        name, slot = code.co_varnames[slot], slot + 1
        guards.add("length", Item(locals_source, name), arguments[name])
        args += [registry.wrap(tx, v, Item(Item(locals_source, name), i)) for i, v in enumerate(arguments[name])]
    if code.co_flags & inspect.CO_VARKEYWORDS:
        name = code.co_varnames[slot]
        guards.add("dict_keys", Item(locals_source, name), arguments[name])
        kwargs |= {k: registry.wrap(tx, v, Item(Item(locals_source, name), k)) for k, v in arguments[name].items()}
    trusted = trusted_module_name(frame.f_globals.get("__name__") or "")
    globals_base = TRUSTED_GLOBALS if trusted else Attr(frame_source, "f_globals")
    made = tx.inline_call(code, frame.f_globals, [], {}, _cell_boxes(tx, value, source), args, kwargs,
                          globals_base)
    return made.translator


def _cell_boxes(tx: InstructionTranslator, value: types.GeneratorType, source: Any) -> list[Any]:
    """The generator's closure as the trace's cells: one box per real cell, shared with every other way the
    trace reaches that cell (the frame's own free variable, another closure), so a write the frame makes
    before the generator runs is read by it, as in eager. The contents are read through the generator's
    ``f_locals`` (each guarded there); a write from the generator's side has no way back to the real cell.
    Which cells they are is pinned (the generator's function by identity) once the trace reaches real cells
    another way too: the graph then relies on which of them are one cell."""
    code = value.gi_code
    locals_source = Attr(Attr(source, "gi_frame"), "f_locals")
    function_source = GeneratorFunction(source)
    function = generator_function(value)

    def pin() -> None:  # its cells, as a function passed in has them: by the function's identity
        tx.output.guards.add("identity", function_source, function)

    boxes = []
    for name, cell in zip(code.co_freevars, _closure(value) or ()):
        boxes.append(real_cell_box(tx, name, cell, Item(locals_source, name), _unreachable_cell(value, name),
                                   way=function_source, pin=pin))
    return boxes


def _unreachable_cell(value: types.GeneratorType, name: str) -> Any:
    def refuse(tx: InstructionTranslator, _: Variable) -> None:
        raise Unsupported(f"assigning nonlocal {name} in generator {value.gi_code.co_qualname} from the frame",
                          "its closure cell cannot be reached from the generator object after the graph")

    return refuse


# no earlier rule takes a generator (it fell to the fallback, an opaque object): one dict lookup finds it
registry.add_rule(1000, lambda v: type(v) is types.GeneratorType, _wrap_frame_generator)
registry.add_exact_type(types.GeneratorType, _wrap_frame_generator)
