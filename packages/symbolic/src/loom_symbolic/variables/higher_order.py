"""Higher-order operations: a function traced into a sub-graph, recorded as one higher-order op node.

``torch.utils.checkpoint.checkpoint(fn, *args)`` becomes, as under torch.compile,
``torch.ops.higher_order.tag_activation_checkpoint(<fn's sub-graph>, *inputs)``: ``fn`` is traced in
place like any inlined call (:func:`trace_body`), then its nodes are carved into a ``GraphModule``
attribute of the graph (:mod:`loom_symbolic.subgraphs`); every outer value it reads becomes an input.
The op's eager implementation checkpoints the sub-graph; AOTAutograd traces through it and tags its
nodes for recomputation, so the backward recomputes the region instead of saving its activations.

A body that does not trace into one graph, or changes Python state (it would run again in the
backward's recomputation), is one graph break at the call, naming the construct; the call then runs
as eager runs it.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch
from torch import fx

from .. import subgraphs
from ..errors import Unsupported
from ..fake_mode import share_fake_rule
from . import pytree_user_nodes
from .base import RealValueVariable, Variable
from .body_escapes import changed, contents, escaping_tensor
from .body_writes import writes_outside
from .constant import ConstantVariable, is_constant_value
from .containers import DictVariable, ListVariable, NamedTupleVariable, TupleVariable, plain_sequence
from .lazy_dict import LazyDictVariable
from .symbolic_scalars import SymbolicVariable
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


@dataclass
class Body:
    """A function traced into a sub-graph: the module, the outer nodes it reads, what it returned."""

    module: fx.GraphModule | None
    lifted: list[fx.Node]
    #: The results' tensors (and, for a body with ``scalars``, its ints and symbolic numbers).
    leaves: list[Variable]
    rebuild: Callable[[list[Variable]], Variable]
    #: What the function returned, as traced (its tensors are ``leaves``).
    result: Variable | None = None
    #: The examples of the body's own inputs (a ``map``'s slices), which its results must not alias either.
    own: list[Any] = field(default_factory=list)


def _flatten(result: Variable, what: str, scalars: bool = False,
             tx: InstructionTranslator | None = None) -> tuple[list[Variable], Callable[[list[Variable]], Variable]]:
    """The tensors ``result`` holds (a tensor, constants, tuples, named tuples and lists of them), and how to rebuild
    it around replacements of those tensors. ``scalars``: symbolic numbers and ints are leaves too (a
    loop's carried ints)."""
    if isinstance(result, TensorVariable) or (scalars and (
            isinstance(result, SymbolicVariable) or (result.is_python_constant()
                                                     and type(result.as_python_constant()) is int))):
        return [result], lambda leaves: leaves[0]
    if isinstance(result, ConstantVariable):
        return [], lambda leaves: result
    if plain_sequence(result) or pytree_named_tuple(result):
        parts = [_flatten(item, what, scalars, tx) for item in result.items]
        counts = [len(p[0]) for p in parts]

        def rebuild(leaves: list[Variable]) -> Variable:
            items, at = [], 0
            for (_, make), n in zip(parts, counts):
                items.append(make(leaves[at:at + n]))
                at += n
            return NamedTupleVariable(items, result.cls) if pytree_named_tuple(result) else type(result)(items)

        return [leaf for p in parts for leaf in p[0]], rebuild
    if type(result) in (DictVariable, LazyDictVariable) and result.cls is dict:  # in insertion order, as torch's pytrees
        keys = list(result.items)
        values, make = _flatten(TupleVariable([result.items[k] for k in keys]), what, scalars, tx)
        return values, lambda leaves: DictVariable(dict(zip(keys, make(leaves).items)))
    if tx is not None and pytree_user_nodes.registered(result):  # a class registered with torch's pytrees
        children, context = pytree_user_nodes.flatten(tx, result)
        values, make = _flatten(TupleVariable(children), what, scalars, tx)
        cls = result.python_type()
        return values, lambda leaves: pytree_user_nodes.unflatten(tx, cls, make(leaves).items, context)
    raise Unsupported(f"{what} returning {result.describe()}",
                      "its function must return tensors, constants, or tuples, lists and dicts of them")


def _named_tuple_class(cls: type) -> bool:
    """Whether torch's pytrees take ``cls`` as a node: a ``collections.namedtuple`` class or a torch structseq."""
    return issubclass(cls, tuple) and (hasattr(cls, "_fields") or cls.__module__ == "torch.return_types")


def pytree_named_tuple(value: Variable) -> bool:
    """Whether ``value`` is a named tuple (or torch structseq) made or read in the trace: a pytree node, its
    fields' values its children in order."""
    return isinstance(value, NamedTupleVariable) and value.real is None and _named_tuple_class(value.cls)


def skeleton(value: Variable, what: str, tx: InstructionTranslator | None = None) -> Any:
    """``value`` as a Python structure torch's pytrees flatten: containers as tuples, lists and dicts,
    tensors as their variables (leaves), constants as themselves."""
    if isinstance(value, TensorVariable):
        return value
    if plain_sequence(value):
        items = [skeleton(item, what, tx) for item in value.items]
        return tuple(items) if type(value) is TupleVariable else items
    if pytree_named_tuple(value):  # a real named tuple (or structseq) of the skeletons: a pytree node of torch's
        return value._build([skeleton(item, what, tx) for item in value.items])
    if type(value) in (DictVariable, LazyDictVariable) and value.cls is dict:
        return {key: skeleton(item, what, tx) for key, item in value.items.items()}
    if tx is not None and pytree_user_nodes.registered(value):
        children, context = pytree_user_nodes.flatten(tx, value)
        return pytree_user_nodes.UserNode(value.python_type(), context, [skeleton(c, what, tx) for c in children])
    if value.is_python_constant() and is_constant_value(value.as_python_constant()):
        return value.as_python_constant()
    raise Unsupported(f"{what} over {value.describe()}",
                      "a higher-order op's arguments and results must be tensors, constants, or tuples, lists and dicts "
                      "of them")


def as_variable(value: Any, tx: InstructionTranslator | None = None) -> Variable:
    """A Python structure with variables (or constants) at its leaves as one variable (``tx``: the translator that
    makes the objects of classes registered with torch's pytrees again, :mod:`.pytree_user_nodes`)."""
    if isinstance(value, Variable):
        return value
    if type(value) is tuple:
        return TupleVariable([as_variable(v, tx) for v in value])
    if isinstance(value, tuple) and _named_tuple_class(type(value)):
        return NamedTupleVariable([as_variable(v, tx) for v in value], type(value))
    if type(value) is list:
        return ListVariable([as_variable(v, tx) for v in value])
    if type(value) is dict:
        return DictVariable({k: as_variable(v, tx) for k, v in value.items()})
    if isinstance(value, pytree_user_nodes.UserNode) and tx is not None:
        return pytree_user_nodes.unflatten(tx, value.cls, [as_variable(c, tx) for c in value.children], value.context)
    if is_constant_value(value):
        return ConstantVariable(value)
    raise Unsupported(f"a result holding {type(value).__name__}", "the translator cannot model it")


def is_tensor_leaf(leaf: Any) -> bool:
    """Whether a leaf of a :func:`skeleton` is a tensor (variable)."""
    return isinstance(leaf, TensorVariable)


def fresh_input(tx: InstructionTranslator, like: torch.Tensor | int) -> Variable:
    """A sub-graph's own input shaped as ``like`` (a :func:`subgraphs.body_input` node, a fake of its own);
    for an int (a loop's carried int), a symbolic int over a fresh unbacked symbol, as torch.compile's."""
    output = tx.output
    if isinstance(like, (int, torch.SymInt)):
        return SymbolicVariable(output.graph.call_function(subgraphs.body_input, ()), output.loop_int())
    with output.fake_mode:
        example = torch.empty_strided(like.shape, like.stride(), dtype=like.dtype, device=like.device,
                                      requires_grad=like.requires_grad)
    return TensorVariable(output.graph.call_function(subgraphs.body_input, ()), example)


def trace_body(tx: InstructionTranslator, fn: Variable, args: list[Variable], kwargs: dict[str, Variable],
               what: str, own: list[torch.Tensor] = (), pack_own: Callable[[list[Variable]], list[Variable]] | None = None,
               single: bool = False, scalars: bool = False, plain_call: bool = False,
               effects_replayed: bool = False, writes: bool = False) -> Body:
    """Trace ``fn(*own_inputs, *args, **kwargs)`` in place, then carve what it recorded into a sub-graph
    whose placeholders are the fresh inputs shaped as ``own`` (``pack_own`` arranges them as arguments),
    then the outer values it read. ``single``: the sub-graph returns its one tensor, not a tuple.
    ``scalars``: it returns its ints and symbolic numbers too (:func:`_flatten`).
    ``plain_call``: the op is, in eager, just ``fn(*args, **kwargs)`` (``wrap``, without own inputs): a body
    that cannot be a sub-graph (it changes Python state, grad mode or a tensor in place, or returns other
    values) stays as traced, inlined in the outer graph, and the Body has no module (``result`` is the
    call's value). ``effects_replayed``: the op runs the function exactly once, as the trace did, so the
    Python state it changes is replayed after the graph like any other (``torch.func.grad``).
    ``writes``: the function may change tensors in place (``vmap`` of ``Tensor.acos_``: the op, running it once,
    writes the caller's tensors through its inputs, or the tensors it closes over, as eager does)."""
    output = tx.output
    region = subgraphs.mark(output.graph)
    mutations = output.side_effects.mutations
    state = (output.grad_enabled, len(output.autocast_regions), output.default_dtype)
    inputs = [fresh_input(tx, like) for like in own]
    held = contents(tx) if not effects_replayed else {}
    # a print in a plain call's body is made after the graph (variables/deferred_prints.py): a break would
    # take the whole op out of the graph; not in the body of any other op inside it
    outer_bodies = output.plain_call_bodies
    output.plain_call_bodies = outer_bodies + 1 if plain_call and not own else 0
    output.body_depth += 1
    try:
        packed = pack_own(list(inputs)) if pack_own is not None else list(inputs)
        result = fn.call(tx, [*packed, *args], dict(kwargs))
        if output.subclass_tensors:  # a sub-graph's inputs and results are plain tensors: the class would be lost
            raise Unsupported("a tensor subclass with a __torch_function__ in the trace",
                              "a body traced apart does not keep tensors' subclasses (variables.tensor_subclasses)")
    except Unsupported as exc:
        raise Unsupported(f"{what} of {fn.describe()}", f"its function does not trace into one graph ({exc.reason.what}: "
                          f"{exc.reason.why})", hint="the call runs as eager runs it") from exc
    finally:
        output.plain_call_bodies = outer_bodies
        output.body_depth -= 1
    try:
        _check_pure(tx, fn, what, output.side_effects.mutations if effects_replayed else mutations, state, region,
                    writes)
        if changed(tx, held):
            raise Unsupported(f"{what} of {fn.describe()}", "its function changes a list, dict, object or cell of its "
                              "caller, which a sub-graph cannot do", hint="move the change out of the function")
        leaves, rebuild = _flatten(result, what, scalars, tx)
    except Unsupported:
        if plain_call and not own:
            return Body(None, [], [], None, result)  # traced in place: the plain call's own trace
        raise
    nodes = region.nodes()
    if single and len(leaves) != 1:
        raise Unsupported(f"{what} of {fn.describe()}", "its function must return one tensor")
    carved = subgraphs.carve(region, [leaf.as_graph_arg() for leaf in leaves], [i.node for i in inputs], single,
                            output.submodules)
    subgraphs.erased_sizes(output.graph, set(nodes))
    return Body(carved.body, carved.lifted, leaves, rebuild, result, [i.example for i in inputs])


def _check_pure(tx: InstructionTranslator, fn: Variable, what: str, mutations: int, state: tuple,
                region: subgraphs.Region, writes: bool = False) -> None:
    """Raise unless the traced body left Python state, grad mode, autocast and tensors (unless ``writes``; its own
    tensors it may write: :mod:`.body_writes`) as they were, and kept none of its own tensors anywhere but in its
    results."""
    output = tx.output
    if escaping_tensor(tx, region.nodes()):
        raise Unsupported(f"{what} of {fn.describe()}", "its function stores a tensor it made outside itself (only "
                          "its results leave a sub-graph)", hint="return the tensor instead")
    if output.side_effects.mutations != mutations:
        raise Unsupported(f"{what} of {fn.describe()}", "its function changes Python state, which a sub-graph cannot do",
                          hint="move the change out of the function")
    if (output.grad_enabled, len(output.autocast_regions), output.default_dtype) != state:
        raise Unsupported(f"{what} of {fn.describe()}", "its function leaves grad mode, autocast or the default dtype "
                          "changed")
    if not writes and writes_outside(region.nodes(), output.graph):
        raise Unsupported(f"{what} of {fn.describe()}", "its function changes a tensor in place",
                          hint="use out-of-place ops inside it")


def shared_lifted(bodies: list[Body], own: int) -> tuple[list[fx.Node], list[fx.GraphModule]]:
    """One argument list for several bodies of one op (``cond``'s branches, a loop's test and step):
    the union of what they read, and each body taking all of it after its ``own`` inputs."""
    lifted: list[fx.Node] = []
    for body in bodies:
        lifted += [n for n in body.lifted if n not in lifted]
    return lifted, [subgraphs.with_lifted(subgraphs.Carved(b.module, b.lifted), own, lifted) for b in bodies]


def same_metadata(a: list[TensorVariable], b: list[TensorVariable]) -> bool:
    """Whether two lists of results agree in count, shapes, dtypes and devices."""
    return len(a) == len(b) and all(
        x.example.shape == y.example.shape and x.example.dtype == y.example.dtype and x.example.device == y.example.device
        for x, y in zip(a, b))


def record(tx: InstructionTranslator, op: Any, args: tuple, examples: list[Any],
           rebuild: Callable[[list[Variable]], Variable], kwargs: dict[str, Any] | None = None,
           draws: bool = False, writes: list[fx.Node] = ()) -> Variable:
    """Record ``op(*args, **kwargs)`` returning tensors shaped as ``examples`` (or symbolic numbers); the result
    rebuilt by ``rebuild``.
    ``draws``: the op draws random numbers (also found in the sub-graphs it calls): then it is kept even
    when its results are unused, as eager's call draws them. ``writes``: the argument nodes it changes in
    place (kept too, and seen by the storage guards of graph inputs)."""
    output = tx.output
    draws = draws or any(_draws(output.submodules.get(a.target)) for a in args
                         if isinstance(a, fx.Node) and a.op == "get_attr")
    share_fake_rule(op, type(output.fake_mode))
    node = output.graph.call_function(op, args, kwargs or {})
    node.meta["val"] = tuple(examples)
    node.meta["loom_location"] = tx.location()
    node.meta["mutates"] = bool(writes)
    if writes:
        node.meta["writes"] = list(writes)
    node.meta["draws"] = draws
    results: list[Variable] = []
    for i, example in enumerate(examples):
        item = output.graph.call_function(operator.getitem, (node, i))
        results.append(TensorVariable(item, example) if isinstance(example, torch.Tensor)
                       else SymbolicVariable(item, example))
    return rebuild(results)


def _draws(module: torch.nn.Module | None) -> bool:
    """Whether a sub-graph (or one nested in it) holds an op that draws random numbers."""
    return module is not None and any(
        node.meta.get("draws") for sub in module.modules() if isinstance(getattr(sub, "graph", None), fx.Graph)
        for node in sub.graph.nodes)


def require_constants(kwargs: dict[str, Variable], what: str) -> dict[str, Any]:
    """The values of keyword arguments that must be constants while tracing."""
    values = {}
    for name, variable in kwargs.items():
        if not variable.is_python_constant():
            raise Unsupported(f"{what} with {name}= computed at run time", f"{name} must be a constant")
        values[name] = variable.as_python_constant()
    return values


#: Higher-order functions by identity: each handler turns a call into graph nodes.
HANDLERS: dict[Any, Callable[..., Variable]] = {}


def higher_order(*functions: Any) -> Callable:
    """Register a handler ``(tx, args, kwargs) -> Variable`` for calls of ``functions``."""
    def register(handler: Callable[..., Variable]) -> Callable[..., Variable]:
        for fn in functions:
            if fn is not None:
                HANDLERS[fn] = handler
        return handler
    return register


def alias(function: Any, target: Any, before: Callable[[InstructionTranslator], None] | None = None) -> None:
    """Handle calls of ``function`` (a thin wrapper of ``target``, such as ``functorch.vmap`` of
    ``torch.vmap``) with ``target``'s handler: the arguments bound to ``function``'s own signature first
    (eager raises on others), then ``before(tx)`` (a deprecation warning), then ``target``'s call."""
    import inspect

    signature = inspect.signature(function)
    name = f"{function.__module__}.{function.__qualname__}"

    def handler(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise Unsupported(f"{name} with these arguments", str(exc)) from exc
        if before is not None:
            before(tx)
        return HANDLERS[target](tx, list(bound.args), dict(bound.kwargs))

    handler.__doc__ = f"``{name}``: handled as ``{getattr(target, '__qualname__', target)}``."
    HANDLERS[function] = handler


class HigherOrderFunctionVariable(RealValueVariable):
    """``torch.utils.checkpoint.checkpoint``, ``torch.cond``...: calls traced by their handler."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        refuse_under_function_mode(tx, self.describe())
        return HANDLERS[self.value](tx, args, kwargs)

    def describe(self) -> str:
        """The function's qualified name, as break reasons name it."""
        return f"{getattr(self.value, '__module__', '')}.{getattr(self.value, '__qualname__', self.value)}"


def refuse_under_function_mode(tx: InstructionTranslator, what: str) -> None:
    """A body traced apart (a sub-graph, a transform) under a TorchFunctionMode the trace pushed: a break, since
    eager hands the mode calls (the body's ops, the operator's own queries) the separate trace would not."""
    if tx.output.function_modes:
        raise Unsupported(f"{what} under a TorchFunctionMode entered in the trace",
                          "its body is traced apart, where the mode would not see the calls eager hands it",
                          hint="the call runs as ordinary Python, under the mode")

