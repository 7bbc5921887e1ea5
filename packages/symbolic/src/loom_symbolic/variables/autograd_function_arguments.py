"""The arguments of a custom autograd Function's ``apply`` as the graph's node passes them.

An argument is a graph value (a tensor, a constant, a symbolic number, or a tuple, list or dict of them: FX
passes it, its lists and dicts built afresh for each call), an object the frame reached (bound into the
node's target, :mod:`.autograd_function_objects`), or a tuple, list or dict made in the trace holding such
objects (``(self.a, self.b)``: rebuilt around them for each call). Keyword arguments are bound to positions
as ``apply`` binds them: through ``inspect.signature`` of ``forward`` with its defaults for a Function with
``setup_context``, by the names in ``forward``'s code (the C++ ``apply``'s rule: no defaults filled, no gaps)
for one without.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from . import containers as _containers
from . import mappings as _mappings
from .autograd_function_objects import NO_OBJECT, frame_object
from .base import Variable
from .constant import ConstantVariable, is_constant_value
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def graph_value(arg: Variable) -> bool:
    """Whether the node can pass ``arg`` as a graph argument: a tensor, a constant, a symbolic number, or a plain
    tuple, list or dict (str or int keys) of them."""
    if isinstance(arg, TensorVariable):
        return True
    items = getattr(arg, "items", None)
    if isinstance(items, list) and type(arg).__name__ in ("TupleVariable", "ListVariable"):
        return all(graph_value(item) for item in items)
    if isinstance(arg, _mappings.DictVariable) and arg.cls is dict:
        # a plain dict with str/int keys: FX passes it to the node as a dict of the values' graph args
        return all(type(k) in (str, int) and graph_value(v) for k, v in items.items())
    try:
        arg.as_graph_arg()
    except Unsupported:
        return False
    return arg.is_python_constant() or type(arg).__name__ == "SymbolicVariable"


def _plain_container(value: Variable) -> bool:
    if _containers.plain_sequence(value):
        return True
    return type(value) is _mappings.DictVariable and value.cls is dict and all(type(k) in (str, int) for k in value.items)


def _rebuilt(tx: InstructionTranslator, value: Variable) -> bool:
    """Whether the node builds ``value`` afresh for each call: a plain container that is a graph value, or one
    made in the trace (no object of the frame to bind) holding objects of the frame."""
    return _plain_container(value) and (graph_value(value) or frame_object(tx, value) is NO_OBJECT)


def _items(value: Variable) -> list[Variable]:
    items = value.items
    return list(items.values()) if isinstance(items, dict) else list(items)


def check(tx: InstructionTranslator, cls: type, args: list[Variable]) -> None:
    """Raise unless each argument is one the node can pass (see the module's docstring); an object made
    while tracing cannot be."""
    def passable(arg: Variable) -> bool:
        if graph_value(arg) or frame_object(tx, arg) is not NO_OBJECT:
            return True
        return _plain_container(arg) and all(passable(item) for item in _items(arg))

    for arg in args:
        if not passable(arg):
            raise Unsupported(f"{cls.__qualname__}.apply() with {arg.describe()}",
                              "only tensors and constants are passed to a custom autograd Function in the graph")


def rebuilt_containers(tx: InstructionTranslator, values: list[Variable]) -> list[Variable]:
    """The containers among ``values`` and in them that the node builds afresh, each time one is met (the
    containers of arguments hold no cycles: :func:`check` passed them)."""
    found, pending = [], [v for v in values if _rebuilt(tx, v)]
    while pending:
        value = pending.pop()
        found.append(value)
        pending += [item for item in _items(value) if _rebuilt(tx, item)]
    return found


def argument_containers(tx: InstructionTranslator, cls: type, args: list[Variable]) -> list[tuple[int, Variable]]:
    """The arguments the node builds afresh, with their positions: ``forward`` may fill their lists and dicts
    (:mod:`.autograd_function_outputs`). A list or dict made in the trace passed twice would be two objects to
    ``forward`` at run time, and one while speculated: refused."""
    seen: set[int] = set()
    for value in rebuilt_containers(tx, args):
        if type(value) is not _containers.TupleVariable and value.source is None:
            if id(value) in seen:
                raise Unsupported(f"{cls.__qualname__}.apply() given one {value.describe()} twice",
                                  "the node passes each as a copy of its own")
            seen.add(id(value))
    return [(i, arg) for i, arg in enumerate(args) if _rebuilt(tx, arg)]


def snapshot(tx: InstructionTranslator, value: Variable) -> Variable:
    """``value`` as the node receives it: the containers it builds copied now, before ``forward`` (speculated
    next) fills the trace's own."""
    if not _rebuilt(tx, value):
        return value
    if type(value) is _mappings.DictVariable:
        return _mappings.DictVariable({key: snapshot(tx, item) for key, item in value.items.items()})
    return type(value)([snapshot(tx, item) for item in value.items])


def bind_keywords(cls: type, args: list[Variable], kwargs: dict[str, Variable]) -> list[Variable]:
    """``apply``'s arguments as positions, bound as ``apply`` binds them (see the module's docstring); a call
    eager refuses (a missing or unknown name) is a break, so that it raises as eager does."""
    forward = cls.forward
    setup = cls.setup_context
    if getattr(setup, "__func__", setup) is not torch.autograd.Function.setup_context:
        try:
            bound = inspect.signature(forward).bind(*args, **kwargs)
        except (TypeError, ValueError) as exc:
            raise Unsupported(f"{cls.__qualname__}.apply() with these arguments", str(exc)) from exc
        bound.apply_defaults()
        if bound.kwargs:
            raise Unsupported(f"{cls.__qualname__}.apply() with keyword-only arguments",
                              "apply passes forward its positional arguments only")
        return [_as_variable(cls, value) for value in bound.args]
    if not kwargs:
        return list(args)
    code = getattr(forward, "__code__", None)
    if not inspect.isfunction(forward) or code is None or code.co_flags & inspect.CO_VARARGS:
        raise Unsupported(f"{cls.__qualname__}.apply() with keyword arguments",
                          "forward is no plain function of fixed positions")
    names = code.co_varnames[1:code.co_argcount]  # after ctx
    positions = {}
    for name, value in kwargs.items():
        if name not in names or names.index(name) < len(args):
            raise Unsupported(f"{cls.__qualname__}.apply() with keyword {name!r}",
                              "apply refuses it (unknown, or given by position too)")
        positions[names.index(name)] = value
    filled = list(args)
    for position in range(len(args), max(positions) + 1):
        if position not in positions:
            raise Unsupported(f"{cls.__qualname__}.apply() missing {names[position]!r}",
                              "apply fills no default before a keyword argument")
        filled.append(positions[position])
    return filled


def _as_variable(cls: type, value: Any) -> Variable:
    """A default ``apply`` filled in: a constant (another default would be an object outside the trace)."""
    if isinstance(value, Variable):
        return value
    if is_constant_value(value):
        return ConstantVariable(value)
    raise Unsupported(f"{cls.__qualname__}.forward with a default of type {type(value).__name__}",
                      "only constant defaults are filled in")
