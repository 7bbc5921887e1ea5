"""``hints_wrapper`` and ``nested_compile_region``: a function traced into a sub-graph (:mod:`.higher_order`)
called once, recorded as the higher-order op torch.compile records.

- ``hints_wrapper(body_fn, args, kwargs, hints=...)`` → ``hints_wrapper(<body>, (*inputs,), {}, hints=...)``:
  the hints (constants) go to the op as they are, for a backend that reads them.
- A function marked by ``torch.compiler.nested_compile_region`` (``mark_compile_region``), called →
  ``invoke_subgraph(<body>, identifier, *inputs)``, each call with a body and identifier of its own (torch.compile
  shares one between calls tracing alike; with the c backend, a shared identifier gave wrong gradients).

``hints_wrapper`` is no plain call in eager (it has no autograd: over a tensor requiring grad its results do not
require grad, so such a call breaks): a function that does not trace into one sub-graph (it changes a tensor in
place, or returns a tensor sharing memory with its inputs) is one graph break at the call, which then runs as
eager runs it. A ``nested_compile_region`` function is a plain call in eager: one that cannot be a sub-graph (it
prints, changes a buffer in place), or called inside a ``torch.func`` transform's body (which has no rule for the
op), is traced inline as that call; one returning a tensor sharing memory with its inputs breaks. Each op runs its
function once, as the trace does: the Python state the function changes (a list it appends to) is changed after
the graph like any other traced change. Arguments eager refuses raise as eager raises.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from .base import Variable
from .constant import ConstantVariable
from .containers import DictVariable, plain_sequence
from .exception_values import ExceptionVariable, SymbolicException, raised
from .higher_order import (
    HANDLERS,
    higher_order,
    record,
    refuse_under_function_mode,
    require_constants,
    trace_body,
)
from .symbolic_scalars import SymbolicVariable
from .tensor import TensorVariable, storage_key

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_HINTS = sys.modules["torch._higher_order_ops.hints_wrap"]
_INVOKE = sys.modules["torch._higher_order_ops.invoke_subgraph"]


def _pure_body(tx: InstructionTranslator, fn: Variable, args: list[Variable], kwargs: dict[str, Variable],
               what: str, plain_call: bool = False) -> Any:
    """``fn(*args, **kwargs)`` traced into a sub-graph returning new tensors (else a break at the call). Both ops
    run their function exactly once, as the trace did: the Python state it changes is replayed after the graph.
    ``plain_call``: the op is a plain call in eager, so a body that cannot be a sub-graph stays inlined (the
    Body has no module)."""
    body = trace_body(tx, fn, args, kwargs, what, effects_replayed=True, plain_call=plain_call)
    if body.module is None:
        return body
    read = {storage_key(node.meta.get("val", node.meta.get("example_value"))) for node in body.lifted} - {None}
    seen: set[Any] = set()
    for leaf in body.leaves:
        storage = storage_key(leaf.example) if isinstance(leaf, TensorVariable) else None
        if storage is not None and (storage in read or storage in seen):
            raise Unsupported(f"{what} of a function returning a tensor that shares memory with its inputs or "
                              "another result", "the op's results must be new tensors (AOTAutograd refuses aliases)",
                              hint="return a copy (.clone())")
        seen.add(storage)
    return body


def _raise(tx: InstructionTranslator, message: str) -> None:
    """Raise in the trace the RuntimeError eager's op raises on its arguments."""
    raise SymbolicException(raised(tx, ExceptionVariable(RuntimeError, [ConstantVariable(message)])))


def _is_empty_dict(variable: Variable) -> bool:
    if type(variable) is DictVariable:
        return not variable.items
    return variable.is_python_constant() and variable.as_python_constant() == {}


