"""``wrap``, ``torch.cond``, ``while_loop`` and ``map``: functions traced into sub-graphs
(:mod:`.higher_order`), recorded as the higher-order ops torch.compile records.

- ``wrap(fn, *args)`` → ``wrap(<body>, *inputs)``.
- ``torch.cond(pred, true_fn, false_fn, operands)`` with a tensor or symbolic ``pred`` →
  ``cond(pred, <true>, <false>, (*inputs,))``, both branches taking the union of what either reads;
  their results must agree in shapes and dtypes. A constant ``pred`` runs its branch inline (eager
  does nothing else).
- ``while_loop(cond_fn, body_fn, carried)`` → ``while_loop(<cond>, <body>, (*carried,), (*inputs,))``:
  both bodies take the carried values as their own inputs (fresh for the trace), then what they read.
  Carried values nested in tuples, lists and dicts are flat in the node, rebuilt for the functions; a
  body returning another structure breaks (its leaves alike would do for torch).
  Carried ints are symbolic ints over unbacked symbols, as torch.compile's (``i < n`` in ``cond_fn``).
- ``map(f, xs, *args)`` → ``map_impl(<f>, [*xs], [*inputs])``: ``f`` traced once on a slice; ``xs`` a tensor
  or a structure of them (tuples, lists, dicts), its tensors flat in the node, rebuilt for ``f``.

What eager refuses runs as Python, to raise as eager raises: operands that are not tensors, results that
are not tensors, results sharing memory with what the function takes or reads, or with each other.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import torch
import torch.utils._pytree as pytree
from torch._higher_order_ops.wrap import wrap as _wrap_op

from .. import shapes
from ..errors import Unsupported
from ..func_calls import Template
from .cond_merged_sizes import merged_sizes
from .containers import DictVariable, NamedTupleVariable, TupleVariable, plain_sequence
from .higher_order import (
    Body,
    as_variable,
    higher_order,
    is_tensor_leaf,
    pytree_named_tuple,
    record,
    same_metadata,
    shared_lifted,
    skeleton,
    trace_body,
)
from .symbolic_scalars import SymbolicVariable
from .tensor import TensorVariable, storage_key

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_COND = sys.modules["torch._higher_order_ops.cond"]
_WHILE = sys.modules["torch._higher_order_ops.while_loop"]
_MAP = sys.modules["torch._higher_order_ops.map"]


def _bind(what: str, names: tuple[str, ...], args: list[Variable], kwargs: dict[str, Variable],
          optional: tuple[str, ...] = ()) -> dict[str, Variable]:
    bound = dict(zip(names, args))
    if len(args) > len(names) or set(kwargs) - set(names) or set(bound) & set(kwargs):
        raise Unsupported(f"{what}() with these arguments", f"expected {what}({', '.join(names)})")
    bound.update(kwargs)
    missing = [n for n in names if n not in bound and n not in optional]
    if missing:
        raise Unsupported(f"{what}() without {missing[0]}", f"expected {what}({', '.join(names)})")
    return bound


def _items(variable: Variable, what: str) -> list[Variable]:
    if plain_sequence(variable):
        return list(variable.items)
    # an empty tuple folds to a constant (``torch.cond(p, f, g, ())``); one of other constants eager refuses
    if variable.is_python_constant() and variable.as_python_constant() in ((), []):
        return []
    raise Unsupported(f"{what} with {variable.describe()} as its inputs", "expected a tuple or list")


def _tensor_leaves_only(operands: list[Variable], what: str) -> None:
    """Eager's ``torch.cond`` refuses operands with anything but tensors at their leaves (an int, a float, a
    string): the call then runs as Python, to raise as eager raises, rather than trace branches eager never runs."""
    if any(_holds_named_tuple(operand) for operand in operands):  # torch.compile's check (eager runs it) refuses them
        raise Unsupported(f"{what} with a named tuple among its operands",
                          "its operands may be only lists, tuples and dicts of tensors (eager raises on others)")
    for leaf in pytree.tree_leaves([skeleton(operand, what) for operand in operands]):
        if not is_tensor_leaf(leaf):
            raise Unsupported(f"{what} with {leaf!r} among its operands",
                              "its operands may hold only tensors (eager raises on anything else)")


def _holds_named_tuple(variable: Variable) -> bool:
    if pytree_named_tuple(variable):
        return True
    if plain_sequence(variable):
        return any(_holds_named_tuple(item) for item in variable.items)
    if type(variable) is DictVariable:
        return any(_holds_named_tuple(item) for item in variable.items.values())
    return False


def _only_tensors(body: Body, what: str, allow_none: bool = False) -> None:
    """Eager's ``torch.cond`` and ``map`` refuse a function returning anything but tensors (a float, a bool;
    ``None`` too, for ``cond``): such a call runs as Python, to raise as eager raises."""
    results = pytree.tree_leaves(skeleton(body.result, what))
    if not all(is_tensor_leaf(leaf) or (allow_none and leaf is None) for leaf in results):
        raise Unsupported(f"{what} of a function returning {body.result.describe()}",
                          "its function may return only tensors (eager raises on anything else)")


def _new_tensors(body: Body, what: str) -> None:
    """Eager's ``torch.cond``, ``map`` and ``while_loop`` refuse a function returning a tensor that shares memory
    with its inputs, a tensor it reads or another result (``t``, ``t.view(-1)``, ``(y, y)``, carried values
    swapped): such a call runs as Python, to raise as eager raises."""
    read = {storage_key(node.meta.get("example_value")) for node in body.lifted} | {storage_key(t) for t in body.own}
    seen: set[int | None] = set()
    for leaf in body.leaves:
        storage = storage_key(leaf.example)
        if storage is not None and (storage in read or storage in seen):
            raise Unsupported(f"{what} of a function returning a tensor that shares memory with its inputs or "
                              "another result", "eager raises on it: the function's results must be new tensors")
        seen.add(storage)


@higher_order(_wrap_op)
def wrap(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``wrap(fn, *args, **kwargs)``: ``fn``'s sub-graph called once; a function changing Python state (or
    grad mode, or a tensor in place) is traced as the plain call eager's wrap makes."""
    if not args:
        raise Unsupported("wrap() without a function", "expected wrap(fn, *args)")
    body = trace_body(tx, args[0], list(args[1:]), kwargs, "wrap", plain_call=True)
    if body.module is None:  # not a pure sub-graph: eager's wrap is a plain call, and so is the trace
        return body.result
    attr = tx.output.add_submodule(body.module, "wrap_body")
    return record(tx, _wrap_op, (attr, *body.lifted), [leaf.example for leaf in body.leaves], body.rebuild)


