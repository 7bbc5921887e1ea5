"""Fusion: which stored buffers are computed by the same kernel, and in what order inside it.

The lowering already fused every chain of lazy pointwise values into the buffer that consumes it. The
scheduler takes the stored buffers (and extern calls) in program order and groups buffers whose loops
line up into one kernel:

- A kernel has an iteration space: its *full* dims (sizes, size-1 dims dropped) and which of them are
  reduced. A pointwise kernel reduces none.
- A buffer joins a kernel when its loops fit that space: a pointwise buffer over all the full dims runs
  per element of the row (an ``r`` node), one over the kept dims runs once per row (an ``x`` node, e.g.
  ``mean = sum / n``), and a reduction over the same dims is one more reduction of the same rows.
- Reads of a buffer computed in the same kernel must be of the element that same iteration computed
  (the *canonical* index); then the value is reused from a register and, if nothing outside the kernel
  reads the buffer, never stored at all.
- Inside a kernel, a node that reads a reduction's result runs after that reduction's loop: kernels
  with reductions are laid out as loops over the row separated by per-row code (``stages``).

A buffer may join an earlier kernel than the last one (past an extern call it does not depend on)
when it shares reads with it; nothing moves past an extern call that mutates memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy

from . import symbols
from .config import config
from .ir import BufferView, ComputedBuffer, ExternCall, PointwiseLoops, ReductionLoops
from .ops import record
from .symbols import RINDEX, XINDEX, Expr


def _non_one(sizes: tuple[Expr, ...]) -> tuple[Expr, ...]:
    return tuple(s for s in sizes if s != 1)


def _regroup(sizes: list[Expr], groups: tuple[Expr, ...]) -> list[list[int]] | None:
    """Split ``sizes`` (no 1s) into consecutive runs whose products are ``groups``, or None."""
    out: list[list[int]] = []
    i = 0
    for target in groups:
        run: list[int] = []
        acc: Expr = sympy.Integer(1)
        while acc != target:
            if i >= len(sizes):
                return None
            acc = acc * sizes[i]
            run.append(i)
            i += 1
            static_acc, static_target = symbols.static_int(acc), symbols.static_int(target)
            if static_acc is not None and static_target is not None and static_acc > static_target:
                return None
        out.append(run)
    return out if i == len(sizes) else None


def memory_order(buf: ComputedBuffer) -> tuple[int, ...] | None:
    """The dims of a pointwise buffer stored densely but not row-major (channels-last), outermost first;
    None when it is row-major or not dense (its kernel walks it row-major, as before)."""
    lay = buf.layout
    strides = [symbols.static_int(s) for s in lay.stride]
    if lay.is_contiguous() or not lay.is_dense() or len(lay.size) != len(buf.loops.ranges) or None in strides:
        return None
    return tuple(sorted(range(len(strides)), key=lambda d: (-strides[d], d)))  # type: ignore[operator]


@dataclass(frozen=True)
class Space:
    """A kernel's iteration space: ``xnumel`` rows of ``rnumel`` elements (``rnumel == 1``: pointwise).

    ``groups`` are the sizes of the kernel's reduction loops with adjacent kept / reduced dims merged
    (a reduction of ``[2, 8, 24]`` over dims 0 and 1 is ``groups=(16, 24), reduced=(True, False)``).
    A pointwise buffer runs once per row when it has ``xnumel`` elements (an ``x`` node), and once per
    element when its dims split into runs with the products of ``groups`` (an ``r`` node): ``[2, 5, 16]``
    and ``[10, 16]`` both fit rows of 16.
    """

    groups: tuple[Expr, ...]
    reduced: tuple[bool, ...]
    # a pointwise space walked in a stored buffer's memory order (its dims, outermost first), not row-major:
    # a channels-last buffer's kernel then reads and writes it contiguously (see ``memory_order``)
    order: tuple[int, ...] | None = None

    @property
    def xnumel(self) -> Expr:
        return symbols.product(g for g, r in zip(self.groups, self.reduced) if not r)

    @property
    def rnumel(self) -> Expr:
        return symbols.product(g for g, r in zip(self.groups, self.reduced) if r)

    @property
    def is_reduction(self) -> bool:
        return any(self.reduced)

    @staticmethod
    def of(buf: ComputedBuffer) -> Space:
        loops = buf.loops
        if isinstance(loops, ReductionLoops):
            groups: list[Expr] = []
            flags: list[bool] = []
            for d, size in enumerate(loops.ranges):
                if size == 1:
                    continue
                flag = d in loops.reduced
                if flags and flags[-1] == flag:
                    groups[-1] = groups[-1] * size
                else:
                    groups.append(size)
                    flags.append(flag)
            return Space(tuple(groups), tuple(flags))
        assert isinstance(loops, PointwiseLoops)
        return Space((symbols.product(loops.ranges),), (False,), memory_order(buf))

    def role(self, buf: ComputedBuffer) -> str | None:
        """``"x"`` (once per row), ``"r"`` (once per element) or None when ``buf`` does not fit."""
        loops = buf.loops
        if isinstance(loops, ReductionLoops):
            return "r" if Space.of(buf) == self else None
        assert isinstance(loops, PointwiseLoops)
        numel = symbols.product(loops.ranges)
        if numel == self.xnumel:
            return "x"
        if self.is_reduction and _regroup(list(_non_one(loops.ranges)), self.groups) is not None:
            return "r"
        return None

    def index(self, buf: ComputedBuffer, role: str) -> list[Expr]:
        """The coordinates ``buf``'s loop body is evaluated at, over ``xindex`` and ``rindex``."""
        loops = buf.loops
        assert loops is not None
        ranges = tuple(loops.ranges)
        kernel_ranges = {XINDEX: self.xnumel, RINDEX: self.rnumel}
        if role == "x" and self.order is not None and len(self.order) == len(ranges):
            coords = symbols.unravel(XINDEX, [ranges[d] for d in self.order], kernel_ranges)
            return [coords[self.order.index(d)] for d in range(len(ranges))]
        if role == "x":
            return symbols.unravel(XINDEX, list(ranges), kernel_ranges)
        xs = iter(symbols.unravel(XINDEX, [g for g, r in zip(self.groups, self.reduced) if not r], kernel_ranges))
        rs = iter(symbols.unravel(RINDEX, [g for g, r in zip(self.groups, self.reduced) if r], kernel_ranges))
        dims = [d for d in range(len(ranges)) if ranges[d] != 1]
        runs = _regroup([ranges[d] for d in dims], self.groups)
        assert runs is not None
        out: list[Expr] = [sympy.Integer(0)] * len(ranges)
        for run, flag in zip(runs, self.reduced):
            coord = next(rs) if flag else next(xs)
            for k, c in zip(run, symbols.unravel(coord, [ranges[dims[k]] for k in run], kernel_ranges)):
                out[dims[k]] = c
        return out


