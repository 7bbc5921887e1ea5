"""``types.MappingProxyType(d)`` made in the trace over a dict the trace holds: a live, read-only view.

A mappingproxy keeps no items of its own: every read goes to the mapping under it, so a change to the
dict after the proxy was made is seen through the proxy (``in``, ``[]``, ``get``, ``len``, iteration,
``keys()``/``values()``/``items()``). The variable therefore holds the dict's variable and answers
every read from it; stores into the proxy raise the TypeError Python raises. (A mappingproxy read from
the frame is :class:`~.lazy_dict.MappingProxyVariable`.)
"""

from __future__ import annotations

import collections
import operator
import types
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported, UserError
from . import operator_semantics as _operators
from .base import Variable
from .builtins import builtin
from .containers import DictVariable
from .dict_methods import VIEW_ATTRIBUTES
from .lazy_dict import MappingProxyVariable, ReadOnlyMappingMixin

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


#: The dict kinds whose reads the view can answer from the dict's variable: the builtin ones, whose
#: methods are the table's (a user subclass could override what the proxy calls; not modelled).
_VIEWABLE = frozenset({dict, collections.OrderedDict, collections.Counter, collections.defaultdict})


class LiveMappingProxyVariable(ReadOnlyMappingMixin, DictVariable):
    """A mappingproxy made in the trace over ``target`` (a dict the trace holds): its items are the
    dict's, read at the moment of each use; its methods are the dict's read-only ones, called on the
    dict (``keys()`` is a live view of the dict, as the proxy's is); stores raise TypeError."""

    only_methods = MappingProxyVariable.only_methods | {"copy"}  # copy() is the mapping's own copy()
    read_only = True

    def __init__(self, target: DictVariable) -> None:
        super().__init__({}, cls=types.MappingProxyType)
        self.target = target

    # The items are the dict's, whatever it holds now (a property, so a later change is seen).
    @property
    def items(self) -> dict[Any, Variable]:  # type: ignore[override]
        return self.target.items

    @items.setter
    def items(self, value: dict[Any, Variable]) -> None:
        pass  # DictVariable.__init__ sets an empty dict: the view has none of its own

    def lookup(self, key: Any) -> Variable | None:
        return self.target.lookup(key)

    def has_key(self, key: Any) -> bool:
        return self.target.has_key(key)

    def truth(self, tx: InstructionTranslator) -> bool:
        return self.target.truth(tx)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        return self.target.unpack(tx)

    def getitem(self, tx: InstructionTranslator, key: Variable) -> Variable:
        return self.target.getitem(tx, key)  # a defaultdict's __missing__ runs, as through the proxy

    def call_method(
        self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]
    ) -> Variable:
        if self.table_method(name) is None:
            return super().call_method(tx, name, args, kwargs)  # the AttributeError or break a dict gives
        return self.target.call_method(tx, name, args, kwargs)

    def is_python_constant(self) -> bool:
        return False  # folding would copy the items: the proxy must stay a view of the dict

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_callable(types.MappingProxyType)
        codegen.reconstruct(self.target)  # the dict's variable is rebuilt once: the proxy views that dict
        codegen.call(1)

    def describe(self) -> str:
        return f"mappingproxy of {len(self.target.items)}"

    def __repr__(self) -> str:
        return f"LiveMappingProxyVariable({self.target!r})"


@builtin(types.MappingProxyType)
def builtin_mappingproxy(tx, args, kwargs):
    """``types.MappingProxyType(d)`` over a dict the trace holds (made or read in the frame)."""
    if kwargs or len(args) != 1:
        return None
    (mapping,) = args
    if isinstance(mapping, DictVariable) and mapping.python_type() in _VIEWABLE:
        return LiveMappingProxyVariable(mapping)
    if isinstance(mapping, LiveMappingProxyVariable):
        return LiveMappingProxyVariable(mapping)  # a proxy of a proxy: reads go through both to the dict
    if isinstance(mapping, MappingProxyVariable):
        return None
    if issubclass(mapping.python_type(), (list, tuple, str, int, float, type(None))):
        message = f"mappingproxy() argument must be a mapping, not {mapping.python_type().__name__}"
        raise UserError("mappingproxy()", message, exc_type=TypeError, exc_args=(message,))
    raise Unsupported("creating a mappingproxy object", f"a mappingproxy over {mapping.describe()} is not modelled",
                      hint="create it outside the compiled function and pass it in")


#: Comparisons: a mappingproxy compares as the mapping under it (``proxy == d`` is ``d == d``).
_COMPARISONS = frozenset({operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge})


def _proxy_operators(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
    """``proxy | other`` is ``mapping | other`` (a new dict) and a comparison is the mapping's, as
    mappingproxy's C methods delegate; ``proxy |= other`` raises TypeError, as mappingproxy's own
    ``__ior__`` does (the proxied dict stays unchanged)."""
    if op is operator.ior and getattr(left, "read_only", False):
        message = "'|=' is not supported by mappingproxy; use '|' instead"
        raise UserError("mappingproxy |=", message, exc_type=TypeError, exc_args=(message,))
    if op is not operator.or_ and op not in _COMPARISONS:
        return None
    if not (isinstance(left, LiveMappingProxyVariable) or isinstance(right, LiveMappingProxyVariable)):
        return None
    left = left.target if isinstance(left, LiveMappingProxyVariable) else left
    right = right.target if isinstance(right, LiveMappingProxyVariable) else right
    return _operators.binary(tx, op, left, right)


_operators.CONTAINER_OPERATORS.append(_proxy_operators)


def _view_mapping(view: Variable) -> Variable | None:
    """``d.keys().mapping``: a read-only live proxy of the view's dict."""
    return LiveMappingProxyVariable(view.target) if view.target.python_type() in _VIEWABLE else None


VIEW_ATTRIBUTES["mapping"] = _view_mapping
