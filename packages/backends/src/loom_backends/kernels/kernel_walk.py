"""What the C and Triton code generators share: the values and scopes a kernel body is written in, and the
walk over a fused kernel's nodes, stage by stage, per-row (``x``) nodes before each stage's reduction loop."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy
import torch

from .ir import ComputedBuffer
from .numbers import register_dtype, wrap_int
from .ops import use
from .scheduler import FusedKernel


@dataclass(eq=False)
class Var:
    """A value in the kernel: a variable name (or a literal), its dtype and which of x/r it varies over."""

    name: str
    dtype: torch.dtype
    shape: frozenset[str] = frozenset()
    value: Any = None  # the Python scalar, for literals
    is_literal: bool = False
    rounded: bool = False  # a half-type value known to be exactly one (loaded, or converted to it)

    def __str__(self) -> str:
        return self.name


@dataclass(eq=False)
class Scope:
    """A block of generated lines and what it has computed (looked up through its parents)."""

    parent: Scope | None
    lines: list[str]
    cache: dict[str, Var] = field(default_factory=dict)
    stored: dict[tuple[str, Any], Var] = field(default_factory=dict)
    index_vars: dict[Any, str] = field(default_factory=dict)
    header: list[str] = field(default_factory=list)  # index variables, declared first (C)

    def find(self, table: str, key: Any) -> Any:
        """The entry for ``key`` in ``table`` of this scope or the nearest parent that has one."""
        scope: Scope | None = self
        while scope is not None:
            hit = getattr(scope, table).get(key)
            if hit is not None:
                return hit
            scope = scope.parent
        return None


class KernelWalk:
    """Base of a kernel code generator: walks the kernel's nodes; subclasses write the text.

    A subclass sets ``self.kernel`` and provides ``literal_text(value, dtype)`` (a constant's spelling),
    ``index_expr``, ``_emit_node(node, pre)``, ``_emit_loop(nodes)`` and ``_assemble()``."""

    kernel: FusedKernel

    def _walk(self) -> Any:
        """Emit every node, stage by stage: a stage's per-row nodes, then its reduction loop."""
        k = self.kernel
        by_stage: dict[int, list[ComputedBuffer]] = {}
        for node in k.nodes:
            by_stage.setdefault(k.stages[node.name], []).append(node)
        with use(self):
            for stage in range(max(by_stage) + 1 if by_stage else 0):
                nodes = by_stage.get(stage, [])
                for node in nodes:
                    if k.roles[node.name] == "x":
                        self._emit_node(node, None)
                loop_nodes = [n for n in nodes if k.roles[n.name] == "r"]
                if loop_nodes:
                    self._emit_loop(loop_nodes)
        return self._assemble()

    def _emit_node(self, node: ComputedBuffer, pre: Any) -> None:
        raise NotImplementedError

    def _emit_loop(self, nodes: list[ComputedBuffer]) -> None:
        raise NotImplementedError

    def _assemble(self) -> Any:
        raise NotImplementedError

    def index_expr(self, expr: sympy.Expr, dtype: torch.dtype) -> Var:
        raise NotImplementedError

    def cse(self, text: str, dtype: torch.dtype, shape: frozenset[str]) -> Var:
        raise NotImplementedError

    def _convert(self, x: Var, dtype: torch.dtype, src: torch.dtype, dst: torch.dtype, exact: bool) -> Var:
        """Write the conversion of ``x`` (held as ``src``) to ``dtype`` (held as ``dst``, not bool)."""
        raise NotImplementedError

    def to_dtype(self, x: Var, dtype: torch.dtype, exact: bool = False) -> Var:
        """The ``ops.to_dtype`` handler: literals convert here, a test against 0 makes a bool, the rest is
        the generator's ``_convert``; ``exact`` converts a half value from its rounded value."""
        if x.dtype == dtype:
            return x
        if x.is_literal:
            value = bool(x.value) if dtype == torch.bool else (float(x.value) if dtype.is_floating_point else int(x.value))
            return self._literal(value, dtype)
        if exact and x.dtype in (torch.float16, torch.bfloat16) and not x.rounded:
            # a half value computed in float32 is converted from what it is: rounded to its dtype first
            x = self.to_dtype(Var(x.name, torch.float32, x.shape), x.dtype, exact=True)
        src, dst = register_dtype(x.dtype), register_dtype(dtype)
        if dst == torch.bool:
            return self.cse(f"{x} != 0", dtype, x.shape)
        return self._convert(x, dtype, src, dst, exact)

    def literal_text(self, value: Any, dtype: torch.dtype) -> str:
        raise NotImplementedError

    def _literal(self, value: Any, dtype: torch.dtype) -> Var:
        if not (dtype.is_floating_point or dtype == torch.bool):
            value = wrap_int(value, dtype)
        elif dtype in (torch.float16, torch.bfloat16):  # a half constant is a half value
            value = float(torch.tensor(float(value), dtype=dtype))
        return Var(self.literal_text(value, dtype), dtype, frozenset(), value=value, is_literal=True)

    def constant(self, value: Any, dtype: torch.dtype) -> Var:
        """The ``ops.constant`` handler: a literal, or a size the graph computes (dynamic shapes)."""
        if isinstance(value, sympy.Basic):
            return self.index_expr(value, dtype)
        return self._literal(value, dtype)
