"""``torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=...)``: the ``tag_activation_checkpoint``
higher-order op over ``fn``'s sub-graph (:mod:`.higher_order`), as torch.compile records it.

Both variants are recorded the same way (torch.compile does too): the op's implementation checkpoints
without reentrant autograd, which gives the reentrant variant's values and gradients wherever that
variant gives gradients at all. Where it does not, the call breaks the graph and runs as eager: with
``use_reentrant=True`` and grad mode on, no tensor argument requiring grad means eager's outputs do not
require grad (gradients of parameters used inside are None), and keyword arguments for ``fn`` are refused.

A ``context_fn`` (selective checkpointing: ``create_selective_checkpoint_contexts`` with an op list or a
policy) is handed to the op as torch.compile hands it, through the body's ``_checkpoint_context_fn``; the op
calls it where eager's checkpoint would and sets the region's id on the forward context, which a
:class:`_Contexts` pair accepts whatever the program's contexts are. A region that also draws random numbers
with one still breaks (the op cannot replay the draws through the program's own contexts).

A region drawing random numbers: if its results do not require grad, it is recorded as ``wrap`` (with no
backward through it, checkpointing is a plain call, and AOTAutograd refuses random ops in a recompute
region); otherwise its recomputation replays the forward's draws, as eager's checkpoint (which restores the RNG
state) does (:mod:`.checkpoint_rng`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING

import torch
import torch.utils.checkpoint as _checkpoint
from torch._higher_order_ops.wrap import tag_activation_checkpoint
from torch._higher_order_ops.wrap import wrap as _wrap_op
from torch._ops import HigherOrderOperator

from ..errors import Unsupported
from .checkpoint_rng import replaying_draws
from .constant import ObjectConstantVariable
from .higher_order import higher_order, record, require_constants, trace_body
from .partial import PartialVariable
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

#: checkpoint's own keyword arguments (the others go to ``fn``).
_OWN_KEYWORDS = frozenset(
    name for name in inspect.signature(_checkpoint.checkpoint).parameters if name not in ("function", "args", "kwargs")
) | {"preserve_rng_state"}
#: Settings the op accepts as they are (``context_fn`` goes on the body, ``use_reentrant`` is the op's own).
_PASSED_ON = ("preserve_rng_state", "determinism_check", "debug")
_WHAT = "torch.utils.checkpoint.checkpoint"
#: Higher-order ops a checkpointed region may call (they run under the op's dispatch mode).
_INNER_OPS_RUN = (torch.ops.higher_order.wrap, torch.ops.higher_order.tag_activation_checkpoint,
                  torch.ops.higher_order.invoke_subgraph, torch.ops.higher_order.autograd_function_apply)


@higher_order(_checkpoint.checkpoint, getattr(_checkpoint.checkpoint, "__wrapped__", None))
def checkpoint(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``checkpoint(fn, *args, **kwargs)`` as one ``tag_activation_checkpoint`` node."""
    if not args:
        raise Unsupported(f"{_WHAT}() without a function", "expected checkpoint(fn, *args)")
    fn, fn_args = args[0], args[1:]
    own = require_constants({k: _partial_of_constants(v) for k, v in kwargs.items() if k in _OWN_KEYWORDS}, _WHAT)
    fn_kwargs = {k: v for k, v in kwargs.items() if k not in _OWN_KEYWORDS}
    context_fn = own.get("context_fn", _checkpoint.noop_context_fn)
    reentrant = own.get("use_reentrant")
    if reentrant is None:
        raise Unsupported(f"{_WHAT} without use_reentrant", "torch warns and picks a variant at run time",
                          hint="pass use_reentrant=False (or True) explicitly")
    if reentrant:
        if context_fn is not _checkpoint.noop_context_fn:
            raise Unsupported(f"{_WHAT}(use_reentrant=True) with a context_fn", "the reentrant variant refuses it")
        if fn_kwargs:
            raise Unsupported(f"{_WHAT}(use_reentrant=True) with keyword arguments", "the reentrant variant refuses them")
        tensors = [a for a in fn_args if isinstance(a, TensorVariable)]
        if tx.output.grad_enabled and not any(t.example.requires_grad for t in tensors):
            raise Unsupported(f"{_WHAT}(use_reentrant=True) with no argument requiring grad",
                              "eager's outputs then do not require grad, which the recorded op cannot mimic")
    body = trace_body(tx, fn, list(fn_args), fn_kwargs, _WHAT)
    inner = _unsupported_inner_op(body.module)
    if inner is not None:
        raise Unsupported(f"{_WHAT} of a function calling {inner}",
                          "the op's checkpointing dispatch mode has no rule for that higher-order op (eager's "
                          "checkpoint runs it compiled on its own)", hint="the call runs as eager runs it")
    examples = [leaf.example for leaf in body.leaves]
    draws = any(n.meta.get("draws") for n in body.module.graph.nodes)
    if context_fn is not _checkpoint.noop_context_fn:
        if draws:
            raise Unsupported(f"{_WHAT} with a context_fn around random draws",
                              "the recomputation could not replay the draws through the program's contexts")
        body.module.meta["_checkpoint_context_fn"] = _Contexts.around(context_fn)
    elif draws:
        if not any(e.requires_grad for e in examples):
            # No backward runs through the region, so checkpointing changes nothing (eager's checkpoint reads
            # the RNG state, never sets it): a plain ``wrap``, which AOTAutograd compiles, where its
            # partitioner refuses random ops in a recompute region (torch.compile raises there, or drops an
            # unused region's draws).
            attr = tx.output.add_submodule(body.module, "wrap_body")
            return record(tx, _wrap_op, (attr, *body.lifted), examples, body.rebuild)
        # The op's own implementation recomputes every op without restoring the RNG state: the backward's
        # draws would differ from the forward's (torch.compile's eager backend gives wrong gradients).
        # Eager's checkpoint replays the forward's draws; so does the region (:mod:`.checkpoint_rng`).
        body.module.meta["_checkpoint_context_fn"] = replaying_draws
    node_kwargs = {k: own[k] for k in _PASSED_ON if k in own}
    attr = tx.output.add_submodule(body.module, "checkpoint_body")
    return record(tx, tag_activation_checkpoint, (attr, *body.lifted), examples, body.rebuild, node_kwargs)


