"""``id(obj)`` of an object whose address is unknown while tracing: a tensor from the graph, a list or
an object made in the trace.

Its value is not needed to answer what programs ask of it most (``id(a) == id(b)``, ``id(a) != id(b)``):
two ids are equal exactly when their objects are the same one, which the translator decides as for
``a is b``. Anything else (arithmetic, formatting, ordering) needs the number and is a graph break.
After a break (or when returned) the id is rebuilt as ``id(<the object>)``, the object then real.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Variable

if TYPE_CHECKING:
    from ..codegen import PyCodegen


class ObjectIdVariable(Variable):
    """``id(target)``: an int known only when the program runs, equal to another such id exactly when
    their targets are the same object."""

    def __init__(self, target: Variable) -> None:
        self.id_of = target

    def python_type(self) -> type:
        return int

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_callable(id)
        codegen.reconstruct(self.id_of)
        codegen.call(1)

    def describe(self) -> str:
        return f"id() of {self.id_of.describe()}"


class ObjectHashVariable(Variable):
    """``hash(target)`` of an object made while tracing that hashes by identity (``object.__hash__``), or of a
    method bound to one: an int known only when the program runs. Two such hashes are equal where their
    targets are the same object (the same function bound to the same object), which :mod:`.identity_hashes`
    decides; anything else needs the number and is a graph break."""

    def __init__(self, target: Variable) -> None:
        self.hash_of = target

    def python_type(self) -> type:
        return int

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_callable(hash)
        codegen.reconstruct(self.hash_of)
        codegen.call(1)

    def describe(self) -> str:
        return f"hash() of {self.hash_of.describe()}"
