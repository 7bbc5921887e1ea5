"""Objects' ``__dict__``s the trace holds as variables, kept in step with the trace's attribute stores.

One real dict, two ways in: ``obj.k = v`` (an attribute store, recorded in the side effects' overlay and
replayed after the graph) and ``obj.__dict__`` (``vars(obj)``, ``vars(cls)``, or the same dict reached any
other way: an argument, an attribute of another object), which the trace models as a dict variable. Both
must show the same contents while tracing, as the one real dict does in eager:

* every dict variable of a real dict (and every ``mappingproxy`` variable of a class's dict) is registered
  here by the real dict's identity when it is made; an attribute store or deletion on the dict's owner is
  logged and shown in each (a new name last, an old one in place, as CPython's dict keeps them), and a dict
  variable made later is brought up to date from the log. The real dict gets the change when the store is
  replayed; the variable, rebuilt after the graph from its source, is that real dict.
* where the program changes the dict itself (``obj.__dict__["k"] = v``), the variable is replayed as a
  container the trace changed, and from then on the object's attribute reads answer from it
  (:meth:`ObjectDicts.changed_view`; a kind of object whose attribute reads do not ask is refused there).

A store that cannot be shown (through a ``__setattr__`` other than ``object``'s, which may put the value
elsewhere; into a dict the variable copies rather than views) is a graph break, as before.
"""

from __future__ import annotations

import _thread
import gc
import types
from typing import Any

from .errors import Unsupported


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: An attribute the trace deleted.
DELETED = _Marker("DELETED")
#: A store whose effect on the ``__dict__`` is not known (made through a ``__setattr__`` other than object's).
UNKNOWN = _Marker("UNKNOWN")


class ObjectDicts:
    """The dict variables of objects' real ``__dict__``s in one translation, by the real dict's identity."""

    def __init__(self) -> None:
        #: id(real dict) → (the dict, its variables in the trace)
        self._views: dict[int, tuple[Any, list[Any]]] = {}
        #: id(real dict) → (the dict, [(name, value or DELETED or UNKNOWN)]): the trace's stores through its owner
        self._log: dict[int, tuple[Any, list[tuple[str, Any]]]] = {}
        #: ids of dict variables the program changed through the dict
        self._changed: set[int] = set()

    def made(self, real: Any, variable: Any) -> None:
        """``variable`` models ``real`` (a real dict, or a ``mappingproxy``: of the dict under it), just made:
        registered, and shown the attribute stores the trace made on the dict's owner so far."""
        real_dict = proxied(real) if type(real) is types.MappingProxyType else real
        if real_dict is None or not hasattr(variable, "show_attribute"):
            return
        entry = self._views.get(id(real_dict))
        if entry is None or entry[0] is not real_dict:
            entry = self._views[id(real_dict)] = (real_dict, [])
        if any(known is variable for known in entry[1]):
            return
        entry[1].append(variable)
        logged = self._log.get(id(real_dict))
        if logged is not None and logged[0] is real_dict:
            for name, value in logged[1]:
                if not _show(variable, name, value):
                    raise Unsupported("a __dict__ after the trace stored attributes of its object",
                                      "the stores are replayed only after the graph", hint="it is read between graphs")

    def store(self, real: Any, name: str, value: Any, what: str) -> bool:
        """``real.name = value`` (or ``DELETED``, ``UNKNOWN``) in the trace: shown in every variable of
        ``real.__dict__``; a graph break where one cannot show it. True where the replay of the store is left
        to the dict's (the program changed the dict itself: its final contents are replayed whole)."""
        own = owned_dict(real)
        if own is None or not _in_instance_dict(real, name):
            return False  # no __dict__, or a slot or data descriptor of the class takes the store
        logged = self._log.get(id(own))
        if logged is None or logged[0] is not own:
            logged = self._log[id(own)] = (own, [])
        logged[1].append((name, value))
        entry = self._views.get(id(own))
        if entry is None or entry[0] is not own:
            return False
        for variable in entry[1]:
            if not _show(variable, name, value):
                raise Unsupported(f"{what} on a {type(real).__name__} whose __dict__ the trace read",
                                  "the dict and the attributes would diverge", hint="it runs between graphs")
        return any(id(variable) in self._changed for variable in entry[1])

    def held(self, real: Any) -> bool:
        """Whether the trace holds a variable of ``real.__dict__``."""
        own = owned_dict(real)
        entry = self._views.get(id(own)) if own is not None else None
        return entry is not None and entry[0] is own and bool(entry[1])

    def changed(self, container: Any) -> None:
        """The program changed ``container`` through the dict: where it is an object's ``__dict__``, that
        object's attribute reads answer from it from now on (a refusal where they cannot: see the module)."""
        owner = getattr(container, "instance_dict_of", None)
        if owner is not None and not getattr(container, "instance_dict_live", False):
            raise Unsupported(f"changing the __dict__ of a {type(owner).__name__}",
                              "its attributes would not see the change", hint="it runs between graphs")
        if hasattr(container, "show_attribute"):  # a dict: maybe some object's __dict__ (changed_view asks)
            self._changed.add(id(container))

    def changed_view(self, real: Any) -> Any:
        """The variable of ``real.__dict__`` the program changed through the dict (its attributes are read
        from it); None where there is none."""
        if not self._changed:
            return None
        own = owned_dict(real)
        entry = self._views.get(id(own)) if own is not None else None
        if entry is None or entry[0] is not own:
            return None
        return next((variable for variable in entry[1] if id(variable) in self._changed), None)


def owned_dict(real: Any) -> Any:
    """The real dict ``real``'s attributes live in: its ``__dict__``, or a class's dict under its
    ``mappingproxy``; None where it has none."""
    try:  # a threading.local keeps the calling thread's dict, which only its own lookup finds
        getter = _thread._local.__getattribute__ if isinstance(real, _thread._local) else object.__getattribute__
        found = getter(real, "__dict__")
    except (AttributeError, TypeError):
        return None
    if type(found) is types.MappingProxyType:
        return proxied(found)
    return found if isinstance(found, dict) else None


def proxied(proxy: Any) -> Any:
    """The mapping under a ``mappingproxy`` (under every proxy, when proxies are nested), or None."""
    mapping = proxy
    while type(mapping) is types.MappingProxyType:
        referents = gc.get_referents(mapping)  # a mappingproxy refers to its mapping only
        if len(referents) != 1:
            return None
        mapping = referents[0]
    return mapping


def _in_instance_dict(real: Any, name: str) -> bool:
    """Whether ``real.name = v`` (or ``del real.name``) goes to ``real.__dict__``: no data descriptor (a slot, a
    property) of that name on its class takes it."""
    for klass in type(real).__mro__:
        if name in klass.__dict__:
            found = klass.__dict__[name]
            return not (hasattr(type(found), "__set__") or hasattr(type(found), "__delete__"))
    return True


def _show(variable: Any, name: str, value: Any) -> bool:
    """Show an attribute store or deletion in ``variable``, a model of the object's ``__dict__``; False where it
    cannot be: a copy (no source: it is rebuilt as another dict), or an unknown store."""
    show = getattr(variable, "show_attribute", None)
    if value is UNKNOWN or show is None or getattr(variable, "source", None) is None:
        return False
    return show(name, None if value is DELETED else value)