def _unsupported_inner_op(module: torch.fx.GraphModule) -> str | None:
    """The name of a higher-order op in ``module`` (or a sub-graph of it) that the op's implementation cannot run:
    it runs the region under selective checkpointing's dispatch mode, which has rules for only a few of them
    (``cond``, ``map``, ``while_loop``, ``scan``, ``hints_wrapper`` raise there)."""
    for sub in module.modules():
        for node in getattr(sub, "graph", torch.fx.Graph()).nodes:
            target = node.target
            if isinstance(target, HigherOrderOperator) and target not in _INNER_OPS_RUN:
                return target.name()
    return None


def _partial_of_constants(variable: Variable) -> Variable:
    """A ``functools.partial`` made in the trace over constants (``partial(create_selective_checkpoint_contexts,
    policy)``, a policy itself a partial over a set of ops) as the constant partial the op will call; any other
    variable as it is."""
    if not isinstance(variable, PartialVariable) or variable.attrs:
        return variable
    args = [_partial_of_constants(a) for a in variable.args]
    keywords = {k: _partial_of_constants(v) for k, v in variable.keywords.items()}
    if not all(part.is_python_constant() for part in (variable.func, *args, *keywords.values())):
        return variable
    return ObjectConstantVariable(functools.partial(variable.func.as_python_constant(),
                                                  *[a.as_python_constant() for a in args],
                                                  **{k: v.as_python_constant() for k, v in keywords.items()}))


class _Contexts:
    """One of the pair a program's ``context_fn`` returns, taking the ``ac_graph_id`` the op sets on the forward
    context even where the program's own context has no room for it (handed on where it has)."""

    def __init__(self, inner: object) -> None:
        self._inner = inner
        self._graph_id = None

    @classmethod
    def around(cls, context_fn: Callable[[], tuple]) -> Callable[[], tuple]:
        """``context_fn`` with each context it returns wrapped."""
        def contexts() -> tuple:
            if _checkpoint._is_compiling(None, (), {}):
                return context_fn()  # traced by AOTAutograd: checkpoint takes only the dispatch modes themselves
            forward, recompute = context_fn()
            return cls(forward), cls(recompute)
        return contexts

    @property
    def ac_graph_id(self) -> object:
        """The region's id, as the op set it (the inner context's own where it keeps one)."""
        return getattr(self._inner, "ac_graph_id", self._graph_id)

    @ac_graph_id.setter
    def ac_graph_id(self, value: object) -> None:
        self._graph_id = value
        try:
            self._inner.ac_graph_id = value
        except AttributeError:
            pass  # a context without attributes: the id stays here

    def __enter__(self) -> object:
        return self._inner.__enter__()

    def __exit__(self, *exc_info: object) -> object:
        return self._inner.__exit__(*exc_info)
