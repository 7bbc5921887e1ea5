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

from typing import TYPE_CHECKING, Any

import torch

from .. import subgraphs
from ..errors import Unsupported
from . import autograd_function_arguments as _arguments
from . import autograd_function_outputs as _outputs
from . import containers as _containers
from .autograd_function_objects import bind_frame_objects
from .base import RealValueVariable, Variable
from .body_escapes import changed, contents, escaping_tensor, holds_graph_value
from .constant import ConstantVariable
from .registry import wrap
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


#: ``torch.autograd.Function.apply``: a classmethod; what ``MyFunction.apply`` binds when not overridden.
_APPLY = torch.autograd.Function.__dict__["apply"].__func__


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


def _last_node(tx: InstructionTranslator) -> Any:
    return next(reversed(tx.output.graph.nodes), None)


def _speculate(tx: InstructionTranslator, cls: type, cls_source: Any, args: list[Variable]) -> tuple[Variable, set, bool]:
    """Trace ``forward`` (and ``setup_context``) once, under no_grad as ``apply`` runs it, then drop what
    it recorded: the graph's node calls the real ``apply``, which also runs once on FakeTensors to size
    its outputs, so ``forward`` must be free of Python side effects outside the lists and dicts it is
    given (they would happen once more while tracing) and traceable.
    Returns what it returned, the nodes it recorded, and whether one of its ops changes a tensor in place
    (the node is then never removed)."""
    output = tx.output
    before = _last_node(tx)
    mutations = output.side_effects.mutations
    ctx = FunctionCtxVariable(cls, args, output.grad_enabled)
    klass = wrap(tx, cls, cls_source)
    forward = klass.var_getattr(tx, "forward")
    setup = cls.setup_context
    new_style = getattr(setup, "__func__", setup) is not torch.autograd.Function.setup_context
    grad_enabled = output.grad_enabled
    output.set_grad_enabled(tx, False)
    try:
        if new_style:
            result = forward.call(tx, list(args), {})
            klass.var_getattr(tx, "setup_context").call(tx, [ctx, _containers.TupleVariable(list(args)), result], {})
        else:
            result = forward.call(tx, [ctx, *args], {})
    finally:
        output.set_grad_enabled(tx, grad_enabled)
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
        if node.target is not torch._C._set_grad_enabled:
            mutates = mutates or bool(node.meta.get("mutates"))
        if node.op != "placeholder" and not node.users:
            output.graph.erase_node(node)
            erased.add(node)
    subgraphs.erased_sizes(output.graph, erased)  # sizes read while speculating are cached on their tensor
    return result, {node for node in recorded if node.op != "placeholder"}, mutates


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
        cls = self.cls
        args = _arguments.bind_keywords(cls, args, kwargs)
        _arguments.check(tx, cls, args)
        containers = _arguments.argument_containers(tx, cls, args)
        passed = [_arguments.snapshot(tx, arg) for arg in args]
        held = contents(tx)
        for container in _arguments.rebuilt_containers(tx, args):  # forward may fill these: the node hands them back
            held.pop(id(container), None)
        result, made, mutates = _speculate(tx, cls, self.cls_source, args)
        if changed(tx, held):
            raise Unsupported(f"{cls.__qualname__}.forward changes a list, dict or object of the trace it is not "
                              "given", "the node runs the real forward on the objects it is given",
                              hint="pass the list to apply")
        layout = _outputs.plan(result, containers, made)
        if not layout.paths:
            raise Unsupported(f"{cls.__qualname__}.forward returning no tensor", "the node would have no result")
        plain = layout.plain()
        target = _outputs.node_target(cls, tuple(position for position, _ in containers), None if plain else layout.paths)
        target, passed = bind_frame_objects(tx, target, passed, _arguments.graph_value)
        before = _last_node(tx)
        returned = tx.output.call_function(tx, target, passed, {})
        node = before.next if before is not None else next(iter(tx.output.graph.nodes))
        while node.op != "root" and node.target is not target:
            node = node.next
        if node.op != "root":
            node.meta["mutates"] = bool(node.meta.get("mutates")) or mutates
        values = layout.values(returned, plain)
        result = _outputs.rebuild(layout, values)
        if escaping_tensor(tx, list(made)) or holds_graph_value([result], made):
            raise Unsupported(f"{cls.__qualname__}.forward keeping a tensor it made outside its output",
                              "only its output and the lists and dicts it is given come back from the node",
                              hint="return the tensor instead")
        return result

    def describe(self) -> str:
        return f"{self.cls.__qualname__}.apply"
