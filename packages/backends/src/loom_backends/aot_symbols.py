"""Size symbols of aliased graph inputs, lifted to SymInt graph inputs for AOTAutograd.

When two tensor inputs share a storage and one is written in place, AOTAutograd replaces them by one
*synthetic base* and regenerates each as ``as_strided(base, size, stride, offset)`` with the sizes of
its fake input. With dynamic shapes those sizes are symbols (``s52``), and its tracer can only use a
symbol it reached from a graph input: the base's own sizes are other expressions, so the trace fails
("s52 is not tracked with proxy"). torch.compile's graphs carry every free symbol of their inputs as a
SymInt input (dynamo's ``_lift_free_symbols``); loom's graphs carry only the dynamic ints the program
reads. For the graphs AOTAutograd may give a synthetic base (inputs that share a storage and have a
symbolic size, stride or offset) :func:`lift_aliased_view_symbols` adds those symbols as trailing
SymInt inputs, each read at run time from the tensor input it sizes, so every other graph is handed on
unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: Where a symbol is read at run time: (input index, "size" | "stride" | "offset", dim).
_Site = tuple[int, str, int]


@dataclass
class LiftedSymbols:
    """``graph_module``: the graph with the lifted SymInt inputs after its own; ``example_inputs``: its
    example inputs with the symbols' SymInts after them; ``sites``: where each symbol is read at run time."""

    graph_module: Any
    example_inputs: list[Any]
    sites: list[_Site]

    def wrap(self, compiled: Callable[..., Any]) -> Callable[..., Any]:
        """``compiled`` (of the lifted graph) called with the original graph's arguments."""
        sites = self.sites

        def with_lifted_symbols(*args: Any) -> Any:
            return compiled(*args, *[_read(args[i], kind, dim) for i, kind, dim in sites])

        return with_lifted_symbols


def lift_aliased_view_symbols(gm: Any, example_inputs: list[Any]) -> LiftedSymbols | None:
    """The graph with its aliased inputs' free size symbols lifted to SymInt inputs, or None when no two
    tensor inputs share a storage with a symbolic size, stride or offset, or every such symbol is a
    graph input already, or when one of those inputs requires grad (see the module docstring)."""
    import torch

    tensors = [(i, x) for i, x in enumerate(example_inputs) if isinstance(x, torch._subclasses.FakeTensor)]
    if len(tensors) < 2:
        return None
    by_storage: dict[int, list[int]] = {}
    for i, x in tensors:
        by_storage.setdefault(x.untyped_storage()._cdata, []).append(i)
    aliased = sorted(i for group in by_storage.values() if len(group) > 1 for i in group)
    if not any(_symbolic_sites(example_inputs[i]) for i in aliased):
        return None
    if any(example_inputs[i].requires_grad for i in aliased):
        # a training graph's synthetic base is the views' ``_base``, whose fake may be static (fakeified
        # with an earlier, static input): its tangent would keep that size. Such a frame runs uncompiled.
        return None
    present = {x.node.expr for x in example_inputs if isinstance(x, torch.SymInt)}
    sites: list[_Site] = []
    values: list[Any] = []
    for i, x in tensors:  # every input's symbols, as dynamo lifts them: a regenerated view may use any
        for kind, dim, value in _symbolic_sites(x):
            expr = value.node.expr
            if expr.is_Symbol and expr not in present:
                present.add(expr)
                sites.append((i, kind, dim))
                values.append(value)
    if not sites:
        return None
    return LiftedSymbols(_with_symint_inputs(gm, values), [*example_inputs, *values], sites)


def _symbolic_sites(x: Any) -> list[tuple[str, int, Any]]:
    """``(kind, dim, SymInt)`` for each symbolic size, stride and the storage offset of fake ``x``."""
    import torch

    found = [("size", d, v) for d, v in enumerate(x.size()) if isinstance(v, torch.SymInt)]
    found += [("stride", d, v) for d, v in enumerate(x.stride()) if isinstance(v, torch.SymInt)]
    offset = x.storage_offset()
    if isinstance(offset, torch.SymInt):
        found.append(("offset", 0, offset))
    return found


def _read(x: Any, kind: str, dim: int) -> int:
    if kind == "size":
        return x.size(dim)
    if kind == "stride":
        return x.stride(dim)
    return x.storage_offset()


def _with_symint_inputs(gm: Any, values: list[Any]) -> Any:
    """A copy of ``gm`` with one SymInt placeholder per value after its own placeholders."""
    import copy

    import torch.fx

    graph = copy.deepcopy(gm.graph)
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    anchor = placeholders[-1] if placeholders else None
    for k, value in enumerate(values):
        with graph.inserting_after(anchor) if anchor is not None else graph.inserting_before(None):
            anchor = graph.placeholder(f"lifted_sym_{k}")
        anchor.meta["val"] = anchor.meta["example_value"] = value
    return torch.fx.GraphModule(gm, graph)
