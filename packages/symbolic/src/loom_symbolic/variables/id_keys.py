"""``id(obj)`` as a dict key or set member when its number is known only at run time (:mod:`.object_ids`):
an object made while tracing, a tensor (from the graph or passed in).

Two such ids are equal exactly when their objects are one, so the key stands for the object, not for a
number: ``{id(a): 1}[id(a)]`` finds the entry, ``id(b) in {id(a)}`` is False for another object. The number
itself never enters the trace; a dict or set holding these keys that outlives the graph is rebuilt with
``id(<the object>)`` then. An id is never equal to a constant key: a constant that is some live object's
address was taken from a real object, and the objects behind these keys are other ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from .container_tables import IdentityKey
from .mappings import KEY_MAKERS
from .object_ids import ObjectIdVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


class IdKey(IdentityKey):
    """The key of ``id(target)``: equal to another exactly when their targets are the same object.

    Its hash is the address of what stands for the target while tracing (a tensor's example value, an
    object's variable): an address like the one eager hashes, so a set mixing it with small ints orders
    as one eager could."""

    __slots__ = ()

    def __hash__(self) -> int:
        return id(self.identity)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IdKey):
            return other.identity is self.identity
        if isinstance(other, IdentityKey) and other.identity is self.identity and isinstance(self.identity, torch.Tensor):
            # a tensor hashes as its id, so eager compares the two with Tensor.__eq__ (an error for most)
            raise Unsupported("a tensor and its id() in one dict or set", "eager compares them with Tensor.__eq__")
        return False  # an object's id is not the object (``{o: 1, id(o): 2}`` holds two entries)


def _identity(target: Variable, tx: InstructionTranslator) -> Any:
    """What stands for ``target``'s identity while tracing, as ``is`` decides it; None if nothing does."""
    example = getattr(target, "example", None)
    if isinstance(example, torch.Tensor):
        if target.source is not None:  # two tensors passed in are distinct keys while they are distinct objects
            tx.output.aliases.relied_on_distinct()
        return example
    if getattr(target, "mutable", False) and not getattr(target, "wraps_real_object", False):
        if target.source is not None:
            tx.output.aliases.relied_on_distinct()
        return target  # a tracked object: its variable is the object, as for ``is``
    return None


def id_key(key: Variable, tx: InstructionTranslator) -> IdKey | None:
    """The :class:`IdKey` of an ``id()`` value known only at run time; None for any other key."""
    if not isinstance(key, ObjectIdVariable):
        return None
    identity = _identity(key.id_of, tx)
    if identity is None:
        raise Unsupported(f"{key.describe()} as a dict key or set member",
                          "which object it is is not known while tracing")
    return IdKey(key, identity)


KEY_MAKERS.append(id_key)
