"""The method tables every container kind looks its methods up in, and the helpers they share."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported
from .attributes import class_attribute
from .base import Variable
from .registry import wrap_constant_like
from .specialising import is_symbolic_int

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


Method = Callable[[Any, Any, list[Variable], dict[str, Variable]], Variable]
#: name → ``method(tx, container, args, kwargs)``, one table per container kind. Owned here, filled by
#: :mod:`.container_methods` and its siblings (which the catalogue loads with the translator).
SEQUENCE_METHODS: dict[str, Method] = {}
LIST_METHODS: dict[str, Method] = {}
DICT_METHODS: dict[str, Method] = {}
SET_METHODS: dict[str, Method] = {}
#: Methods only ``set`` has; a frozenset has no such attribute.
SET_MUTATORS = {"__init__", "add", "update", "discard", "remove", "clear", "pop", "difference_update",
                "intersection_update", "symmetric_difference_update"}



def constant_index(tx: InstructionTranslator, index: Variable) -> Any:
    """A subscript that must be known while tracing (an int or a slice of ints). A symbolic int is
    specialised (its value becomes a guard), as torch.compile does: a list has no symbolic positions.
    Not in a resume function's frame, where a symbolic int may be a loop's counter: specialising it
    would compile once per pass (see ``resumed_loops``), so there it stays a break."""
    if not getattr(tx, "resumes_a_frame", False):
        if is_symbolic_int(index):
            return index.as_python_constant()  # a value drawn from random, or a while_loop's, breaks here
        parts = getattr(index, "parts", None)  # a slice whose bounds may be symbolic ints
        if parts is not None and all(p.is_python_constant() or is_symbolic_int(p) for p in parts):
            return slice(*(p.as_python_constant() for p in parts))
    parts = getattr(index, "parts", None)
    if parts is not None and any(writes_index(p) for p in parts):  # l[a:b] calls the bounds' __index__
        return slice(*(user_index(tx, p) if writes_index(p) else constant_index(tx, p) for p in parts))
    if writes_index(index):
        return user_index(tx, index)
    if getattr(index, "python_data", None) is not None:
        # a tensor made in the trace from Python numbers (l[torch.as_tensor(2)]): Python calls its __index__,
        # which the remembered values answer (or which breaks, as an unknown index does)
        return index.call_method(tx, "__index__", [], {}).as_python_constant()
    if not index.is_python_constant():
        raise Unsupported("indexing a Python sequence with a value known only at run time",
                          "the index is a tensor or an unknown value")
    return index.as_python_constant()


def writes_index(value: Variable) -> bool:
    """Whether ``value``'s class writes ``__index__`` in Python (a subscript calls it)."""
    import types

    if value.is_python_constant() or not getattr(value, "mutable", False):
        return False
    try:
        cls = value.python_type()
    except Unsupported:
        return False
    return isinstance(class_attribute(cls, "__index__"), types.FunctionType)


def user_index(tx: InstructionTranslator, value: Variable) -> int:
    """``value.__index__()`` (a method written in Python), which must give an int known while tracing."""
    result = value.call_method(tx, "__index__", [], {})
    if not result.is_python_constant() or type(result.as_python_constant()) is not int:
        raise Unsupported(f"{value.describe()}.__index__() giving {result.describe()}", "not an int known now")
    return result.as_python_constant()


class IdentityKey:
    """The key of a dict or set member that only the trace holds (a tensor, an object made while
    tracing): hashed and compared by the identity of what it stands for, as Python hashes such objects.

    A tensor's identity is its example value: a view or a new tensor gets a new one, while an in-place
    method's result (``x.add_(1)``, ``x.contiguous()`` of a contiguous ``x``) is the very same tensor in
    fake mode too, so it finds the same member, as in eager."""

    __slots__ = ("identity", "variable")

    def __init__(self, variable: Variable, identity: Any) -> None:
        self.variable = variable
        self.identity = identity

    def __hash__(self) -> int:
        return id(self.identity)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IdentityKey) and other.identity is self.identity

    def __repr__(self) -> str:
        return f"<{self.variable.describe()}>"


def key_variable(key: Any) -> Variable:
    """The variable for a dict key (keys are constants, identity-hashed objects, or :class:`IdentityKey`)."""
    if isinstance(key, IdentityKey):
        return key.variable
    return wrap_constant_like(key)

