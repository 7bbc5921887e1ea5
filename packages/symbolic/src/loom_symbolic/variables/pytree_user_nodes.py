"""Classes a program registered with torch's pytrees (``register_dataclass``, ``register_pytree_node``) as nodes of
higher-order ops' arguments and results, as torch's pytrees (and torch.compile) take them: a checkpointed
function's or ``cond``'s result, ``map``'s ``xs``, ``vmap``'s and ``grad``'s arguments and results.

The node's own ``flatten_fn`` is traced on the object (its children and a constant context), and its
``unflatten_fn`` is traced to make the object again around new children. In a skeleton (the Python structure
torch's pytrees flatten, :func:`.higher_order.skeleton`) such an object stands as a :class:`UserNode`, itself a
pytree node of its class, context and children.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch.utils._pytree as pytree

from ..errors import Unsupported
from . import registry
from .constant import ConstantVariable
from .containers import DictVariable, ListVariable, TupleVariable, plain_sequence

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


class UserNode:
    """An object of a registered class in a skeleton: its class, the context its ``flatten_fn`` gave, its children."""

    def __init__(self, cls: type, context: Any, children: list[Any]) -> None:
        self.cls = cls
        self.context = context
        self.children = children


pytree.register_pytree_node(UserNode, lambda n: (list(n.children), (n.cls, n.context)),
                            lambda children, ctx: UserNode(ctx[0], ctx[1], list(children)))


def registered(value: Variable) -> bool:
    """Whether ``value`` is an object of a class the program registered with torch's pytrees (not one of the
    containers the translator flattens itself)."""
    try:
        cls = value.python_type()
    except Exception:
        return False
    return (isinstance(cls, type) and cls in pytree.SUPPORTED_NODES and cls is not UserNode
            and not issubclass(cls, (tuple, list, dict)) and cls.__module__ not in ("builtins", "collections")
            and not cls.__module__.startswith("torch"))


def flatten(tx: InstructionTranslator, value: Variable) -> tuple[list[Variable], Any]:
    """The children of registered ``value`` and its context (a constant), by its class's ``flatten_fn``, traced."""
    node = pytree.SUPPORTED_NODES[value.python_type()]
    out = registry.wrap(tx, node.flatten_fn, None).call(tx, [value], {})
    if not plain_sequence(out) or len(out.items) != 2 or not plain_sequence(out.items[0]):
        raise Unsupported(f"flattening {value.describe()}", "its flatten_fn did not return (children, context)")
    children, context = out.items
    if not context.is_python_constant():
        raise Unsupported(f"flattening {value.describe()}", "its flatten_fn's context is not a constant")
    return list(children.items), context.as_python_constant()


def unflatten(tx: InstructionTranslator, cls: type, children: list[Variable], context: Any) -> Variable:
    """An object of registered ``cls`` around ``children``, by its class's ``unflatten_fn``, traced."""
    node = pytree.SUPPORTED_NODES[cls]
    return registry.wrap(tx, node.unflatten_fn, None).call(tx, [ListVariable(list(children)),
                                                                _constant(context)], {})


def _constant(value: Any) -> Variable:
    """A context (constants in tuples, lists and dicts) as a variable."""
    if type(value) is tuple:
        return TupleVariable([_constant(v) for v in value])
    if type(value) is list:
        return ListVariable([_constant(v) for v in value])
    if type(value) is dict:
        return DictVariable({k: _constant(v) for k, v in value.items()})
    return ConstantVariable(value)

