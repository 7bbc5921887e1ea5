"""What a trace assumed about its inputs, collected as requests and turned into loom_guards guards.

The translator states facts in its own terms ("this source held a tensor", "this global was that
function"); this module is the one place that maps them onto :mod:`loom_guards` guard kinds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import loom_guards

from .per_call_classes import matched_instead


@dataclass(frozen=True)
class GuardRequest:
    """One assumption: ``kind`` of fact about the value reached through ``source``."""

    kind: str
    source: Any
    value: Any


def _tensor(source: Any, value: Any) -> Any:
    return loom_guards.TensorMatch(source, value)


def _dynamic_tensor(source: Any, value: Any) -> Any:
    tensor, dims = value
    return loom_guards.TensorMatch(source, tensor, dynamic_dims=sorted(dims))


def _constant(source: Any, value: Any) -> Any:
    if loom_guards.is_nan_scalar(value) and not isinstance(source, loom_guards.Local):
        # ConstantMatch lets any NaN match a NaN, but which NaN object a value is decides `in` and `==` of
        # the containers holding it (CPython compares members identity first). A global or an attribute
        # keeps its object, so the same one is asked for; an argument may be a new NaN on every call
        # (torch.compile lets any NaN match there too, and so does loom).
        return loom_guards.Identity(source, value)
    try:
        return loom_guards.ConstantMatch(source, value)
    except TypeError:
        # Immutable values ConstantMatch does not compare (code objects, layouts, ranges): identity is
        # stricter than equality, so it can only cause a recompile, never a wrong answer.
        return loom_guards.Identity(source, value)


def _identity(source: Any, value: Any) -> Any:
    return loom_guards.Identity(source, value)


def _type(source: Any, value: Any) -> Any:
    return loom_guards.TypeMatch(source, type(value))


def _same_object(source: Any, first_source: Any) -> Any:
    return loom_guards.SameObject(first_source, source)


def _absent_key(source: Any, key: Any) -> Any:
    return loom_guards.DictContains(source, key, present=False)


def _present_key(source: Any, key: Any) -> Any:
    return loom_guards.DictContains(source, key, present=True)


def _asked(source: Any, value: Any) -> Any:
    # Asked now, when the guards are built: the trace may have changed the state the query reads (inside
    # an ``sdpa_kernel`` block), and the guard checks the state the frame is entered with, restored by now.
    return _constant(source, source.fetch({}))


def _length(source: Any, value: Any) -> Any:
    return loom_guards.Length(source, len(value))


def _dict_keys(source: Any, value: Any) -> Any:
    return loom_guards.DictKeys(source, list(value))


def _set_members(source: Any, value: Any) -> Any:
    return loom_guards.SetMembers(source, value)


#: Request kind → guard constructor.
CONSTRUCTORS = {
    "tensor": _tensor,
    "dynamic_tensor": _dynamic_tensor,
    "constant": _constant,
    "asked": _asked,
    "identity": _identity,
    "type": _type,
    "same_object": _same_object,
    "length": _length,
    "dict_keys": _dict_keys,
    "set_members": _set_members,
    "absent_key": _absent_key,
    "present_key": _present_key,
}

#: Kinds of which one source can have several requests, one per value (``absent_key``: one per key).
_ONE_PER_VALUE = frozenset({"absent_key", "present_key"})


class GuardCollector:
    """The requests made during one translation, deduplicated, in the order they were made."""

    def __init__(self) -> None:
        self._requests: dict[tuple, GuardRequest] = {}
        #: id(class the compiled code made on a call) → (it, the first source it was matched through)
        self.made_sources: dict[int, tuple[type, Any]] = {}

    def add(self, kind: str, source: Any, value: Any) -> None:
        """Record that the trace relied on ``kind`` of fact about ``source``'s value."""
        if kind not in CONSTRUCTORS:
            raise ValueError(f"unknown guard request kind {kind!r}")
        if kind in ("type", "identity") and (instead := matched_instead(kind, source, value)) is not None:
            if isinstance(value, type) or kind == "type":
                _, first = self.made_sources.setdefault(id(instead[0][2]), (instead[0][2], instead[0][1]))
                if first != instead[0][1]:  # reached two ways: the trace took them for one class
                    instead.append(("same_object", instead[0][1], first))
            for request in instead:  # a class the compiled code made on a call: matched by how it was made
                self.add(*request)
            return
        key = (kind, source, value) if kind in _ONE_PER_VALUE else (kind, source)
        if key not in self._requests:  # most requests repeat one already made
            self._requests[key] = GuardRequest(kind, source, value)

    @property
    def requests(self) -> list[GuardRequest]:
        """Every request, first-made first."""
        return list(self._requests.values())

    def build(self, shape_guards: list[Any] = ()) -> list[Any]:
        """The loom_guards guard objects for every request, the relations the trace took on symbolic
        sizes (``shape_guards``), and the global torch state guard."""
        guards = [CONSTRUCTORS[r.kind](r.source, r.value) for r in self._requests.values()]
        guards.extend(shape_guards)
        guards.append(loom_guards.GlobalState())
        return guards

    def __len__(self) -> int:
        return len(self._requests)
