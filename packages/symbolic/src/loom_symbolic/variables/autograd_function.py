"""``MyFunction.apply(...)`` of a custom ``torch.autograd.Function``: one graph node.

A Function's ``forward`` and ``backward`` are user code written against real autograd (``ctx``,
``save_for_backward``, ``needs_input_grad``, ``mark_dirty``, ``super()`` calls, ``once_differentiable``).
Rather than re-model autograd's context object, the translator records the call to the class's own
``apply`` as one ``call_function`` node: its result's metadata comes from running ``apply`` on
FakeTensors, the graph calls the real ``apply`` when it runs, so autograd builds the user's backward
node, as in eager. A backend built on AOTAutograd traces through that call: the forward's ATen ops land
in its forward graph, and the user's ``backward`` (run by autograd while the joint graph is traced)
in its backward graph, so gradients are the user's, not derivatives of the forward's ops.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

import torch

from .. import policy, subgraphs
from ..errors import Unsupported
from . import containers as _containers
from . import mappings as _mappings
from .autograd_function_objects import bind_frame_objects, is_frame_object
from .base import RealValueVariable, Variable
from .constant import ConstantVariable
from .registry import wrap
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


#: ``torch.autograd.Function.apply``: a classmethod; what ``MyFunction.apply`` binds when not overridden.
_APPLY = torch.autograd.Function.__dict__["apply"].__func__


#: Function class → the graph node's target calling its ``apply`` (one per class, so graphs compare equal).
_CALLERS: weakref.WeakKeyDictionary[type, Any] = weakref.WeakKeyDictionary()


def apply_caller(cls: type) -> Any:
    """A plain function calling ``cls.apply``: FX names a target by its module, and a bound ``apply``
    claims to live in ``torch.autograd.function``, which generated code would import it from."""
    caller = _CALLERS.get(cls)
    if caller is None:
        apply = cls.apply

        def caller(*args: Any) -> Any:
            # forward runs as in eager: not compiled as a frame of its own under the graph
            return policy.call_natively(apply, *args)

        caller.__name__ = caller.__qualname__ = f"{cls.__name__}_apply"
        caller.__doc__ = f"Calls {cls.__module__}.{cls.__qualname__}.apply."
        caller.loom_autograd_function = cls
        _CALLERS[cls] = caller
    return caller


def is_function_class(value: Any) -> bool:
    """A subclass of ``torch.autograd.Function`` whose ``apply`` is torch's own."""
    if not (isinstance(value, type) and issubclass(value, torch.autograd.Function)):
        return False
    if value is torch.autograd.Function:
        return False
    static = None
    for klass in value.__mro__:
        if "apply" in klass.__dict__:
            static = klass.__dict__["apply"]
            break
    return isinstance(static, classmethod) and static.__func__ is _APPLY


def is_bound_apply(value: Any) -> bool:
    """``MyFunction.apply`` read as a value (``gelu = MyFunction.apply``)."""
    return getattr(value, "__func__", None) is _APPLY and is_function_class(getattr(value, "__self__", None))


def _check_arguments(cls: type, args: list[Variable], kwargs: dict[str, Variable]) -> None:
    """``apply`` receives tensors and constants in the graph, and objects from the frame bound into the node
    (:mod:`.autograd_function_objects`); anything else (an object made while tracing) cannot be passed."""
    for arg in [*args, *kwargs.values()]:
        if not (_graph_value(arg) or is_frame_object(arg)):
            raise Unsupported(f"{cls.__qualname__}.apply() with {arg.describe()}",
                              "only tensors and constants are passed to a custom autograd Function in the graph")


def _graph_value(arg: Variable) -> bool:
    if isinstance(arg, TensorVariable):
        return True
    items = getattr(arg, "items", None)
    if isinstance(items, list) and type(arg).__name__ in ("TupleVariable", "ListVariable"):
        return all(_graph_value(item) for item in items)
    if isinstance(arg, _mappings.DictVariable) and arg.cls is dict:
        # a plain dict with str/int keys: FX passes it to the node as a dict of the values' graph args
        return all(type(k) in (str, int) and _graph_value(v) for k, v in items.items())
    try:
        arg.as_graph_arg()
    except Unsupported:
        return False
    return arg.is_python_constant() or type(arg).__name__ == "SymbolicVariable"


def _last_node(tx: InstructionTranslator) -> Any:
    return next(reversed(tx.output.graph.nodes), None)


