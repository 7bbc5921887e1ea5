"""Buffer reuse in a compiled graph's host code: within one call, a kernel output takes over the storage
of a buffer whose last use has passed, instead of a fresh allocation (as inductor's wrapper reuses
buffers); between calls, a graph may keep its buffers' storage and take it again next call.

Why: each fresh allocation of a large activation may be memory glibc has just given back to the system
(it trims its heap top once more than twice the largest freed ``mmap``-ed block is free there), so the
step faults those pages in again; reused or kept storage is memory already mapped and touched.

The rule within a call (:func:`plan_reuse`): a buffer *B* that a kernel allocated can back a later kernel
output *N* when

- *B* never leaves the graph: it is not (the base of) a graph output, and no extern call that may return
  a view of its input reads it (an aliasing schema, or an op loom cannot inspect), so nothing outside
  the graph's host code holds its storage once *B*'s name is dropped;
- *B*'s last use is at a step before *N*'s allocation (the code generator says where a step's buffers
  die: for the C backend, after the run of kernels that reads them);
- both have the same dtype and device and span the same number of elements from offset 0, all sizes
  static (the new buffer is ``reinterpret``-ed onto the old storage when its sizes or strides differ).

Between calls (:func:`keep_between_calls`): see its docstring; the host code takes kept storage only
when ``tensors.storage_shared`` says nothing else holds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch
from torch.utils import _pytree as pytree

from . import symbols
from .ir import BufferView, ComputedBuffer

#: smaller buffers are not kept between calls: glibc serves them from its free lists, not fresh pages,
#: and the check for other holders costs about what such an allocation does
KEEP_MIN_BYTES = 64 << 10


@dataclass
class ReusePlan:
    """``takes[new] = old``: the new buffer is the old one's storage; ``held``: the old buffers whose
    ``del`` at their last use is replaced by the hand-over.

    Between calls (:func:`keep_between_calls`): ``from_pool[first]`` names the pool slot the first buffer
    of a chain (a buffer and the buffers that take it over in turn) takes its storage from;
    ``to_pool[last]`` the slot the last one gives its storage back to at its last use, ``at_return[last]``
    the slot a returned last one is kept in (checked for other holders when taken, next call)."""

    takes: dict[str, str] = field(default_factory=dict)
    held: set[str] = field(default_factory=set)
    from_pool: dict[str, str] = field(default_factory=dict)
    to_pool: dict[str, str] = field(default_factory=dict)
    at_return: dict[str, str] = field(default_factory=dict)


def _key(buf: ComputedBuffer) -> tuple[Any, ...] | None:
    lay = buf.layout
    if symbols.static_int(lay.offset) != 0:
        return None
    span = symbols.static_int(lay.storage_numel())
    if span is None or span <= 0:
        return None
    return (lay.dtype, lay.device, span)


def may_alias(op: Any) -> bool:
    """Whether an extern op may return (a view of) one of its inputs: any return with an alias
    annotation in its schema, or an op without a schema loom can read."""
    if not isinstance(op, torch._ops.OpOverload):
        return True
    return any(r.alias_info is not None for r in op._schema.returns)


def escaping(outputs: Any, externs: list[Any]) -> set[str]:
    """Names of buffers whose storage may outlive the graph's host code: graph outputs (and their bases)
    and inputs of extern calls that may return a view of them."""
    names = {v.buffer.name for v in pytree.tree_leaves(outputs) if isinstance(v, BufferView)}
    for call in externs:
        if may_alias(call.op):
            leaves = pytree.tree_leaves((call.args, call.kwargs))
            names |= {v.buffer.name for v in leaves if isinstance(v, BufferView)}
    return names


def plan_reuse(
    allocations: list[list[ComputedBuffer]], last_use: dict[str, int], escapes: set[str]
) -> ReusePlan:
    """Which allocation takes over which dead buffer: ``allocations[p]`` are the buffers allocated at
    step ``p`` (before it runs); ``last_use[name]`` the step after which ``name`` dies."""
    plan = ReusePlan()
    allocated = {b.name: b for step in allocations for b in step}
    dies_at: dict[int, list[str]] = {}
    for name, position in last_use.items():
        if name in allocated and name not in escapes:
            dies_at.setdefault(position, []).append(name)
    free: dict[tuple[Any, ...], list[str]] = {}
    for position, bufs in enumerate(allocations):
        for buf in bufs:
            key = _key(buf)
            pool = free.get(key) if key is not None else None
            if pool:
                old = pool.pop(0)
                plan.takes[buf.name] = old
                plan.held.add(old)
        for name in sorted(dies_at.get(position, [])):
            key = _key(allocated[name])
            if key is not None:
                free.setdefault(key, []).append(name)
    return plan


def keep_between_calls(plan: ReusePlan, allocations: list[list[ComputedBuffer]], escapes: set[str],
                       returned: set[str], budget: int) -> None:  # fmt: skip
    """Chains whose storage the graph keeps from one call to the next, first come first kept while their
    bytes fit in ``budget``: those every member of which dies inside the graph (given back at the last
    one's last use), and those whose last member is returned (a graph output, a tensor saved for the
    backward; kept at the return, taken next call only if nothing else holds it then)."""
    allocated = {b.name: b for step in allocations for b in step}
    taker = {old: new for new, old in plan.takes.items()}
    for name, buf in allocated.items():
        key = _key(buf)
        if name in plan.takes or key is None:
            continue  # not the first of a chain
        chain = [name]
        while chain[-1] in taker:
            chain.append(taker[chain[-1]])
        last = chain[-1]
        if last in returned:
            slots = plan.at_return
        elif last not in escapes:
            slots = plan.to_pool
        else:
            continue
        nbytes = key[2] * buf.layout.itemsize
        if nbytes < KEEP_MIN_BYTES or nbytes > budget:
            continue
        budget -= nbytes
        plan.from_pool[name] = name
        slots[last] = name
