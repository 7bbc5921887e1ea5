"""The ``torch.func`` transforms a loom graph calls: one :class:`TransformCall` module per call site.

A transform's function is traced into a sub-graph (the *body*, :mod:`.variables.func_transforms`) taking
the tensors of the function's arguments, then the outer values it reads (lifted). The graph records
``call_transform(<TransformCall>, *tensors, *lifted)``; the module rebuilds the arguments around the
tensors, calls the real transform (``torch.func.grad(fn, argnums=...)(*args)``) on a function that runs
the body, and returns the result's tensors flat. Run as Python (the ``eager`` backend) this is eager's
transform over the traced ops; AOTAutograd traces through it, so its ATen graphs hold what functorch
computes (the backward of ``grad``, the batched ops of ``vmap``) and every backend compiles those.

Outer values the body reads are closed over, not arguments of the transformed function: eager's
transforms treat a tensor the function closes over as a constant of their level (not differentiated, not
batched), and so does this module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch.utils._pytree import TreeSpec, tree_flatten, tree_leaves, tree_unflatten


@dataclass(frozen=True)
class Template:
    """A pytree of tensors and constants as a structure, its constant leaves, and where its tensors go."""

    spec: TreeSpec
    leaves: tuple
    positions: tuple[int, ...]

    @classmethod
    def of(cls, value: Any, is_tensor: Callable[[Any], bool] = lambda leaf: isinstance(leaf, torch.Tensor)) -> Template:
        """The template of ``value``, its tensors (the leaves ``is_tensor`` picks) left out."""
        leaves, spec = tree_flatten(value)
        positions = tuple(i for i, leaf in enumerate(leaves) if is_tensor(leaf))
        kept = tuple(None if i in positions else leaf for i, leaf in enumerate(leaves))
        return cls(spec, kept, positions)

    def fill(self, tensors: Any) -> Any:
        """The structure with ``tensors`` at the tensors' places, in order."""
        leaves = list(self.leaves)
        for position, tensor in zip(self.positions, tensors, strict=True):
            leaves[position] = tensor
        return tree_unflatten(leaves, self.spec)

    def tensors(self, value: Any) -> list[Any]:
        """The values at the tensors' places of ``value`` (a structure like this one)."""
        leaves = tree_leaves(value)
        return [leaves[i] for i in self.positions]


def call_transformed(transform: Callable, fn: Callable, options: dict[str, Any], args: tuple) -> Any:
    """``transform(fn, **options)(*args)``: grad, grad_and_value, vmap, jacrev, jacfwd, hessian."""
    return transform(fn, **options)(*args)


def call_on_primals(transform: Callable, fn: Callable, options: dict[str, Any], args: tuple) -> Any:
    """``transform(fn, *args, **options)``: jvp(fn, primals, tangents)."""
    return transform(fn, *args, **options)


def call_vjp_output(transform: Callable, fn: Callable, options: dict[str, Any], args: tuple) -> Any:
    """vjp's outputs (and aux): ``vjp(fn, *primals)`` without the vjp function."""
    result = transform(fn, *args, **options)
    return (result[0], *result[2:])


def call_vjp_function(transform: Callable, fn: Callable, options: dict[str, Any], args: tuple) -> Any:
    """``vjp(fn, *primals)[1](*cotangents)``: ``args`` is ``(primals, cotangents)``."""
    primals, cotangents = args
    return transform(fn, *primals, **options)[1](*cotangents)


class TransformCall(torch.nn.Module):
    """One call of a ``torch.func`` transform in a graph: ``forward(*tensors, *lifted)`` returns the tensors
    of ``invoke(transform, fn, options, args)`` flat, ``fn`` running the traced ``body``."""

    def __init__(self, body: torch.nn.Module, transform: Callable, invoke: Callable, options: dict[str, Any],
                 call: Template, fn_args: Template, fn_out: Template) -> None:
        super().__init__()
        self.body = body
        self.transform = transform
        self.invoke = invoke
        self.options = dict(options)
        self.call = call
        self.fn_args = fn_args
        self.fn_out = fn_out

    def forward(self, *flat: Any) -> tuple[Any, ...]:
        return tuple(leaf for leaf in tree_leaves(self.structured(*flat)) if isinstance(leaf, torch.Tensor))

    def structured(self, *flat: Any) -> Any:
        """The transform's result as it returns it (a structure of tensors and constants)."""
        count = len(self.call.positions)
        args, lifted = self.call.fill(flat[:count]), flat[count:]
        body, fn_args, fn_out = self.body, self.fn_args, self.fn_out

        def fn(*given: Any) -> Any:
            # forward, not __call__: a GraphModule call prints the traceback of any error to stderr
            return fn_out.fill(body.forward(*fn_args.tensors(given), *lifted))

        return self.invoke(self.transform, fn, self.options, args)

    def extra_repr(self) -> str:
        return f"{getattr(self.transform, '__name__', self.transform)}, {self.options}"


def call_transform(module: TransformCall, *flat: Any) -> tuple[Any, ...]:
    """The graph's op: ``module(*flat)``."""
    return module(*flat)