@dataclass(eq=False)
class FusedKernel:
    """A group of buffers computed by one generated kernel."""

    space: Space
    nodes: list[ComputedBuffer] = field(default_factory=list)
    roles: dict[str, str] = field(default_factory=dict)  # buffer name -> "x" (per row) or "r" (per element)
    stages: dict[str, int] = field(default_factory=dict)  # x node: slot before loop k; r node: loop k
    stores: set[str] = field(default_factory=set)
    position: int = 0

    @property
    def is_reduction(self) -> bool:
        return self.space.is_reduction

    @property
    def xnumel(self) -> Expr:
        return self.space.xnumel

    @property
    def rnumel(self) -> Expr:
        return self.space.rnumel

    @property
    def names(self) -> set[str]:
        return {n.name for n in self.nodes}

    def ranges(self) -> dict[sympy.Symbol, Expr]:
        return {XINDEX: self.xnumel, RINDEX: self.rnumel}

    def node_index(self, buf: ComputedBuffer, role: str | None = None) -> list[Expr]:
        return self.space.index(buf, role or self.roles[buf.name])

    def store_index(self, buf: ComputedBuffer, role: str | None = None) -> Expr:
        """Where a node's value for this iteration lives in its buffer (simplified)."""
        idx = self.node_index(buf, role)
        if isinstance(buf.loops, ReductionLoops):
            idx = [i for d, i in enumerate(idx) if d not in buf.loops.reduced]
        return symbols.simplify(buf.layout.index(idx), self.ranges())


