"""Methods of lists, tuples, dicts and sets while tracing, one small function each.

Each table maps a method name to ``fn(tx, receiver, args, kwargs) -> Variable``. Containers look
their methods up here, so ``list.append`` is found by grepping ``"append"``.

The methods themselves live in :mod:`.sequence_methods`, :mod:`.dict_methods` and :mod:`.set_methods`;
importing this module loads them all (the catalogue does), and it models builtin methods read unbound.
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any

from loom_guards import Attr

from ..errors import Unsupported
from . import dict_methods, sequence_methods, set_methods
from .base import Variable
from .containers import DICT_METHODS, LIST_METHODS, SET_METHODS, DictVariable, lookup
from .dict_methods import DictViewVariable, update_from_pairs
from .methods import MethodVariable
from .registry import wrap_constant_like
from .sequence_methods import list_sort

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

__all__ = ["DictViewVariable", "UnboundMethodVariable", "dict_methods", "list_sort", "sequence_methods",
           "set_methods", "unbound_method", "update_from_pairs"]


#: Attributes of a builtin's method object that never change (``list.append.__name__``).
_FIXED_ATTRIBUTES = frozenset({"__name__", "__qualname__", "__objclass__", "__doc__", "__text_signature__"})


class UnboundMethodVariable(Variable):
    """``dict.pop``, ``list.append``, ... read from the builtin class: called with a container of that
    class (or a subclass) first, it is that container's own builtin method, whatever a subclass
    overrides (what C code reaching the dict layer directly does, and polyfills written like it)."""

    #: the method object is a fixed C object: identity (``is``, ``id``) and ``isinstance`` read it
    wraps_real_object = True

    def __init__(self, owner: type, name: str) -> None:
        self.owner = owner
        self.name = name
        self.value = getattr(owner, name)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        receiver = args[0] if args else None
        if receiver is None or lookup(receiver, self.name) is None or not issubclass(receiver.python_type(), self.owner):
            what = receiver.describe() if receiver is not None else "no arguments"
            raise Unsupported(f"{self.owner.__name__}.{self.name} called on {what}", "not modelled")
        plain = dict_methods.PLAIN_DICT_WRITES.get(self.name) if self.owner is dict else None
        if plain is not None and isinstance(receiver, DictVariable):  # dict.update(od, ...): dict's own
            return plain(tx, receiver, args[1:], kwargs)
        return receiver.call_builtin_method(tx, self.name, args[1:], kwargs)

    def reconstruct(self, codegen: Any) -> None:
        codegen.load_const(getattr(self.owner, self.name))

    # The method object itself is a fixed C object of a builtin class (``list.__add__``): a constant, hashed
    # and compared as in Python (a dict key, ``==``), while calls still go through the container's model.
    def is_python_constant(self) -> bool:
        return True

    def as_python_constant(self) -> Any:
        return self.value

    def python_type(self) -> type:
        return type(self.value)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in _FIXED_ATTRIBUTES:
            return wrap_constant_like(getattr(self.value, name))
        return super().var_getattr(tx, name)

    def describe(self) -> str:
        return f"{self.owner.__name__}.{self.name}"


#: The builtin classes whose methods, read unbound, :class:`UnboundMethodVariable` models.
_UNBOUND_TABLES = {dict: DICT_METHODS, list: LIST_METHODS, set: SET_METHODS, frozenset: SET_METHODS,
                   collections.OrderedDict: DICT_METHODS}


def unbound_method(owner: Any, name: str) -> Variable | None:
    """``owner.name`` for a builtin container class and a method its table models, else None."""
    table = _UNBOUND_TABLES.get(owner) if isinstance(owner, type) else None
    if table is None or name not in table or not hasattr(owner, name):
        return None  # (frozenset.add: the class's own AttributeError, from the ordinary lookup)
    return UnboundMethodVariable(owner, name)


def bound_container_method(tx: Any, value: Any, source: Any, wrap: Any) -> Variable | None:
    """A C method bound to a list, dict or set of the frame (``log.append`` kept in a closure or an
    ``ExitStack``'s callbacks), reached from ``source``: the method its table models, called on the
    container's own variable (so the trace sees the call's effect). None for anything else, and in a resume
    function (where calling it stays a break, as it was)."""
    receiver = getattr(value, "__self__", None)
    table = _UNBOUND_TABLES.get(type(receiver))
    if table is None or value.__name__ not in table or source is None or tx is None:
        return None
    root = tx.root() if hasattr(tx, "root") else tx
    if getattr(root, "resumes_a_frame", True):
        # a loop's resume function may be handed the container pass after pass, growing (variables/passed_on.py):
        # modelled item by item, its length would be guarded and the function compiled once per pass
        return None
    # the object at ``source`` stays a method of that name, bound to a container reached below it
    tx.output.guards.add("type", source, value)
    tx.output.guards.add("constant", Attr(source, "__name__"), value.__name__)
    return MethodVariable(wrap(tx, receiver, Attr(source, "__self__")), value.__name__)
