"""``t.requires_grad_()`` on a tensor made in the graph (``w = x.detach().clone().requires_grad_()``,
``torch.zeros(3).requires_grad_()``): eager turns that tensor, in place, into a leaf autograd records.
A factory of constant arguments called with ``requires_grad=True`` (``torch.ones(3, requires_grad=True)``)
makes such a leaf too; the rewritten code calls it before the graph (:func:`factory_leaf`). A random factory
(``torch.randn(3, requires_grad=True)``) draws in the graph, in order with its other draws, and its result
is made a leaf as ``requires_grad_()`` makes one.

A graph cannot return a leaf of its own that later ops in the same graph already used, so the leaf is
made as ``nn.Parameter(t)`` is (:mod:`.new_parameters`): the rewritten code makes an empty tensor that
requires grad before the graph call (a graph input), and the graph gives it ``t``'s storage under
``no_grad`` before any op reads it, or ``t``'s values where nothing else can see ``t`` (``x.clone()``: a
``set_`` loses the leaf's autograd accumulator under AOTAutograd, ``copy_`` keeps it). The program's variable for ``t`` becomes that input from here on
(every name holding ``t`` sees it, as every name holds eager's one object), so ops on it are ops on a
real leaf: the tensor leaves the graph with ``is_leaf``, no ``grad_fn``, and gradients reach its
``.grad`` as in eager, whether the program returns it or calls ``backward`` later in the frame.

Only a plain tensor made in the graph, a leaf not requiring grad, of a floating or complex dtype and a
shape the inputs' shapes fix (a symbolic size is specialised, a guard, as torch.compile does), is modelled; anything else is left to the caller (a graph break, where eager's own
error, if any, is raised natively).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import torch

from .. import shapes
from .new_parameters import made_before_the_graph, made_by_a_call_before_the_graph, sole_holder
from .tensor import TensorVariable, storage_key

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def _can_be_made(tensor: TensorVariable) -> bool:
    example = tensor.example
    return (
        type(tensor) is TensorVariable and tensor.cls is torch.Tensor
        and tensor.source is None and tensor.real is None  # computed in the graph, not read from the frame
        and tensor.frozen_from is None and tensor.made_leaf is None
        and example.layout == torch.strided  # the empty tensor made before the graph is a dense one
        and example.is_leaf and not example.requires_grad and not example.is_inference()
        and (example.is_floating_point() or example.is_complex())  # eager refuses other dtypes: it raises
        and all(_fixable(d) for d in example.shape)  # the empty tensor is made before the graph
    )


def _fixable(size: Any) -> bool:
    """Whether a dimension can be a plain int before the graph: an int, or a symbolic size the input's
    shape fixes (:func:`make_leaf` specialises it, a guard, as torch.compile does), not one only the data
    fixes (unbacked) or a loop carries."""
    if isinstance(size, int):
        return True
    return isinstance(size, torch.SymInt) and not shapes.unknown_symbols(size) and not shapes.loop_symbols_in(size)


def make_leaf(tx: InstructionTranslator, tensor: TensorVariable) -> TensorVariable | None:
    """``tensor.requires_grad_(True)``: ``tensor`` becomes a leaf made before the graph that holds its
    data (module docstring), and is returned; None when it is not modelled."""
    if not _can_be_made(tensor) or _viewed(tensor):
        return None
    example = tensor.example
    spec = (tuple(int(d) for d in example.shape), example.dtype, example.device, True, False)
    leaf = made_before_the_graph(tx, tensor, spec, _leaf_input, copy=sole_holder(tensor))
    tensor.node, tensor.example, tensor.made_leaf = leaf.node, leaf.example, leaf.made_leaf
    return tensor


def _viewed(tensor: TensorVariable) -> bool:
    """Whether an op already made a view of ``tensor``: eager's view then follows its base into autograd
    (``v = c[:2]; c.requires_grad_()``: ``v * 1`` has a ``grad_fn``), which a view of the storage the leaf
    takes over does not, so such a call is left to eager (a graph break)."""
    key = storage_key(tensor.example)
    return any(storage_key(user.meta.get("val")) == key for user in tensor.node.users)


def _leaf_input(node, fake: torch.Tensor, made) -> TensorVariable:
    leaf = TensorVariable(node, fake)
    leaf.made_leaf = made
    return leaf


def factory_leaf(tx: InstructionTranslator, fn: Any, args: list[Variable],
                 kwargs: dict[str, Variable]) -> TensorVariable | None:
    """``fn(*args, **kwargs)`` where ``kwargs["requires_grad"]`` is the constant True: eager's result is a
    fresh leaf that requires grad, whatever the grad mode. A factory that draws no random numbers, called
    with constant arguments only, makes the same leaf whatever the point it runs at, so the rewritten code
    calls it before the graph (with the dtype and device the trace found, which the program's default-dtype
    and device regions decide) and hands the leaf in, as every backend compiles a graph input requiring
    grad. None for anything else: the caller breaks (eager's own error, an integer dtype's, is raised natively)."""
    # Not in a higher-order op's body or a transform's function: eager makes the leaf there, at that level
    # (under torch.func.grad the result does not require grad), not before the graph.
    if "out" in kwargs or tx.output.function_modes or tx.output.body_depth:
        return None
    rest = {name: value for name, value in kwargs.items() if name != "requires_grad"}
    if fn in _RANDOM_FACTORIES:
        return _random_leaf(tx, fn, args, rest)
    if fn not in _CONSTANT_FACTORIES or not all(v.is_python_constant() for v in [*args, *kwargs.values()]):
        return None
    result = tx.output.call_function(tx, fn, args, rest)  # the fake result: its dtype, device and shape
    if not isinstance(result, TensorVariable) or not _can_be_made(result):
        return None
    example = result.example
    if not result.node.users:
        tx.output.graph.erase_node(result.node)  # the leaf comes from the call before the graph instead
    constants = {name: value.as_python_constant() for name, value in kwargs.items()}
    constants.update(dtype=example.dtype, device=example.device, requires_grad=True)
    call = functools.partial(fn, *(a.as_python_constant() for a in args), **constants)
    return made_by_a_call_before_the_graph(tx, call, _leaf_input)


def _random_leaf(tx: InstructionTranslator, fn: Any, args: list[Variable],
                 rest: dict[str, Variable]) -> TensorVariable | None:
    """A random factory's leaf: the draw stays in the graph, in order with its other draws (eager's values
    under ``torch.manual_seed``; a call before the graph would move it ahead of them), and the result is
    made a leaf as ``torch.randn(3).requires_grad_()`` is (:func:`make_leaf`), which eager's
    ``requires_grad=True`` result is: a fresh leaf whose ``.grad`` a backward fills."""
    result = tx.output.call_function(tx, fn, args, rest)
    if not isinstance(result, TensorVariable):
        return None
    return make_leaf(tx, result)


#: Factories that draw from torch's RNG: their leaf is drawn in the graph and filled in (:func:`_random_leaf`).
_RANDOM_FACTORIES = frozenset({torch.randn, torch.rand, torch.randint, torch.normal, torch.randn_like,
                               torch.rand_like, torch.randint_like, torch.bernoulli, torch.poisson,
                               torch.multinomial, torch.randperm})

#: Factories whose result depends on their arguments alone (no random draw, no tensor read).
_CONSTANT_FACTORIES = frozenset({torch.ones, torch.zeros, torch.full, torch.empty, torch.eye, torch.arange,
                                 torch.linspace, torch.logspace, torch.tensor})
