"""``torch.func`` transforms in the graph: the function traced into a sub-graph, the transform recorded over it.

``torch.func.grad(f, argnums=1)(x, w)`` becomes ``call_transform(<TransformCall>, x, w, *lifted)``
(:mod:`loom_symbolic.func_calls`): ``f`` is traced in place on fresh inputs shaped as the function sees
its arguments (a slice along ``in_dims`` under ``vmap``; requiring grad under ``grad``), its nodes carved
into a body as for every higher-order op (:mod:`.higher_order`), and the real transform runs over that
body, at compile time on FakeTensors (giving the results' shapes, and eager's error where eager raises)
and at run time on the graph's tensors. The transform's options must be constants while tracing; nesting
works because a transform called inside a body is a node of that body.

Captured: ``grad``, ``grad_and_value``, ``vmap`` (in_dims, out_dims, randomness, chunk_size), ``jacrev``,
``jacfwd``, ``hessian``, ``jvp`` and ``vjp`` (its function called once or more: each call runs the
function's forward again, so a function drawing random numbers breaks there). A function that does not
trace into one graph, or that changes Python state, is one graph break at the call, which then runs as
eager runs it.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
from torch.utils._pytree import tree_flatten, tree_leaves, tree_unflatten

from loom_guards import Attr, Item

from .. import func_calls
from ..errors import Unsupported
from . import higher_order as _higher_order
from .base import Variable
from .constant import is_constant_value
from .containers import TupleVariable
from .higher_order import (
    as_variable,
    higher_order,
    is_tensor_leaf,
    record,
    require_constants,
    skeleton,
    trace_body,
)
from .registry import wrap
from .tensor import storage_key

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_func = torch.func

#: Transforms that differentiate in reverse mode: their function runs with grad mode on, whatever the
#: caller's (``grad`` "respects the inner torch.no_grad, not the outer one").
_REVERSE_MODE = frozenset(f for f in (_func.grad, _func.grad_and_value, _func.jacrev, _func.hessian, _func.vjp))


#: Transforms whose real call runs the function once (vmap: once over the whole batch, unless it is
#: chunked): the Python state the function changes is then replayed after the graph, as eager changes it
#: once. ``vjp`` and ``jvp`` are not among them: their function may run again per call of what they return.
_RUN_ONCE = frozenset(f for f in (_func.grad, _func.grad_and_value, _func.vmap, _func.jacrev, _func.jacfwd,
                                  _func.hessian))


def _examples(structure: Any) -> Any:
    """``structure`` with each tensor variable replaced by its FakeTensor."""
    leaves, spec = tree_flatten(structure)
    return tree_unflatten([leaf.example if is_tensor_leaf(leaf) else leaf for leaf in leaves], spec)


# -- one call of a transform ------------------------------------------------------------------------------
def call_transform(tx: InstructionTranslator, what: str, transform: Callable, invoke: Callable,
                   options: dict[str, Any], fn: Variable, call: Any, fn_args: tuple,
                   kwargs: dict[str, Variable], likes: Callable[[list[torch.Tensor]], list[torch.Tensor]],
                   body: Any = None) -> tuple[Variable, Any]:
    """Trace ``fn(*fn_args, **kwargs)`` into a body (unless ``body``, an earlier trace, is given) and record
    ``invoke(transform, <body>, options, call)``. ``call`` and ``fn_args`` are structures of tensor
    variables and constants (:func:`skeleton`); ``likes`` maps the examples of ``fn_args``' tensors to the
    examples the function sees. Returns the result as a variable and the body."""
    fn_template = func_calls.Template.of(fn_args, is_tensor_leaf)
    if body is None:
        body = _trace(tx, what, transform, fn, fn_template, fn_args, kwargs, likes, options)
    fn_out = func_calls.Template.of(skeleton(body.result, what, tx), is_tensor_leaf)
    call_template = func_calls.Template.of(call, is_tensor_leaf)
    tensors = call_template.tensors(call)
    module = func_calls.TransformCall(body.module, transform, invoke, options, call_template, fn_template, fn_out)
    output = tx.output
    lifted = [node.meta.get("val", node.meta.get("example_value")) for node in body.lifted]
    seeded, written = output.fake_mode.seeded_calls, len(output.fake_mode.written)
    result = output._run_fake(module.structured, [t.example for t in tensors] + lifted, {})
    draws = output.fake_mode.seeded_calls != seeded
    writes = _written(output.fake_mode.written[written:], [t.node for t in tensors] + list(body.lifted))
    result_template = func_calls.Template.of(result)
    examples = result_template.tensors(result)
    if writes and _views_of_written(examples, writes):
        # a result that is a view of a tensor the function wrote (vmap's out_dims moving the batch dimension):
        # the C backend's functionalized graph rebuilt it from another layout than eager's
        raise Unsupported(f"{what} of a function changing a tensor in place",
                          "its result is a view of the tensor it changes, not that tensor (out_dims other than in_dims)",
                          hint="return the changed tensor in the batch dimension it came in, or copy it")
    attr = output.add_submodule(module, f"func_{getattr(transform, '__name__', 'transform')}")
    variable = record(tx, func_calls.call_transform, (attr, *[t.node for t in tensors], *body.lifted), examples,
                      lambda leaves: as_variable(result_template.fill(leaves), tx), draws=draws, writes=writes)
    return variable, body


def _views_of_written(examples: list[Any], writes: list[Any]) -> bool:
    """Whether a result example shares the storage of a written argument without being that argument."""
    written = {id(node.meta.get("val")): storage_key(node.meta.get("val")) for node in writes}
    return any(isinstance(e, torch.Tensor) and id(e) not in written and storage_key(e) in written.values()
               for e in examples)


def _written(written: list[Any], arguments: list[Any]) -> list[Any]:
    """The argument nodes whose memory the transform's run wrote (``written``: the fakes it wrote)."""
    storages = {storage_key(tensor) for tensor in written} - {None}
    return [node for node in arguments if storage_key(node.meta.get("val")) in storages] if storages else []