@higher_order(torch.cond, _COND.cond, _COND.cond_op)
def cond(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``torch.cond(pred, true_fn, false_fn, operands)`` (or the op itself, ``cond_op``, called so)."""
    bound = _bind("torch.cond", ("pred", "true_fn", "false_fn", "operands"), args, kwargs, optional=("operands",))
    operands = _items(bound["operands"], "torch.cond") if "operands" in bound else []
    _tensor_leaves_only(operands, "torch.cond")
    pred = bound["pred"]
    if pred.is_python_constant():  # a Python bool: eager calls the branch, and so does the trace
        branch = bound["true_fn"] if pred.as_python_constant() else bound["false_fn"]
        return branch.call(tx, operands, {})
    if not isinstance(pred, (TensorVariable, SymbolicVariable)):
        raise Unsupported(f"torch.cond on {pred.describe()}", "pred must be a tensor, a bool or a symbolic bool")
    if isinstance(pred, TensorVariable) and pred.example.numel() != 1:
        raise Unsupported("torch.cond on a tensor of more than one element", "torch.cond raises on it")
    true_body = trace_body(tx, bound["true_fn"], operands, {}, "torch.cond")
    false_body = trace_body(tx, bound["false_fn"], operands, {}, "torch.cond")
    for body in (true_body, false_body):
        _only_tensors(body, "torch.cond")
        _new_tensors(body, "torch.cond")
    examples = [leaf.example for leaf in true_body.leaves]
    if not same_metadata(true_body.leaves, false_body.leaves):
        examples = merged_sizes(tx, true_body.leaves, false_body.leaves)
    lifted, (true_gm, false_gm) = shared_lifted([true_body, false_body], 0)
    output = tx.output
    node_args = (pred.node, output.add_submodule(true_gm, "cond_true"), output.add_submodule(false_gm, "cond_false"),
                 tuple(lifted))
    return record(tx, _COND.cond_op, node_args, examples, true_body.rebuild)


def _tree(variable: Variable) -> tuple[list[Variable], Any]:
    """The leaves of a structure of tuples, lists and dicts (in torch's pytree order), and its shape: None for a
    leaf, else the container's type, (a dict's keys,) and its items' shapes."""
    if plain_sequence(variable) or pytree_named_tuple(variable):
        parts = [_tree(item) for item in variable.items]
        kind = _named_maker(variable.cls) if pytree_named_tuple(variable) else type(variable)
        return [leaf for p in parts for leaf in p[0]], (kind, tuple(p[1] for p in parts))
    if type(variable) is DictVariable and variable.cls is dict:
        keys = list(variable.items)
        parts = [_tree(variable.items[k]) for k in keys]
        return [leaf for p in parts for leaf in p[0]], (DictVariable, tuple(keys), tuple(p[1] for p in parts))
    return [variable], None


@functools.cache
def _named_maker(cls: type) -> Callable[[list[Variable]], Variable]:
    """Makes a named tuple of ``cls`` around items: one object per class, so that two shapes compare equal."""
    return functools.partial(NamedTupleVariable, cls=cls)


def _rebuild(shape: Any, leaves: Iterator[Variable]) -> Variable:
    """A structure of :func:`_tree`'s ``shape`` around the next ``leaves``."""
    if shape is None:
        return next(leaves)
    if shape[0] is DictVariable:
        return DictVariable({key: _rebuild(sub, leaves) for key, sub in zip(shape[1], shape[2])})
    return shape[0]([_rebuild(sub, leaves) for sub in shape[1]])


def _carried(variables: list[Variable], what: str) -> list[Variable]:
    """A loop's carried values: tensors and ints (constants or symbolic), as torch's ``while_loop`` takes."""
    for v in variables:
        if not (isinstance(v, TensorVariable) or _is_int(v)):
            raise Unsupported(f"{what} carrying {v.describe()}",
                              "torch's while_loop carries tensors and ints only (eager raises on anything else; "
                              "torch.compile too)")
    return variables


def _is_int(v: Variable) -> bool:
    """Whether ``v`` is an int (not a bool): a constant, or a symbolic one."""
    if isinstance(v, SymbolicVariable):
        return type(v.example) is torch.SymInt
    return v.is_python_constant() and type(v.as_python_constant()) is int


def _is_predicate(v: Variable) -> bool:
    """Whether ``v`` is what ``cond_fn`` may return: a boolean one-element tensor or a symbolic bool."""
    if isinstance(v, SymbolicVariable):
        return type(v.example) is torch.SymBool
    return isinstance(v, TensorVariable) and v.example.dtype == torch.bool and v.example.numel() == 1


def _same_carried(results: list[Variable], carried: list[Variable]) -> bool:
    """Whether ``body_fn``'s results match the carried values: tensors of the same metadata, ints for ints."""
    return len(results) == len(carried) and all(
        same_metadata([r], [c]) if isinstance(c, TensorVariable) else _is_int(r) for r, c in zip(results, carried))


@higher_order(_WHILE.while_loop)
def while_loop(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``while_loop(cond_fn, body_fn, carried_inputs)``. A carried int is, in each body and in the result,
    a symbolic int over an unbacked symbol of its own, as torch.compile makes it: the loop's ints are
    computed in the graph, and a decision on one (a Python branch, a size) breaks."""
    what = "while_loop"
    bound = _bind(what, ("cond_fn", "body_fn", "carried_inputs"), args, kwargs)
    items = _items(bound["carried_inputs"], what)
    carried, structure = _tree(TupleVariable(items))  # nested tuples, lists and dicts: flat in the node
    carried = _carried(carried, what)
    likes = [c.example if isinstance(c, TensorVariable) else 0 for c in carried]

    def pack(inputs: list[Variable]) -> list[Variable]:
        return list(_rebuild(structure, iter(inputs)).items)

    test = trace_body(tx, bound["cond_fn"], [], {}, what, own=likes, pack_own=pack, single=True, scalars=True)
    if len(test.leaves) != 1 or not _is_predicate(test.leaves[0]):
        raise Unsupported(f"{what} whose cond_fn returns no boolean scalar tensor or symbolic bool",
                          "torch's while_loop requires one")
    step = trace_body(tx, bound["body_fn"], [], {}, what, own=likes, pack_own=pack, scalars=True)
    nested = any(sub is not None for sub in structure[1])
    if nested and _tree(step.result)[1] != structure:  # (a flat loop's body may return its one tensor bare)
        raise Unsupported(f"{what} whose body_fn returns another structure than its carried values",
                          "only a body keeping the carried values' structure is modelled")
    if not _same_carried(step.leaves, carried):
        raise Unsupported(f"{what} whose body_fn changes the carried values' kinds, shapes or dtypes",
                          "torch's while_loop requires the same metadata every iteration")
    _new_tensors(step, what)
    lifted, (test_gm, step_gm) = shared_lifted([test, step], len(carried))
    output = tx.output
    if output.grad_enabled and not all(isinstance(c, TensorVariable) for c in carried) and any(
            getattr(v, "requires_grad", False)
            for v in [c.example for c in carried if isinstance(c, TensorVariable)] + [n.meta.get("val") for n in lifted]):
        raise Unsupported(f"{what} carrying ints with a tensor requiring grad",
                          "torch's while_loop cannot differentiate a loop carrying ints (eager raises; torch.compile too)")
    node_args = (output.add_submodule(test_gm, "while_cond"), output.add_submodule(step_gm, "while_body"),
                 tuple(c.as_graph_arg() for c in carried), tuple(lifted))
    examples = [leaf.example if isinstance(c, TensorVariable) else output.loop_int()
                for leaf, c in zip(step.leaves, carried)]
    return record(tx, _WHILE.while_loop_op, node_args, examples, step.rebuild)


@higher_order(_MAP.map)
def map_(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``map(f, xs, *args)``: ``f`` over the slices of ``xs`` (a tensor, or tuples, lists and dicts of
    them) along their first dimension, stacked."""
    what = "map"
    if len(args) < 2 or kwargs:
        raise Unsupported(f"{what}() with these arguments", "expected map(f, xs, *args)")
    fn, xs, extra = args[0], args[1], list(args[2:])
    structure = skeleton(xs, what, tx)
    template = Template.of(structure, is_tensor_leaf)
    if any(leaf is not None for leaf in template.leaves):
        raise Unsupported(f"{what} over a structure holding values that are not tensors", "torch's map maps tensors only")
    mapped = template.tensors(structure)
    leading = [t.example.shape[0] if t.example.dim() else None for t in mapped]
    if not leading or None in leading:
        raise Unsupported(f"{what} over a 0-d tensor", "torch's map slices its inputs along their first dimension")
    count = leading[0]
    for n in leading:
        shapes.raise_if_unknown(n, f"{what} over a leading size of")
    # (symbolic sizes: each comparison is recorded as a guard, as the slices' sizes must agree)
    if not all(bool(n == count) for n in leading) or bool(count == 0):
        raise Unsupported(f"{what} over inputs without one non-zero leading size", "eager's map refuses them")
    likes = [t.example[0] for t in mapped]
    body = trace_body(tx, fn, extra, {}, what, own=likes, pack_own=lambda own: [as_variable(template.fill(own), tx)])
    _only_tensors(body, what, allow_none=True)
    _new_tensors(body, what)
    output = tx.output
    with output.fake_mode:
        examples = [leaf.example.new_empty((count, *leaf.example.shape)) for leaf in body.leaves]
    node_args = (output.add_submodule(body.module, "map_body"), [t.node for t in mapped], list(body.lifted))
    return record(tx, _MAP.map_impl, node_args, examples, body.rebuild)