@dataclass(eq=False)
class ExternStep:
    call: ExternCall
    position: int = 0


Step = FusedKernel | ExternStep


class Scheduler:
    def __init__(self, nodes: list[ComputedBuffer | ExternCall], outputs: list[Any]) -> None:
        self.nodes = nodes
        self.outputs = outputs
        self.reads: dict[str, list[tuple[str, Expr]]] = {}
        self.producer_step: dict[str, int] = {}
        self.steps: list[Step] = []

    # --------------------------------------------------------------------------------- analysis
    def _reads(self, buf: ComputedBuffer) -> list[tuple[str, Expr]]:
        loops = buf.loops
        assert loops is not None
        index = [symbols.sym(f"d{i}") for i in range(len(loops.ranges))]
        return record(loops.fn, index).reads

    def _live(self) -> list[ComputedBuffer | ExternCall]:
        """Drop buffers nobody reads (and that are not outputs); extern calls always run."""
        needed: set[str] = {v.buffer.name for v in _leaves(self.outputs) if isinstance(v, BufferView)}
        live: list[ComputedBuffer | ExternCall] = []
        for node in reversed(self.nodes):
            if isinstance(node, ExternCall):
                live.append(node)
                needed |= _extern_reads(node)
            elif node.name in needed:
                live.append(node)
                self.reads[node.name] = self._reads(node)
                needed |= {name for name, _ in self.reads[node.name]}
        return live[::-1]

    # ----------------------------------------------------------------------------------- fusion
    def schedule(self) -> list[Step]:
        barrier = 0  # no node may join a step before this one (a mutating extern came after it)
        for node in self._live():
            if isinstance(node, ExternCall):
                self.steps.append(ExternStep(node, len(self.steps)))
                for out in node.outputs:
                    self.producer_step[out.name] = len(self.steps) - 1
                if node.mutates:
                    barrier = len(self.steps)
                continue
            self._place(node, barrier)
        kernels = [s for s in self.steps if isinstance(s, FusedKernel)]
        for k in kernels:
            self._assign_stages(k)
        self._decide_stores(kernels)
        for i, step in enumerate(self.steps):
            step.position = i
        return self.steps

    def _place(self, node: ComputedBuffer, barrier: int) -> None:
        deps = {name for name, _ in self.reads[node.name]}
        earliest = max([barrier] + [self.producer_step[d] for d in deps if d in self.producer_step])
        best: tuple[int, int] | None = None
        for i in range(len(self.steps) - 1, max(earliest, len(self.steps) - 64) - 1, -1):
            step = self.steps[i]
            if not isinstance(step, FusedKernel):
                continue
            score = self._score(step, node, deps)
            if score is None or (score == 0 and not config.fuse_unrelated):
                continue
            if best is None or score > best[0]:
                best = (score, i)
        if best is not None:
            step = self.steps[best[1]]
            assert isinstance(step, FusedKernel)
            self._join(step, node)
            self.producer_step[node.name] = best[1]
            return
        kernel = FusedKernel(Space.of(node))
        self._join(kernel, node)
        self.steps.append(kernel)
        self.producer_step[node.name] = len(self.steps) - 1

    def _score(self, kernel: FusedKernel, node: ComputedBuffer, deps: set[str]) -> int | None:
        """How much fusing ``node`` into ``kernel`` saves (shared buffers), or None if it cannot."""
        space = self._joined_space(kernel.space, node)
        if space is None:
            return None
        trial = FusedKernel(space, nodes=[*kernel.nodes, node])
        roles = {n.name: space.role(n) for n in trial.nodes}
        if any(r is None for r in roles.values()):
            return None
        trial.roles = roles  # type: ignore[assignment]
        if not self._reads_are_canonical(trial, node if space == kernel.space else None):
            return None
        produced = kernel.names
        kernel_reads = {name for n in kernel.nodes for name, _ in self.reads[n.name]}
        return 2 * len(deps & produced) + len(deps & kernel_reads)

    def _reads_are_canonical(self, kernel: FusedKernel, only: ComputedBuffer | None) -> bool:
        """Every read of a buffer computed in ``kernel`` can be served inside it: at the element the
        same iteration computes (a register), or, for a pointwise buffer computed only from buffers
        outside the kernel, at any element (recomputed there from those buffers)."""
        by_name = {n.name: n for n in kernel.nodes}
        for node in [only] if only is not None else kernel.nodes:
            for name, index in self.reads[node.name]:
                producer = by_name.get(name)
                if producer is None:
                    continue
                if self._canonical_read(kernel, node, index) == kernel.store_index(producer):
                    continue
                if not self._recomputable(producer, by_name):
                    return False
        return True

    def _recomputable(self, producer: ComputedBuffer, in_kernel: dict[str, ComputedBuffer]) -> bool:
        return (
            isinstance(producer.loops, PointwiseLoops)
            and producer.layout.is_dense()
            and not any(name in in_kernel for name, _ in self.reads[producer.name])
        )

    def _canonical_read(self, kernel: FusedKernel, node: ComputedBuffer, index: Expr) -> Expr:
        coords = kernel.node_index(node)
        subs = {symbols.sym(f"d{i}"): c for i, c in enumerate(coords)}
        return symbols.simplify(index.xreplace(subs), kernel.ranges())

    @staticmethod
    def _joined_space(space: Space, node: ComputedBuffer) -> Space | None:
        if isinstance(node.loops, ReductionLoops):
            own = Space.of(node)
            if space.is_reduction:
                return own if own == space else None
            return own  # a pointwise kernel becomes a reduction kernel; its nodes are re-checked
        return space if space.role(node) is not None else None

    def _join(self, kernel: FusedKernel, node: ComputedBuffer) -> None:
        if kernel.nodes:
            space = self._joined_space(kernel.space, node)
            assert space is not None
            kernel.space = space
        kernel.nodes.append(node)
        kernel.roles = {n.name: kernel.space.role(n) for n in kernel.nodes}  # type: ignore[misc]

    # ------------------------------------------------------------------------------------ stages
    def _assign_stages(self, kernel: FusedKernel) -> None:
        """x node: slot k runs before loop k; r node / reduction: runs in loop k."""
        available: dict[str, int] = {}
        for node in kernel.nodes:
            stage = 0
            for name, _ in self.reads[node.name]:
                if name in available:
                    stage = max(stage, available[name])
            kernel.stages[node.name] = stage
            is_reduction = isinstance(node.loops, ReductionLoops)
            available[node.name] = stage + 1 if is_reduction else stage

    # ------------------------------------------------------------------------------------ stores
    def _decide_stores(self, kernels: list[FusedKernel]) -> None:
        outside: dict[str, int] = {}
        for step in self.steps:
            if isinstance(step, ExternStep):
                for name in _extern_reads(step.call):
                    outside[name] = outside.get(name, 0) + 1
                continue
            own = step.names
            for node in step.nodes:
                for name, _ in self.reads[node.name]:
                    if name not in own:
                        outside[name] = outside.get(name, 0) + 1
        for v in _leaves(self.outputs):
            if isinstance(v, BufferView):
                outside[v.buffer.name] = outside.get(v.buffer.name, 0) + 1
        for k in kernels:
            k.stores = {n.name for n in k.nodes if n.name in outside}


def _leaves(values: Any) -> list[Any]:
    from torch.utils import _pytree as pytree

    return pytree.tree_leaves(values)


def _extern_reads(call: ExternCall) -> set[str]:
    from torch.utils import _pytree as pytree

    return {v.buffer.name for v in pytree.tree_leaves((call.args, call.kwargs)) if isinstance(v, BufferView)}
