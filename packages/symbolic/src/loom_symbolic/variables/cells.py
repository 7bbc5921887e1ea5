"""Closure cells while tracing: cells made by the traced code, and real cells from outside it."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported, UserError
from .base import Variable
from .constant import ConstantVariable
from .registry import wrap, wrap_constant_like

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator



def empty_cell_error(tx: Any, name: str, owner: types.CodeType | None) -> UserError:
    """What reading an empty cell raises: CPython's UnboundLocalError in the code that owns the cell, its
    NameError (which names it) in a closure over it, each with CPython's message; an owner not known
    leaves the exception unknown (the read is a break)."""
    code = getattr(tx, "code", None)
    if owner is None or code is None:
        return UserError(f"free variable {name!r}", f"cannot access free variable {name!r} where it is not associated "
                         "with a value")
    if code is owner:
        message = f"cannot access local variable {name!r} where it is not associated with a value"
        return UserError(f"local variable {name!r}", message, exc_type=UnboundLocalError, exc_args=(message,))
    message = f"cannot access free variable {name!r} where it is not associated with a value in enclosing scope"
    return UserError(f"free variable {name!r}", message, exc_type=NameError, exc_args=(message,),
                     exc_attrs={"name": ConstantVariable(name)})


class CellBox:
    """A cell created while tracing (a cell variable of a traced or inlined frame)."""

    def __init__(self, name: str, contents: Variable | None = None, owner: types.CodeType | None = None) -> None:
        self.name = name
        self.contents = contents
        #: the code whose cell variable this is (None: unknown), for what may bind it again
        self.owner = owner
        #: the real cell a class made while tracing was given for this one (see opcodes.class_closures)
        self.frozen: Any = None

    def load(self, tx: InstructionTranslator) -> Variable:
        """The cell's contents; an empty cell raises like CPython does."""
        if self.contents is None:
            raise empty_cell_error(tx, self.name, self.owner)
        return self.contents

    def store(self, tx: InstructionTranslator, value: Variable) -> None:
        """``nonlocal name; name = value``."""
        if self.frozen is not None and self.contents is None:
            # the class statement's own store, into the cell its class was given empty (opcodes.class_closures)
            self.frozen.cell_contents = value.as_python_constant()
        self.contents = value

    def delete(self, tx: InstructionTranslator) -> None:
        """``del name`` on a cell variable."""
        self.load(tx)
        self.contents = None


class RealCellBox(CellBox):
    """A cell that exists outside the trace (a closure cell of the frame or of a called function).

    Reads wrap its real contents with a guard; writes are side effects replayed after the graph.
    """

    def __init__(self, name: str, cell: Any, source: Any, store_effect: Any) -> None:
        super().__init__(name)
        self.cell = cell
        self.source = source
        self._store_effect = store_effect
        self._loaded = False

    def load(self, tx: InstructionTranslator) -> Variable:
        if not self._loaded:
            try:
                value = self.cell.cell_contents
            except ValueError as exc:
                raise UserError(f"free variable {self.name!r}", str(exc), exc_type=NameError) from exc

            self.contents = wrap(tx, value, self.source)
            self._loaded = True
        return super().load(tx)

    def store(self, tx: InstructionTranslator, value: Variable) -> None:
        self.contents = value
        self._loaded = True
        self._store_effect(tx, value)

    def delete(self, tx: InstructionTranslator) -> None:

        raise Unsupported("deleting a closure variable of an outer function", "not modelled")


class CellVariable(Variable):
    """What LOAD_CLOSURE pushes: a reference to a cell, for building a closure tuple."""

    def __init__(self, box: CellBox) -> None:
        self.box = box

    def python_type(self) -> type:
        return types.CellType

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        """``cell.cell_contents`` (a function's ``__closure__`` holds these); an empty cell raises as CPython's."""
        if name == "__class__":
            return wrap_constant_like(types.CellType)
        if name != "cell_contents":
            return super().var_getattr(tx, name)
        try:
            return self.box.load(tx)
        except UserError:
            raise UserError("cell_contents", "Cell is empty", exc_type=ValueError, exc_args=("Cell is empty",)) from None

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``cell.cell_contents = value``: what ``nonlocal name; name = value`` stores (a real cell's is replayed)."""
        if name != "cell_contents" or self.box.frozen is not None:
            raise Unsupported(f"assigning {name!r} of {self.describe()}", "not modelled")
        self.box.store(tx, value)

    def delete_attr(self, tx: InstructionTranslator, name: str) -> None:
        """``del cell.cell_contents`` of a cell made while tracing that holds a value: empties it."""
        if name != "cell_contents" or self.box.frozen is not None or isinstance(self.box, RealCellBox) \
                or self.box.contents is None:
            raise Unsupported(f"deleting {name!r} of {self.describe()}", "not modelled")
        self.box.contents = None

    def describe(self) -> str:
        return f"cell {self.box.name}"


class CellBoxes(dict):
    """id(real cell) → its box, for one translation, and the ways in by which the trace reached real cells
    (``ways``: the frame's own closure, a function's ``__closure__``, a generator from the frame), each with
    what pins its cells by identity if the way itself does not (None: a function, guarded by identity, or
    the frame's own cells)."""

    def __init__(self) -> None:
        super().__init__()
        self.ways: dict[Any, Callable[[], None] | None] = {}
        #: id(template cell) → (that cell, the trace's box it stands for): the cells of a class made on each call
        #: (opcodes.class_per_call), whose methods read and write the trace's own boxes
        self.templates: dict[int, tuple[Any, CellBox]] = {}
        #: id(real cell) → every source its contents were reached through (the ways' sources)
        self.sources: dict[int, list[Any]] = {}


def real_cell_box(tx: InstructionTranslator, name: str, cell: Any, source: Any, store_effect: Any, *,
                  way: Any, pin: Callable[[], None] | None = None) -> CellBox:
    """The one box standing for real ``cell`` in this translation: a closure cell reached two ways
    (the frame's free variable and a function's ``__closure__``) must see the same writes. ``way`` names
    how the trace reached it; once real cells are reached more than one way, the graph relies on which of
    them are one cell (a write through one read through the other, or not), so each way whose cells are
    not fixed otherwise is pinned by identity (``pin``: a generator from the frame, through its function)."""
    boxes = tx.output.cell_boxes
    template = boxes.templates.get(id(cell))
    if template is not None and template[0] is cell:
        return template[1]  # a cell of a class made on each call: the box of the call being traced
    found = boxes.get(id(cell))
    if found is None or found.cell is not cell:
        found = boxes[id(cell)] = RealCellBox(name, cell, source, store_effect)
        boxes.sources[id(cell)] = []
    reached = boxes.sources.setdefault(id(cell), [])
    if source is not None and source not in reached:
        reached.append(source)
    ways = boxes.ways
    ways.setdefault(way, pin)
    if len(ways) > 1:
        for pinning in ways.values():
            if pinning is not None:
                pinning()  # the guard collector keeps one of each
    return found
