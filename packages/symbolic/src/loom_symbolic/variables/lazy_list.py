"""A plain list read from the frame whose length and items are read, and so guarded, only when the trace
reads them.

A list the compiled code only appends to (``self.features.append(x)`` in a forward, ``losses.append(loss)``
into a list passed in, a registry kept as a global) is one item longer on every call. Guarding its length
compiled the function once per length, up to the recompile limit, after which it ran uncompiled. Until the
trace reads such a list (its length, an item, its truth, iteration, any method but ``append`` and ``extend``)
it stands for whatever list its source holds, guarded by type only; the items appended meanwhile are kept as
its tail, and the rewritten code extends the real list by them after the graph
(:meth:`~loom_symbolic.codegen.PyCodegen.replace_contents`). The first read guards the length and wraps the
items, as for any list, the tail after them; from then on it is an ordinary :class:`ListVariable`, whose
final items replace the real list's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .base import Variable
from .sequences import ListVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


class LazyListVariable(ListVariable):
    """A real ``list`` from a source, its length and items wrapped (``read_items``) only when first read."""

    def __init__(self, *args: Any, read_items: Callable[[], list[Variable]] | None = None, **kwargs: Any) -> None:
        # ListVariable's own arguments: code that copies a list as ``type(value)(items)`` gets a read one
        self._read_items: Callable[[], list[Variable]] | None = None  # set below: __init__ stores the items
        super().__init__(*args, **kwargs)
        self._read_items = read_items

    @property
    def items(self) -> list[Variable]:  # type: ignore[override]
        read_items = self._read_items
        if read_items is not None:
            self._read_items = None
            self._items = [*read_items(), *self._items]  # the items appended before this read come last
        return self._items

    @items.setter
    def items(self, value: list[Variable]) -> None:
        self._items = value

    def describe(self) -> str:  # never reads the list: a description is asked for after the trace too
        tail = self.unread_tail()
        return super().describe() if tail is None else f"list with {len(tail)} appended"

    def __repr__(self) -> str:
        return f"LazyListVariable(unread, tail={self._items!r})" if self._read_items is not None else super().__repr__()

    def unread_tail(self) -> list[Variable] | None:
        """The items appended while the real ones were never read (the rewritten code extends the real
        list by them), else None: the list was read, its items are its whole contents."""
        return self._items if self._read_items is not None else None


def appending_to(target: Variable) -> list[Variable]:
    """The Python list ``target.append(item)`` adds ``item`` to: a never-read list's tail, else its items."""
    tail = target.unread_tail() if isinstance(target, LazyListVariable) else None
    return target.items if tail is None else tail


def wrap_plain_list(tx: InstructionTranslator, value: list, source: Any,
                    wrap_items: Callable[[], list[Variable]]) -> LazyListVariable:
    """The variable of plain list ``value`` from ``source``: its type guarded now, its length when first read
    (then ``wrap_items`` wraps its items)."""
    tx.output.guards.add("type", source, value)

    def read_items() -> list[Variable]:
        tx.output.guards.add("length", source, value)
        return wrap_items()

    return LazyListVariable([], source, read_items=read_items)