def _trace(tx: InstructionTranslator, what: str, transform: Callable, fn: Variable, fn_template: Any,
           fn_args: tuple, kwargs: dict[str, Variable], likes: Callable, options: dict[str, Any]) -> Any:
    own = likes([t.example for t in fn_template.tensors(fn_args)])
    output = tx.output

    def pack(inputs: list[Variable]) -> list[Variable]:
        return list(as_variable(fn_template.fill(inputs), tx).items)

    grad_enabled = output.grad_enabled
    if transform in _REVERSE_MODE:
        output.grad_enabled = True
    output.transform_depth += 1
    try:
        once = transform in _RUN_ONCE and options.get("chunk_size") is None
        # vmap's function may change tensors in place: the transform writes the caller's tensors through its
        # inputs, or the ones it closes over (the node is marked as writing them, call_transform)
        return trace_body(tx, fn, [], kwargs, what, own=own, pack_own=pack, effects_replayed=once,
                          writes=transform is _func.vmap)
    finally:
        output.transform_depth -= 1
        output.grad_enabled = grad_enabled


def _with_grad(examples: list[torch.Tensor], marks: list[bool], fake_mode: Any) -> list[torch.Tensor]:
    """The examples, those marked (and of a dtype autograd differentiates) requiring grad."""
    with fake_mode:
        return [e.detach().requires_grad_(True) if mark and (e.is_floating_point() or e.is_complex()) else e
                for e, mark in zip(examples, marks)]


def _differentiated(args: tuple, argnums: Any) -> list[bool]:
    """Per tensor leaf of ``args``: whether it is under one of ``argnums``."""
    chosen = {argnums % len(args)} if isinstance(argnums, int) and args else {
        n % len(args) for n in argnums if isinstance(n, int)} if isinstance(argnums, tuple) and args else set()
    return [i in chosen for i, arg in enumerate(args) for leaf in tree_leaves(arg) if is_tensor_leaf(leaf)]


def _vmap_slices(tx: InstructionTranslator, args: tuple, in_dims: Any) -> Callable:
    """``likes`` for vmap: each mapped tensor sliced along its ``in_dim``, as vmap's function sees it."""
    from torch._functorch import vmap as _vmap_impl

    try:
        _, flat_in_dims, flat_args, _ = _vmap_impl._process_batched_inputs(in_dims, _examples(args), "vmap")
    except (ValueError, TypeError) as exc:  # eager raises it: the call runs as eager runs it
        raise Unsupported("torch.vmap with these in_dims", str(exc)) from exc
    dims = [d for d, a in zip(flat_in_dims, flat_args) if isinstance(a, torch.Tensor)]

    def likes(examples: list[torch.Tensor]) -> list[torch.Tensor]:
        with tx.output.fake_mode:
            return [e if d is None else _slice_like(e, d) for e, d in zip(examples, dims)]

    return likes