def _speculate(tx: InstructionTranslator, cls: type, cls_source: Any, args: list[Variable]) -> bool:
    """Trace ``forward`` (and ``setup_context``) once, then drop what it recorded: the graph's node
    calls the real ``apply``, which also runs once on FakeTensors to size its outputs, so ``forward``
    must be free of Python side effects (they would happen once more while tracing) and traceable.
    Returns whether one of its ops changes a tensor in place (the node is then never removed)."""
    output = tx.output
    before = _last_node(tx)
    mutations = output.side_effects.mutations
    ctx = FunctionCtxVariable(cls, args, output.grad_enabled)
    klass = wrap(tx, cls, cls_source)
    forward = klass.var_getattr(tx, "forward")
    setup = cls.setup_context
    new_style = getattr(setup, "__func__", setup) is not torch.autograd.Function.setup_context
    if new_style:
        result = forward.call(tx, list(args), {})
        klass.var_getattr(tx, "setup_context").call(tx, [ctx, _containers.TupleVariable(list(args)), result], {})
    else:
        forward.call(tx, [ctx, *args], {})
    if output.side_effects.mutations != mutations:
        raise Unsupported(f"{cls.__qualname__}.forward changes Python state",
                          "it runs once more while tracing, which would repeat the change",
                          hint="move the change out of the autograd Function")
    recorded = []
    node = _last_node(tx)
    while node is not None and node is not before:
        recorded.append(node)
        node = node.prev if node.prev.op != "root" else None
    mutates = False
    erased = set()
    for node in recorded:  # newest first: users before what they use
        mutates = mutates or bool(node.meta.get("mutates"))
        if node.op != "placeholder" and not node.users:
            output.graph.erase_node(node)
            erased.add(node)
    subgraphs.erased_sizes(output.graph, erased)  # sizes read while speculating are cached on their tensor
    return mutates


class FunctionCtxVariable(Variable):
    """The ``ctx`` a Function's ``forward`` receives while it is speculated: attributes stored on it and
    autograd's bookkeeping calls are accepted (the real ``ctx`` gets them when the graph runs)."""

    _CALLS = frozenset({"save_for_backward", "save_for_forward", "mark_dirty", "mark_non_differentiable",
                        "set_materialize_grads"})

    def __init__(self, cls: type, args: list[Variable], grad_enabled: bool) -> None:
        self.cls = cls
        self.attrs: dict[str, Variable] = {}
        self.saved: list[Variable] = []
        self.needs_input_grad = tuple(
            grad_enabled and isinstance(a, TensorVariable) and bool(a.example.requires_grad) for a in args)

    def python_type(self) -> type:
        return self.cls._backward_cls

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in self.attrs:
            return self.attrs[name]
        if name in self._CALLS:
            return _CtxCallVariable(self, name)
        if name == "needs_input_grad":
            return _containers.TupleVariable([ConstantVariable(n) for n in self.needs_input_grad])
        if name in ("saved_tensors", "to_save"):
            return _containers.TupleVariable(list(self.saved))
        raise Unsupported(f"attribute {name!r} of a {self.cls.__qualname__} ctx", "not modelled")

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        self.attrs[name] = value

    def describe(self) -> str:
        return f"ctx of {self.cls.__qualname__}"


class _CtxCallVariable(Variable):
    def __init__(self, ctx: FunctionCtxVariable, name: str) -> None:
        self.ctx = ctx
        self.name = name

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if self.name == "save_for_backward":
            self.ctx.saved = list(args)
        return ConstantVariable(None)

    def describe(self) -> str:
        return f"ctx.{self.name}"


class AutogradFunctionApplyVariable(RealValueVariable):
    """``cls.apply`` for a custom autograd Function ``cls`` (``value`` is the bound ``apply``)."""

    def __init__(self, cls: type, source: Any = None, cls_source: Any = None) -> None:
        super().__init__(cls.apply, source)
        self.cls = cls
        #: How the class is reached from the frame: its ``forward`` is read through it (with guards).
        self.cls_source = cls_source

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if kwargs:
            raise Unsupported(f"{self.cls.__qualname__}.apply() with keyword arguments",
                              "autograd Functions take positional arguments only")
        _check_arguments(self.cls, args, kwargs)
        mutates = _speculate(tx, self.cls, self.cls_source, args)
        caller, passed = bind_frame_objects(tx, apply_caller(self.cls), args)
        result = tx.output.call_function(tx, caller, passed, kwargs)
        _last_node(tx).meta["mutates"] = mutates
        return result

    def describe(self) -> str:
        return f"{self.cls.__qualname__}.apply"