@higher_order(_HINTS.hints_wrapper)
def hints_wrapper(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``hints_wrapper(body_fn, args, kwargs, hints=...)``: ``body_fn(*args)`` as one sub-graph."""
    what = "hints_wrapper"
    if len(args) != 3 or set(kwargs) != {"hints"}:
        raise Unsupported(f"{what}() with these arguments", "expected hints_wrapper(body_fn, args, kwargs, hints=...)")
    fn, operands, fn_kwargs = args
    if plain_sequence(operands):
        items = list(operands.items)
    elif operands.is_python_constant() and operands.as_python_constant() in ((), []):
        items = []
    else:
        raise Unsupported(f"{what} with {operands.describe()} as its args", "expected a tuple or list")
    for item in items:
        if not (isinstance(item, (TensorVariable, SymbolicVariable)) or (
                item.is_python_constant() and type(item.as_python_constant()) in (int, float, bool))):
            raise Unsupported(f"{what} with {item.describe()} among its args",
                              "eager raises on args other than tensors, ints, floats and bools")
    if not _is_empty_dict(fn_kwargs):
        if not fn_kwargs.is_python_constant():
            raise Unsupported(f"{what} with keyword arguments for its function", "eager raises on them")
        given = fn_kwargs.as_python_constant()
        _raise(tx, f"kwargs must be a dict, got {type(given)}" if not isinstance(given, dict) else
               f"kwargs except for hints are not supported, got {given}")
    hints = require_constants(kwargs, what)["hints"]
    if not isinstance(hints, dict):
        _raise(tx, f"hints must be a dict, got {type(hints)}")
    for key, value in hints.items():
        if not isinstance(key, str):
            _raise(tx, f"hints key must be a str, got {key}.")
        if not isinstance(value, (int, float, bool, str)):
            _raise(tx, f"hints must be a dict containing int, float, bool or str value, got value {value} for key {key}.")
    body = _pure_body(tx, fn, items, {}, what)
    if tx.output.grad_enabled and any(getattr(n.meta.get("val", n.meta.get("example_value")), "requires_grad", False)
                                      for n in body.lifted):
        # eager's op has no autograd: its results do not require grad (torch.compile's do, or raise)
        raise Unsupported(f"{what} over a tensor requiring grad", "eager's results then do not require grad, "
                          "which the recorded op cannot mimic", hint="the call runs as eager runs it")
    attr = tx.output.add_submodule(body.module, "hints_wrapper_body")
    return record(tx, _HINTS.hints_wrapper, (attr, tuple(body.lifted), {}), [leaf.example for leaf in body.leaves],
                  body.rebuild, {"hints": hints})


# -- nested_compile_region -----------------------------------------------------------------------------------
def _invoke(tx: InstructionTranslator, fn: Variable, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    what = "a nested_compile_region function"
    if tx.output.transform_depth:  # inside a torch.func transform's body, which has no rule for the op
        return fn.call(tx, args, kwargs)  # eager's call: the marking is a no-op there
    # eager calls the function as it is: a body that cannot be a sub-graph (it prints, or changes a buffer in
    # place) is traced inline, as that call
    body = _pure_body(tx, fn, args, kwargs, what, plain_call=True)
    if body.module is None:
        return body.result
    # each call its own body and identifier: torch.compile shares one between calls tracing alike, but the c
    # backend's backward of two calls sharing an identifier gave wrong gradients
    attr = tx.output.add_submodule(body.module, "subgraph")
    name = attr.target
    return record(tx, _INVOKE.invoke_subgraph, (attr, name, *body.lifted), [leaf.example for leaf in body.leaves],
                  body.rebuild)


@higher_order(_INVOKE.invoke_subgraph_placeholder)
def invoke_subgraph_placeholder(tx: InstructionTranslator, args: list[Variable],
                                kwargs: dict[str, Variable]) -> Variable:
    """``invoke_subgraph_placeholder(fn, *args, **kwargs)`` (the call a marked function makes)."""
    if not args:
        raise Unsupported("invoke_subgraph_placeholder() without a function", "expected a function")
    return _invoke(tx, args[0], list(args[1:]), kwargs)


class CompileRegionVariable(Variable):
    """A function marked by ``nested_compile_region`` while tracing: its calls record ``invoke_subgraph``."""

    def __init__(self, fn: Variable, options: dict[str, Any], factory: Any) -> None:
        self.fn = fn
        self.options = options
        self.factory = factory

    def python_type(self) -> type:
        return types.FunctionType

    def describe(self) -> str:
        return f"nested_compile_region({self.fn.describe()})"

    def reconstruct(self, codegen: Any) -> None:
        """``nested_compile_region(fn, **options)`` made again by the rewritten code (eager: a no-op wrapper)."""
        names = tuple(self.options)
        codegen.load_callable(self.factory)
        codegen.reconstruct(self.fn)
        for name in names:
            codegen.load_const(self.options[name])
        codegen.call_kw(1 + len(names), names)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        refuse_under_function_mode(tx, f"a call of {self.describe()}")
        fn = self.fn.fn if isinstance(self.fn, CompileRegionVariable) else self.fn  # the innermost function
        return _invoke(tx, fn, args, kwargs)


def _region_handler(factory: Any) -> Any:
    def mark(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if len(args) != 1:
            raise Unsupported(f"{factory.__qualname__}() without a function",
                              "only its use as a decorator on a function is modelled")
        options = require_constants(kwargs, factory.__qualname__)
        if options.get("options") is not None or options.get("reuse_hash_fn") is not None:
            raise Unsupported(f"{factory.__qualname__} with options or reuse_hash_fn",
                              "only the plain marking is modelled")
        return CompileRegionVariable(args[0], options, factory)

    mark.__doc__ = f"``{factory.__qualname__}(fn)``: a function whose calls record ``invoke_subgraph``."
    return mark


for _factory in (torch.compiler.nested_compile_region, _INVOKE.mark_compile_region):
    HANDLERS[_factory] = _region_handler(_factory)
