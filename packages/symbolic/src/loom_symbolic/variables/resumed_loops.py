"""A loop interrupted by a graph break, as the resume function that goes on with it sees it.

A graph break inside a loop body hands the loop's iterator to the resume function as two arguments,
an iterable and the number of items already taken (see :mod:`loom_symbolic.resume`). Guarding that
number, or the iterable's length, would compile the resume function once per pass of the loop. So
neither is read until the trace takes the next item: the iterator is a :class:`ResumedIterator` that
hands both arguments on unread.

When the trace does take an item, it speculates that the rest of the loop runs without a break: the
position is then guarded and the loop unrolled. The first time, a break in a later pass stays where it
is (a loop of two passes compiles as it always did). Once the position has been seen to vary (the
recompile after its guard failed makes it a dynamic int), a break in a later pass of the same loop
makes the translation start over and break at that loop's ``FOR_ITER`` instead (see
``api.translate``): the item is then taken natively and the next pass is a resume function entered
with the item as an argument, so every pass reuses the same few compiled entries whatever the loop's
length.

A loop over a ``range`` does better (:mod:`.symbolic_ranges`): once its position is a dynamic int, the
iterator is modelled at that position, a SymInt. Exhaustion is a relational guard on the symbol
against the range's stop, a symbol too (``s0 < s1``; ``s0 >= s1`` for the last pass), the item
``start + index * step``, and a later break stays in the body, handing the iterator on as
``(range, index + taken)``. One entry then serves every middle pass (rest of the body, next item, body up
to the break) and one the last pass. Only when the pass has no graph
work from its item to the break (:func:`idle_loop_head`) does the break move to the ``FOR_ITER`` as above,
which serves the middle passes and the last one with one entry.

A loop over an iterator (one passed in, made by ``iter()``, or the ``.0`` a 3.11 comprehension loops
over) hands on the iterator itself as ``(iterator, 0)``: its own state is the position, so the index
stays 0 and a native ``FOR_ITER`` leaves it there (``breaks._advance_position``). It is read only when
the loop takes an item; the first time it is modelled at its position (guarded) and the loop unrolled,
and once the dynamic policy has seen it at another position (``DynamicSpec.moving_iterators``) taking
an item is a graph break at the loop's ``FOR_ITER``: the item is taken natively and handed on, the same
entries for every pass.

An item selected by a per-pass index (``layers[i]``, with ``i`` the loop's counter, a dynamic int in the
resume function entered per pass) is not specialised either: that would guard ``i`` and compile once
per pass. The subscript is a graph break instead (:func:`refuse_per_pass_subscript`): it runs natively
and the next resume function receives the item as an argument (a module argument is guarded by type,
its parameters are graph inputs), the same entries for every pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import Unsupported
from .base import Variable
from .iterators import IteratorVariable
from .registry import wrap
from .symbolic_ranges import symbolic_range_iterator
from .symbolic_scalars import SymbolicVariable
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: The parameters that carry an interrupted loop's iterator into a resume function (see ``resume.py``).
ITERABLE_SUFFIX = "_iterable"
INDEX_SUFFIX = "_index"
_PREFIX = "___stack"


def is_loop_position_argument(name: str) -> bool:
    """Whether resume-function parameter ``name`` is half of an interrupted loop's iterator."""
    return name.startswith(_PREFIX) and name.endswith((ITERABLE_SUFFIX, INDEX_SUFFIX))


class LoopPositionArgument(Variable):
    """One of the two arguments that rebuild an interrupted loop's iterator, not read yet: it is
    handed on as it came (from its source, with no guard) until :class:`ResumedIterator` reads it."""

    def __init__(self, value: Any, source: Any) -> None:
        self.value = value
        self.source = source

    def python_type(self) -> type:
        return type(self.value)

    def describe(self) -> str:
        return "the position of a loop resumed after a graph break"