def _slice_like(example: torch.Tensor, dim: int) -> torch.Tensor:
    """What vmap's function sees of ``example`` mapped along ``dim``: a slice, also where the dimension is empty
    (vmap then runs the function once over no element, as ``associative_scan``'s recursion does)."""
    if example.shape[dim] != 0:
        return example.select(dim, 0)
    keep = [i for i in range(example.dim()) if i != dim % example.dim()]
    return example.new_empty_strided([example.shape[i] for i in keep], [example.stride(i) for i in keep])


#: Transforms whose transformed function is modelled (made, passed on, rebuilt by the rewritten code) but
#: whose call is one graph break, and why.
_NOT_CAPTURED = {
    _func.functionalize: "torch.compile traces it into its graph, but AOTAutograd then refuses that graph (under "
                         "aot_eager and inductor it raises 'x must not already be a functional tensor')",
}


# -- the variables ----------------------------------------------------------------------------------------
class TransformedFunctionVariable(Variable):
    """``torch.func.grad(f, ...)`` and the like, made in the trace: calling it records the transform."""

    def __init__(self, transform: Callable, fn: Variable, options: dict[str, Any]) -> None:
        self.transform = transform
        self.fn = fn
        self.options = options

    def python_type(self) -> type:
        return types.FunctionType

    def describe(self) -> str:
        return f"torch.func.{self.transform.__name__}({self.fn.describe()})"

    def reconstruct(self, codegen: Any) -> None:
        """``transform(fn, **options)``, made again by the rewritten code (the graph broke near it)."""
        names = tuple(self.options)

        def load_args() -> None:
            codegen.reconstruct(self.fn)
            for name in names:
                codegen.load_const(self.options[name])

        codegen.load_callable(self.transform)
        load_args()
        codegen.call_kw(1 + len(names), names)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        what = f"torch.func.{self.transform.__name__}"
        _higher_order.refuse_under_function_mode(tx, f"a call of {self.describe()}")
        if self.transform in _NOT_CAPTURED:
            raise Unsupported(f"a call of {self.describe()}", f"{what} is not captured: {_NOT_CAPTURED[self.transform]}",
                              hint="the call runs as eager runs it")
        fn_args = tuple(skeleton(a, what, tx) for a in args)
        if self.transform is _func.vmap:
            likes = _vmap_slices(tx, fn_args, self.options.get("in_dims", 0))
        elif "argnums" in self.options and self.transform is not _func.jacfwd:
            marks = _differentiated(fn_args, self.options["argnums"])
            likes = lambda examples: _with_grad(examples, marks, tx.output.fake_mode)  # noqa: E731
        else:
            likes = list
        variable, _ = call_transform(tx, what, self.transform, func_calls.call_transformed, self.options, self.fn,
                                     fn_args, fn_args, kwargs, likes)
        return variable


class VjpFunctionVariable(Variable):
    """The function ``torch.func.vjp`` returns: each call records ``vjp(f, *primals)[1](*cotangents)``
    over the body traced for the ``vjp`` call."""

    def __init__(self, body: Any, fn: Variable, primals: tuple, options: dict[str, Any]) -> None:
        self.body = body
        self.fn = fn
        self.primals = primals
        self.options = options

    def python_type(self) -> type:
        return types.FunctionType

    def describe(self) -> str:
        return f"the vjp function of {self.fn.describe()}"

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        what = "torch.func.vjp's function"
        _higher_order.refuse_under_function_mode(tx, what)
        if kwargs:
            raise Unsupported(f"{what} with keyword arguments", "it takes the cotangents only")
        if any(node.meta.get("draws") for node in self.body.module.graph.nodes):
            raise Unsupported(f"{what} of {self.fn.describe()}", "calling it runs the function again, and the "
                              "function draws random numbers, which would differ from the forward's")
        cotangents = tuple(skeleton(a, what, tx) for a in args)
        variable, _ = call_transform(tx, what, _func.vjp, func_calls.call_vjp_function, self.options, self.fn,
                                     (self.primals, cotangents), self.primals, {}, list, body=self.body)
        return variable


# -- the handlers -------------------------------------------------------------------------------------------
def _bind(factory: Callable, args: list[Variable], kwargs: dict[str, Variable], what: str) -> inspect.BoundArguments:
    try:
        return inspect.signature(factory).bind(*args, **kwargs)
    except TypeError as exc:
        raise Unsupported(f"{what} with these arguments", str(exc)) from exc


