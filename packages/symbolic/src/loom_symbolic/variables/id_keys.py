"""``id(obj)`` as a dict key or set member when its number is known only at run time (:mod:`.object_ids`):
an object made while tracing, a tensor (from the graph or passed in).

Two ids of objects made while tracing are equal exactly when their objects are one, so the key stands for
the object, not for a number: ``{id(a): 1}[id(a)]`` finds the entry, ``id(b) in {id(a)}`` is False for another
object. The number itself never enters the trace; a dict or set holding these keys that outlives the graph
is rebuilt with ``id(<the object>)`` then. Such an id is never equal to an int key: an int that is the address
of a live object is another object's, and one of a dead object's equals the new one's only where the
allocator happens to reuse it (eager's answer is then the address's, which the trace may not fix).

A tensor passed in exists: its key is its real id, the tensor identity-guarded (as torch.compile does), since
an int from outside (``seen`` kept between calls) may be that very number; so is an in-place op's result on
it, the same tensor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from .container_tables import IdentityKey
from .mappings import KEY_MAKERS, TENSOR_KEY_WATCHERS
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


class InputTensorKey(IdentityKey):
    """The key of a tensor passed in (or of an in-place op's result on one, the same tensor): hashed as its
    real id, as eager hashes a tensor, so the int ``id()`` of it (the key :func:`id_key` makes) meets it in
    one dict or set; eager then compares the two with ``Tensor.__eq__``, which the trace leaves to a break.
    Apart, a tensor and its id are keys of their own containers (``{t for t in ts}`` beside
    ``{id(t) for t in ts}``)."""

    __slots__ = ("real_id",)

    def __init__(self, variable: Variable, identity: Any, real_id: int) -> None:
        super().__init__(variable, identity)
        self.real_id = real_id

    def __hash__(self) -> int:
        return hash(self.real_id)

    def __eq__(self, other: object) -> bool:
        if type(other) is int and other == self.real_id:  # either side of the comparison: int's gives way
            raise Unsupported("a tensor and its id() in one dict or set", "eager compares them with Tensor.__eq__")
        return super().__eq__(other)


def given_tensor(tx: InstructionTranslator, target: Variable, example: torch.Tensor) -> Variable | None:
    """The tensor passed in that ``target`` is (itself, or the input whose example an in-place result shares)."""
    own = target.source is not None and getattr(target, "real", None) is not None
    given = target if own else tx.output.input_of_example(example)
    return given if given is not None and given.source is not None and getattr(given, "real", None) is not None else None


def _tensor_keyed(key: Variable, tx: InstructionTranslator) -> IdentityKey | None:
    given = given_tensor(tx, key, key.example)
    return InputTensorKey(key, key.example, id(given.real)) if given is not None else None


def _identity(target: Variable) -> Any:
    """What stands for ``target``'s identity while tracing, as ``is`` decides it; None if nothing does."""
    example = getattr(target, "example", None)
    if isinstance(example, torch.Tensor):
        return example
    if getattr(target, "mutable", False) and not getattr(target, "wraps_real_object", False):
        return target  # a tracked object: its variable is the object, as for ``is``
    return None


def _real_object(tx: InstructionTranslator, target: Variable) -> Any:
    """The object from outside the frame that ``target`` (a variable wrapped from a source) stands for, as the
    trace's table of wrapped objects holds it; None when it is not there (a value wrapped afresh each read)."""
    for value, variable in tx.output.known_objects.values():
        if variable is target:
            return value
    return None


def id_key(key: Variable, tx: InstructionTranslator) -> IdKey | int | None:
    """The key of an ``id()`` value known only at run time (None for any other key): an :class:`IdKey` for an
    object made while tracing; for a tensor passed in (or an in-place op's result, the same tensor), its real
    id under an identity guard, as torch.compile keys it (an int key of a container from outside may be that
    very id: only the number answers then)."""
    if not isinstance(key, ObjectIdVariable):
        return None
    target = key.id_of
    example = getattr(target, "example", None)
    given = None
    if isinstance(example, torch.Tensor):  # the tensor passed in itself, or one whose example is an input's
        given = given_tensor(tx, target, example)
    if given is not None:
        tx.output.guards.add("identity", given.source, given.real)
        return id(given.real)
    real = _real_object(tx, target) if target.source is not None and given is None else None
    if real is not None:  # a list or dict from outside (a global): its id under an identity guard
        tx.output.guards.add("identity", target.source, real)
        return id(real)
    if target.source is not None or given is not None:
        raise Unsupported(f"{key.describe()} as a dict key or set member",
                          "an object from outside the frame whose identity the trace cannot guard")
    identity = _identity(target)
    if identity is None:
        raise Unsupported(f"{key.describe()} as a dict key or set member",
                          "which object it is is not known while tracing")
    return IdKey(key, identity)


KEY_MAKERS.append(id_key)
TENSOR_KEY_WATCHERS.append(_tensor_keyed)