class ResumedIterator(IteratorVariable):
    """The iterator of a loop resumed after a graph break (``iter_at(iterable, index)``).

    Until an item is taken it is rebuilt from the two arguments as they came. The first item taken
    reads them (with guards) and records where: ``first_taken`` is the root frame's (instruction,
    visit) of that ``FOR_ITER``, where a later break in the loop body is moved to.
    """

    def __init__(self, iterable: LoopPositionArgument, index: LoopPositionArgument) -> None:
        self.iterable = iterable
        self.index = index
        self.inner: IteratorVariable | None = None
        self.first_taken: tuple[int, int] | None = None
        #: the iterable is an iterator looped over itself (its own state is the position, the index 0)
        self.own_iterator = False
        #: at a symbolic position (a range): the graph's op count once the first item was taken
        self.ops_at_take: int | None = None

    def python_type(self) -> type:
        return type(iter(self.iterable.value)) if self.inner is None else self.inner.python_type()

    def describe(self) -> str:
        return "loop iterator"

    def reconstruct_position(self, codegen) -> None:
        if self.inner is not None:
            self.inner.reconstruct_position(codegen)
            return
        codegen.load_source(self.iterable.source)
        codegen.load_source(self.index.source)

    def hands_on_itself(self) -> bool:
        return self.own_iterator if self.inner is None else self.inner.hands_on_itself()

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        if self.inner is None:
            if self.own_iterator and tx.output.shapes.spec.is_moving_iterator(self.iterable.source):
                # Modelled, it would be guarded at its position: one compile per pass. A break here takes
                # the item natively and hands the iterator itself on (the next pass's entries are these).
                refused = Unsupported(f"a loop over a {type(self.iterable.value).__name__} that stands at "
                                      "another position on each pass", "modelling it would compile once per "
                                      "position", hint="the item is taken as the program runs and handed to "
                                      "the loop body")
                refused.reason.loop_iterator_moved = True
                raise refused
            current = getattr(tx, "current", None)
            if (getattr(tx, "parent", None) is None and current is not None and current.opname == "FOR_ITER"
                    and tx.output.shapes.spec.is_dynamic_int(self.index.source)):
                self.first_taken = tx.break_point()
                self.inner = self._at_symbolic_position(tx)
                if self.inner is not None:
                    item = self.inner.next_item(tx)
                    self.ops_at_take = tx.output.op_count()
                    return item
            if self.inner is None:
                self.inner = self._realize(tx)
        return self.inner.next_item(tx)

    def remaining(self) -> list[Variable] | None:
        return None if self.inner is None else self.inner.remaining()

    def _at_symbolic_position(self, tx: InstructionTranslator) -> IteratorVariable | None:
        """A loop over a ``range`` whose position varies, modelled at its position as a symbol (one entry for
        every middle pass, :mod:`.symbolic_ranges`); None for another iterable."""
        if type(self.iterable.value) is not range or type(self.index.value) is not int:
            return None
        position = wrap(tx, self.index.value, self.index.source)
        return symbolic_range_iterator(tx, self.iterable.value, self.iterable.source, position, self.index.source)

    def _realize(self, tx: InstructionTranslator) -> IteratorVariable:
        """The modelled iterator at the resumed position (the arguments are read and guarded here)."""
        iterable = wrap(tx, self.iterable.value, self.iterable.source)
        # Unrolling needs the position as a constant: guarded as one, never made a symbol (a dynamic
        # position would only be specialised again, after the cost of setting up symbolic shapes).
        tx.output.guards.add("constant", self.index.source, self.index.value)
        return advanced(tx, iterable, self.index.value)


def advanced(tx: InstructionTranslator, iterable: Variable, index: int) -> IteratorVariable:
    """``iter(iterable)`` with ``index`` items taken (what ``iter_at`` does at run time)."""
    iterator = tx.iterate(iterable)
    for _ in range(index):
        if iterator.next_item(tx) is None:
            break  # CPython's list, tuple and range iterators set past the end are exhausted
    return iterator


def loop_break_point(stack: list[Variable]) -> tuple[int, int] | None:
    """Where a break in the body of a resumed loop belongs: the ``FOR_ITER`` of the loop (still on
    ``stack``) that took an item in this trace, or None when the break is not in such a loop. A range
    loop at a symbolic position keeps the break where it is (but see :func:`idle_loop_head`)."""
    for value in stack:
        if isinstance(value, ResumedIterator) and value.first_taken is not None and value.ops_at_take is None:
            return value.first_taken
    return None


def idle_loop_head(stack: list[Variable], output: Any) -> tuple[int, int] | None:
    """The ``FOR_ITER`` of a range loop at a symbolic position (on ``stack``, in a trace stopped before its
    break) when ``output``'s graph gained no op since the loop took its item, else None. The pass from the
    item to the break then has no graph work: breaking at the ``FOR_ITER`` instead serves the middle passes
    and the last one with one graph, where the symbolic position would need one more for the last pass."""
    for value in stack:
        if isinstance(value, ResumedIterator) and value.ops_at_take is not None and output.op_count() == value.ops_at_take:
            return value.first_taken
    return None


def make_resumed_iterator(tx: InstructionTranslator, args: list[Variable]) -> IteratorVariable | None:
    """``iter_at(iterable, index)`` over a resume function's own arguments, read lazily (else None)."""
    if len(args) == 2 and all(isinstance(a, LoopPositionArgument) for a in args):
        resumed = ResumedIterator(args[0], args[1])
        if _is_iterator(args[0].value):
            iterable, index = args
            # A loop over an iterator hands on the iterator itself, at index 0 (``breaks``: each pass
            # keeps it): rebuilt, it is itself, so it is read only when the loop takes an item. Rebuilding
            # one at another index moves it, which the program sees even when the loop takes no further
            # item (a ``break`` right after the resumed point): that one is realized now.
            tx.output.guards.add("type", iterable.source, iterable.value)
            tx.output.guards.add("constant", index.source, index.value)
            if index.value == 0 and type(index.value) is int:
                resumed.own_iterator = True
            else:
                resumed.inner = resumed._realize(tx)
        return resumed
    return None


def _is_iterator(value: Any) -> bool:
    return hasattr(type(value), "__next__")  # by its type: calling iter() could run the program's code



def refuse_per_pass_subscript(tx: InstructionTranslator, container: Variable, index: Variable) -> None:
    """Break before ``container[index]`` when ``index`` is a symbolic int in a resume function's own
    frame and ``container`` is no tensor: the item is fetched natively and handed on (see the module
    docstring) rather than the index specialised once per pass. Elsewhere this does nothing."""
    if (getattr(tx, "resumes_a_frame", False) and isinstance(index, SymbolicVariable)
            and index.python_type() is int and not isinstance(container, TensorVariable)):
        raise Unsupported(f"{container.describe()} indexed by an int that changes per pass",
                          "the item is fetched as the program runs and handed on, not specialised per value",
                          hint="the next resume function receives the item as an argument")
