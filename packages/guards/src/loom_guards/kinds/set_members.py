"""``SetMembers(s, members)``: an exact set or frozenset holding exactly these members, constants compared
type-strictly and every other member by identity."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..sources import Source
from .base import _DEAD, Guard, _check_source, _OneSource, _Ref, _set, object_text, short_repr, type_name
from .constant import _constant_error, const_key, is_nan_scalar
from .dict_keys import guarded_by_identity
from .length import Length
from .none import NotNone

_SET_TYPES = (set, frozenset)
_NO_STRAY = object()


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
    """``source`` is an exact ``set`` or ``frozenset`` whose members are exactly ``members``.

    Each member is a constant, as for ``ConstantMatch`` (matched type-strictly: ``1``, ``1.0`` and
    ``True`` are different members here, and a NaN anywhere in a constant is refused), or an object
    compared by identity: a class, a function, an instance of a class that keeps object's hash and
    equality, or a builtin function of a module (``len``, ``torch.sin``; see ``guarded_by_identity``).
    An object that is equal to such a member without being it (a second builtin object for the same C
    function) fails the guard, which only costs a recompile. The check iterates the set (which runs no
    user code for an exact set): the same length and no member outside ``members`` means the same
    members, since a set holds no member twice. Identity members are held weakly where they allow it;
    once one dies the guard never passes again.
    """

    __slots__ = ("_by_id", "_ckey", "_consts", "_texts", "_values", "n")
    kind = "set_members"
    cost = 4

    def __init__(self, source: Source, members: Iterable[Any]) -> None:
        _check_source("SetMembers", source)
        if isinstance(members, (str, bytes)) or not isinstance(members, Iterable):
            raise TypeError(f"SetMembers needs an iterable of members, got {type(members).__name__}")
        members = tuple(members)
        consts: dict[Any, Any] = {}  # const_key -> the constant
        by_id: dict[int, _Ref] = {}
        texts = []
        for member in members:
            err = _constant_error(member)
            if err is None:
                if has_nan(member):
                    raise TypeError(f"SetMembers cannot match a NaN member type-strictly: {short_repr(member)}")
                consts.setdefault(const_key(member), member)
                texts.append(short_repr(member))
            elif guarded_by_identity(member):
                by_id.setdefault(id(member), _Ref(member))
                texts.append(object_text(member))
            else:
                raise TypeError(f"SetMembers members must be constants or objects compared by identity: {err}")
        if len(consts) + len(by_id) != len(members):
            raise ValueError(f"SetMembers members repeat: {short_repr(members)}")
        _set(self, _source=source, n=len(members), _consts=consts, _by_id=by_id, _texts=tuple(texts),
             _values=tuple(consts.values()), _ckey=(frozenset(consts), frozenset(by_id)))

    @property
    def members(self) -> tuple:
        """The members: the constants, then the objects compared by identity (None for one that died)."""
        objs = (ref.get() for ref in self._by_id.values())
        return self._values + tuple(None if obj is _DEAD else obj for obj in objs)

    @property
    def alive(self) -> bool:
        return all(ref.alive for ref in self._by_id.values())

    def _key(self) -> tuple:
        return (self._source, self._ckey)

    def describe(self) -> str:
        return f"{self._source} has exactly the members {{{', '.join(sorted(self._texts))}}}"

    def _stray(self, value: Any) -> Any:
        """The first member of ``value`` (an exact set) that is none of ``members``, else ``_NO_STRAY``."""
        by_id, consts = self._by_id, self._consts
        for item in value:
            ref = by_id.get(id(item))
            if ref is not None and ref.get() is item:
                continue
            if _constant_error(item) is None and const_key(item) in consts:
                continue
            return item
        return _NO_STRAY

    def explain(self, value: Any) -> tuple[str, str] | None:
        if type(value) not in _SET_TYPES:
            return (self.describe(), f"{short_repr(value)} ({type_name(type(value))}), not a set or frozenset")
        n = len(value)
        if n != self.n:
            return (self.describe(), f"{short_repr(value)} ({n} member{'' if n == 1 else 's'})")
        stray = self._stray(value)
        if stray is _NO_STRAY:
            return None
        if _constant_error(stray) is None:
            return (self.describe(), f"{short_repr(value)} ({short_repr(stray)} ({type_name(type(stray))}) "
                                     "is not a member)")
        return (self.describe(), f"{short_repr(value)} ({object_text(stray)} (id {id(stray):#x}) is not a member)")

    def implies(self) -> tuple[Guard, ...]:
        return (Length(self._source, self.n), NotNone(self._source))
