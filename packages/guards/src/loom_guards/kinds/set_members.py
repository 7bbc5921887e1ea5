"""``SetMembers(s, members)``: an exact set or frozenset holding exactly these members in this iteration order,
constants compared type-strictly and every other member by identity."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from ..sources import Source
from .base import _DEAD, Guard, _check_source, _OneSource, _Ref, _set, object_text, short_repr, type_name
from .constant import _constant_error, const_key, is_nan_scalar, member_eq
from .dict_keys import guarded_by_identity
from .length import Length
from .none import NotNone

_SET_TYPES = (set, frozenset)
_NO_STRAY = object()


#: sets up to this size whose order adding the members in iteration order (or its reverse) does not give
#: again are searched for an order of additions that does (6! = 720 small sets at most)
_SEARCHED_SIZE = 6


def insertion_order(members: list) -> list | None:
    """An order to add ``members`` in so that a fresh set iterates them in the order given, or None.

    A set's iteration order follows its history: of two members wanting one slot the one added first takes
    it, and a table that grew keeps its size when members leave. Adding the members in iteration order gives
    that order again unless such a collision reversed them; then the reverse order, or for a small set another
    order, does. None for a set whose order no order of additions gives (its table grew and shrank)."""
    candidates: Iterable[Iterable] = (members, reversed(members))
    if len(members) <= _SEARCHED_SIZE:
        candidates = itertools.chain(candidates, itertools.permutations(members))
    for order in candidates:
        order = list(order)
        if all(a is b for a, b in zip(set(order), members)):
            return order
    return None


def has_nan(value: Any) -> bool:
    """Whether a constant is or holds a float (or complex) NaN. A NaN equals no other NaN, so which NaN
    object a set holds decides what ``in`` answers: type-strict equality, which matches NaN with NaN,
    cannot stand for it."""
    if is_nan_scalar(value):
        return True
    if isinstance(value, (tuple, frozenset, set)):
        return any(has_nan(v) for v in value)
    return False


class SetMembers(_OneSource):
    """``source`` is an exact ``set`` or ``frozenset`` whose members are exactly ``members``, iterated in that
    order.

    Each member is a constant, as for ``ConstantMatch`` (matched type-strictly: ``1``, ``1.0`` and
    ``True`` are different members here, and a NaN anywhere in a constant is refused), or an object
    compared by identity: a class, a function, an instance of a class that keeps object's hash and
    equality, or a builtin function of a module (``len``, ``torch.sin``; see ``guarded_by_identity``).
    An object that is equal to such a member without being it (a second builtin object for the same C
    function) fails the guard, which only costs a recompile. The check iterates the set (which runs no
    user code for an exact set) beside ``members``: a set's iteration order follows its history (which
    of two colliding members came first, how large its table grew), and a trace that iterated the set
    baked that order in, so the same members in another order fail too. Identity members are held weakly
    where they allow it; once one dies the guard never passes again.
    """

    __slots__ = ("_ckey", "_order", "_texts", "n")
    kind = "set_members"
    cost = 4

    def __init__(self, source: Source, members: Iterable[Any]) -> None:
        _check_source("SetMembers", source)
        if isinstance(members, (str, bytes)) or not isinstance(members, Iterable):
            raise TypeError(f"SetMembers needs an iterable of members, got {type(members).__name__}")
        members = tuple(members)
        order: list[tuple[_Ref | None, Any]] = []  # per member: (its weak reference, None) or (None, the constant)
        keys = []
        texts = []
        for member in members:
            err = _constant_error(member)
            if err is None:
                if has_nan(member):
                    raise TypeError(f"SetMembers cannot match a NaN member type-strictly: {short_repr(member)}")
                order.append((None, member))
                keys.append(const_key(member))
                texts.append(short_repr(member))
            elif guarded_by_identity(member):
                order.append((_Ref(member), None))
                keys.append(("id", id(member)))
                texts.append(object_text(member))
            else:
                raise TypeError(f"SetMembers members must be constants or objects compared by identity: {err}")
        if len(set(keys)) != len(members):
            raise ValueError(f"SetMembers members repeat: {short_repr(members)}")
        _set(self, _source=source, n=len(members), _order=tuple(order), _texts=tuple(texts),
             _ckey=tuple(keys))

    @property
    def members(self) -> tuple:
        """The members in the order the set iterates them (None for an object compared by identity that died)."""
        return tuple(const if ref is None else (None if (obj := ref.get()) is _DEAD else obj)
                     for ref, const in self._order)

    @property
    def alive(self) -> bool:
        return all(ref is None or ref.alive for ref, _ in self._order)

    def _key(self) -> tuple:
        return (self._source, self._ckey)

    def describe(self) -> str:
        return f"{self._source} has exactly the members {{{', '.join(sorted(self._texts))}}}"

    def _is_member(self, item: Any) -> bool:
        for ref, const in self._order:
            if ref is None:
                if member_eq(item, const):
                    return True
            elif ref.get() is item:
                return True
        return False

    def explain(self, value: Any) -> tuple[str, str] | None:
        if type(value) not in _SET_TYPES:
            return (self.describe(), f"{short_repr(value)} ({type_name(type(value))}), not a set or frozenset")
        n = len(value)
        if n != self.n:
            return (self.describe(), f"{short_repr(value)} ({n} member{'' if n == 1 else 's'})")
        if all(member_eq(item, const) if ref is None else ref.get() is item
               for item, (ref, const) in zip(value, self._order)):
            return None
        stray = next((item for item in value if not self._is_member(item)), _NO_STRAY)
        if stray is _NO_STRAY:
            return (self.describe(), f"{short_repr(value)} (the same members in another order)")
        if _constant_error(stray) is None:
            return (self.describe(), f"{short_repr(value)} ({short_repr(stray)} ({type_name(type(stray))}) "
                                     "is not a member)")
        return (self.describe(), f"{short_repr(value)} ({object_text(stray)} (id {id(stray):#x}) is not a member)")

    def implies(self) -> tuple[Guard, ...]:
        return (Length(self._source, self.n), NotNone(self._source))