def _transformed_handler(factory: Callable) -> Callable:
    def make(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        what = f"torch.func.{factory.__name__}"
        bound = _bind(factory, args, kwargs, what)
        fn, *_ = bound.args
        options = require_constants({k: v for k, v in bound.arguments.items() if k != "func"}, what)
        return TransformedFunctionVariable(factory, fn, options)

    make.__doc__ = f"``torch.func.{factory.__name__}(func, ...)``: a function whose calls record the transform."
    return make


for _factory in (_func.grad, _func.grad_and_value, _func.vmap, _func.jacrev, _func.jacfwd, _func.hessian,
                 _func.functionalize):
    higher_order(_factory)(_transformed_handler(_factory))


@higher_order(_func.jvp)
def jvp(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``torch.func.jvp(func, primals, tangents, ...)``: the outputs and their tangents."""
    what = "torch.func.jvp"
    bound = _bind(_func.jvp, args, kwargs, what)
    options = require_constants({k: v for k, v in bound.arguments.items()
                                 if k not in ("func", "primals", "tangents")}, what)
    primals, tangents = skeleton(bound.arguments["primals"], what, tx), skeleton(bound.arguments["tangents"], what, tx)
    if type(primals) is not tuple or type(tangents) is not tuple:
        raise Unsupported(f"{what} with primals or tangents that are not tuples", "torch.func.jvp raises on them")
    variable, _ = call_transform(tx, what, _func.jvp, func_calls.call_on_primals, options, bound.arguments["func"],
                                 (primals, tangents), primals, {}, list)
    return variable


@higher_order(_func.vjp)
def vjp(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``torch.func.vjp(func, *primals, has_aux=False)``: the outputs, the vjp function (and aux)."""
    what = "torch.func.vjp"
    if not args:
        raise Unsupported(f"{what}() without a function", "expected vjp(func, *primals)")
    options = require_constants(kwargs, what)
    if set(options) - {"has_aux"}:
        raise Unsupported(f"{what} with keyword arguments {sorted(options)}", "it takes has_aux only")
    fn, primals = args[0], tuple(skeleton(a, what, tx) for a in args[1:])
    marks = [True] * sum(1 for leaf in tree_leaves(primals) if is_tensor_leaf(leaf))
    result, body = call_transform(tx, what, _func.vjp, func_calls.call_vjp_output, options, fn, primals, primals, {},
                                  lambda examples: _with_grad(examples, marks, tx.output.fake_mode))
    items = list(result.items)
    return TupleVariable([items[0], VjpFunctionVariable(body, fn, primals, options), *items[1:]])


# -- transformed functions made outside the trace -----------------------------------------------------------
def _wrapper_code(factory: Callable) -> types.CodeType | None:
    made = factory(lambda x: x)
    code = getattr(made, "__code__", None)
    return code if isinstance(code, types.CodeType) else None


#: The code of the function each factory returns (``grad``'s ``wrapper``): a real ``torch.func.grad(f)``
#: read from the frame is recognised by it, its function and options read from its closure.
_WRAPPER_CODES: dict[types.CodeType, Callable] = {
    code: factory for factory in (_func.grad, _func.grad_and_value, _func.vmap, _func.jacrev, _func.jacfwd)
    if (code := _wrapper_code(factory)) is not None
}


def is_transformed_function(value: Any) -> bool:
    """Whether ``value`` is a function a ``torch.func`` transform made (``torch.func.grad(f)``)."""
    return isinstance(value, types.FunctionType) and value.__code__ in _WRAPPER_CODES and value.__closure__ is not None


def wrap_transformed_function(tx: InstructionTranslator, value: types.FunctionType, source: Any) -> Variable:
    """A real ``torch.func.grad(f, ...)`` (its identity guarded by the caller): ``f`` and the options
    from its closure, ``f`` reached through ``__wrapped__`` or the closure cell."""
    factory = _WRAPPER_CODES[value.__code__]
    cells = dict(zip(value.__code__.co_freevars, value.__closure__))
    fn = cells["func"].cell_contents
    if source is None:
        fn_source = None
    elif getattr(value, "__wrapped__", None) is fn:
        fn_source = Attr(source, "__wrapped__")
    else:
        index = value.__code__.co_freevars.index("func")
        fn_source = Attr(Item(Attr(source, "__closure__"), index), "cell_contents")
    names = [n for n in inspect.signature(factory).parameters if n != "func" and n in cells]
    options = {n: cells[n].cell_contents for n in names}
    if not all(is_constant_value(v) or isinstance(v, tuple) for v in options.values()):
        raise Unsupported(f"torch.func.{factory.__name__}(...) with options that are not constants",
                          "the transform's options must be constants")
    return TransformedFunctionVariable(factory, wrap(tx, fn, fn_source), options)
