"""``scan`` and ``associative_scan``'s op: the combine function traced once into a sub-graph
(:mod:`.higher_order`), recorded as the higher-order op torch.compile records.

The user-facing ``torch._higher_order_ops.scan.scan`` (and ``associative_scan``) is traced as Python: it
flattens its inputs and calls the op on a ``functools.partial`` that rebuilds them for the user's function.
That call is handled here:

- ``scan_op(combine_fn, init, xs, additional_inputs)`` → ``scan(<combine>, [*init], [*xs], [*additional, *read])``:
  ``combine_fn`` traced on fresh inputs shaped as the carried values, then as a slice of each of ``xs``
  along its first dimension; it returns the next carried values (of the same metadata) and the slices of
  the outputs, which the op stacks. The result is rebuilt as the function's (``(carry, ys)``).
- ``associative_scan_op(combine_fn, xs, additional_inputs)`` → the same, the function traced on two slices
  of each of ``xs`` and returning a slice like them.

What torch.compile and eager refuse runs as Python, to raise as eager raises: inputs that are not tensors,
an empty scanned dimension, results of other metadata than the carried values, results sharing memory with
the inputs, functions that change state.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from torch.utils._pytree import tree_structure

from ..errors import Unsupported
from .containers import TupleVariable, plain_sequence
from .control_flow import _new_tensors, _only_tensors
from .higher_order import higher_order, record, same_metadata, trace_body
from .partial import PartialVariable
from .registry import wrap
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_SCAN = sys.modules["torch._higher_order_ops.scan"]
_ASSOCIATIVE = sys.modules["torch._higher_order_ops.associative_scan"]


def _tensors(variable: Variable, what: str, name: str) -> list[TensorVariable]:
    """A tuple or list of tensors (the op's flat inputs)."""
    if plain_sequence(variable):
        items = list(variable.items)
    elif variable.is_python_constant() and variable.as_python_constant() in ((), []):
        items = []
    else:
        raise Unsupported(f"{what} with {variable.describe()} as its {name}", "expected a tuple or list of tensors")
    for item in items:
        if not isinstance(item, TensorVariable):
            raise Unsupported(f"{what} with {item.describe()} among its {name}", "it takes tensors only")
    return items


def _bound(what: str, names: tuple[str, ...], args: list[Variable], kwargs: dict[str, Variable]) -> list[Variable]:
    bound = dict(zip(names, args))
    if len(args) > len(names) or set(kwargs) - set(names) or set(bound) & set(kwargs) or \
            len(bound) + len(kwargs) != len(names):
        raise Unsupported(f"{what}() with these arguments", f"expected {what}({', '.join(names)})")
    bound.update(kwargs)
    return [bound[n] for n in names]


def _frontend_partial(tx: InstructionTranslator, fn: Variable, module: object, caller: str,
                      what: str) -> dict[str, Variable]:
    """The keywords of the ``functools.partial(wrap_combine_fn_flat, ...)`` the user-facing function passes.

    Only its own call (from its nested ``caller``) is modelled: torch.compile gives that call the function's
    result structure, which the user-facing function unpacks (and eager's, compiled by torch.compile, too),
    where eager's direct call of the op returns the flat results; any other call runs as eager runs it."""
    code = tx.code
    if not (code.co_name == caller and code.co_filename == getattr(module, "__file__", None)):
        raise Unsupported(f"{what}'s op called directly", "only the call its user-facing function makes is modelled "
                          "(eager's direct call returns flat results, torch.compile's the function's structure)")
    if not (isinstance(fn, PartialVariable) and fn.func.is_python_constant()
            and fn.func.as_python_constant() is module.wrap_combine_fn_flat and not fn.args):
        raise Unsupported(f"{what} called with {fn.describe()} as its function",
                          "only the call its user-facing function makes is modelled")
    return fn.keywords


def _same_structure(spec: object, result: object) -> bool:
    """Whether ``result``'s pytree structure is ``spec`` (traced: the spec the user-facing function made)."""
    return tree_structure(result) == spec


def _slices(tx: InstructionTranslator, xs: list[TensorVariable], what: str) -> tuple[list, object]:
    """The examples of one slice of each of ``xs`` along its first dimension, and the scanned length."""
    if not xs or any(x.example.dim() == 0 for x in xs):
        raise Unsupported(f"{what} over no tensor or a 0-d one", "it scans the inputs' first dimension")
    length = xs[0].example.shape[0]
    if any(bool(x.example.shape[0] != length) for x in xs) or bool(length == 0):
        raise Unsupported(f"{what} over inputs without one non-zero leading size", "eager refuses them")
    with tx.output.fake_mode:
        return [x.example[0] for x in xs], length


@higher_order(_SCAN.scan_op)
def scan_op(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``scan_op(combine_fn, init, xs, additional_inputs)``: the final carried values and the stacked outputs."""
    what = "torch scan"
    fn, init, xs, extra = _bound(what, ("combine_fn", "init", "xs", "additional_inputs"), args, kwargs)
    init, xs, extra = (_tensors(init, what, "init"), _tensors(xs, what, "xs"),
                       _tensors(extra, what, "additional_inputs"))
    _frontend_partial(tx, fn, _SCAN, "run_flattened_scan", what)
    if not init:
        raise Unsupported(f"{what} without carried values", "eager's scan requires init leaves")
    slices, length = _slices(tx, xs, what)
    body = trace_body(tx, fn, extra, {}, what, own=[i.example for i in init] + slices)
    _only_tensors(body, what)
    _new_tensors(body, what)
    if type(body.result) is not TupleVariable or len(body.result.items) != 2:
        raise Unsupported(f"{what} whose function does not return a pair (next carry, output)", "torch raises")
    carried, ys = body.leaves[:len(init)], body.leaves[len(init):]
    if not same_metadata(carried, init) or any(c.example.stride() != i.example.stride() for c, i in zip(carried, init)):
        raise Unsupported(f"{what} whose function changes the carried values' count, shapes, strides or dtypes",
                          "the carried values must keep their metadata (torch raises)")
    output = tx.output
    with output.fake_mode:
        stacked = [y.example.unsqueeze(0).repeat(length, *[1] * y.example.dim()) for y in ys]
    node_args = (output.add_submodule(body.module, "scan_combine_fn"), [i.node for i in init], [x.node for x in xs],
                 list(body.lifted))
    return record(tx, _SCAN.scan_op, node_args, [c.example for c in carried] + stacked, body.rebuild)


@higher_order(_ASSOCIATIVE.associative_scan_op)
def associative_scan_op(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``associative_scan_op(combine_fn, xs, additional_inputs)``: the inclusive scans of ``xs``."""
    what = "torch associative_scan"
    fn, xs, extra = _bound(what, ("combine_fn", "xs", "additional_inputs"), args, kwargs)
    xs, extra = _tensors(xs, what, "xs"), _tensors(extra, what, "additional_inputs")
    spec = _frontend_partial(tx, fn, _ASSOCIATIVE, "run_flattened_associative_scan", what).get("spec")
    slices, _ = _slices(tx, xs, what)
    body = trace_body(tx, fn, extra, {}, what, own=slices + slices)
    _only_tensors(body, what)
    _new_tensors(body, what)
    same = wrap(tx, _same_structure, None).call(tx, [spec, body.result], {}) if spec is not None else None
    if same is None or not same.is_python_constant() or same.as_python_constant() is not True:
        raise Unsupported(f"{what} whose function returns another structure than its inputs'", "torch raises")
    if not same_metadata(body.leaves, [TensorVariable(x.node, s) for x, s in zip(xs, slices)]):
        raise Unsupported(f"{what} whose function returns other shapes or dtypes than its inputs'",
                          "its results must be like its inputs (torch raises)")
    output = tx.output
    node_args = (output.add_submodule(body.module, "associative_scan_combine_fn"), [x.node for x in xs],
                 tuple(body.lifted))
    return record(tx, _ASSOCIATIVE.associative_scan_op, node_args, [x.example for x in xs], body.rebuild)
