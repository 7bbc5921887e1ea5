"""Objects from the frame passed to a custom autograd Function's ``apply`` (a module, a dataclass instance,
any user object): bound into the graph node's target rather than passed as graph inputs.

``forward`` reads such an object while it is speculated, which guards what it reads; the object itself is
guarded by identity, so the node's target may hold it: at run time the real ``apply`` receives the very
object eager would. The tensors the trace read from the object (a module's parameters, a dataclass's
tensor field) are graph inputs all the same: the node passes them, and the target puts each in its place
on the object for the call (the same tensor as it run as is; a FakeTensor or proxy while a backend such as
AOTAutograd traces the graph, which must see them as inputs, not constants), and puts the object back
after. A tensor read from somewhere the target cannot put it back (a slotted attribute, a list item)
leaves the fake run refusing it, a graph break. An object made while tracing has no identity to guard
and still breaks the graph; ``forward`` changing an object's state is refused by the speculation.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import loom_guards

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

#: Source kinds a tensor can be put back through: (how to reach the table holding it, its key).
_TABLES = {loom_guards.ModuleParam: "_parameters", loom_guards.ModuleBuffer: "_buffers"}


def is_frame_object(arg: Variable) -> bool:
    """``arg`` wraps a real object the frame reached (it has a source the guards can check)."""
    return bool(getattr(arg, "wraps_real_object", False)) and getattr(arg, "source", None) is not None \
        and hasattr(arg, "value")


def _path(source: Any, roots: dict[Any, int]) -> tuple[int, list[Any]] | None:
    """(position of the bound object ``source`` starts from, the sources from it to the tensor), or None."""
    chain = []
    while source not in roots:
        base = getattr(source, "base", None)
        if base is None or not isinstance(source, (loom_guards.Attr, loom_guards.Submodule, *_TABLES)):
            return None
        chain.append(source)
        source = base
    return roots[source], chain[::-1]


def _table(holder: Any, last: Any) -> dict | None:
    """The dict ``last`` reads its tensor from on ``holder`` (None: not one the target may write)."""
    table = _TABLES.get(type(last))
    if table is not None:
        return holder.__dict__[table]
    if isinstance(last, loom_guards.Attr) and last.name in getattr(holder, "__dict__", ()):
        return holder.__dict__
    return None


@contextlib.contextmanager
def _placed(objects: dict[int, Any], paths: list[tuple[int, list[Any]]], tensors: tuple) -> Iterator[None]:
    """Each of ``tensors`` in its place on the bound objects, for one call; the old values back after."""
    undo = []
    try:
        for (position, chain), tensor in zip(paths, tensors):
            holder = objects[position]
            for step in chain[:-1]:
                holder = step.read_from(holder)
            table = _table(holder, chain[-1])
            key = chain[-1].name
            undo.append((table, key, table[key]))
            table[key] = tensor
        yield
    finally:
        for table, key, old in reversed(undo):
            table[key] = old


def bind_frame_objects(tx: InstructionTranslator, caller: Callable, args: list[Variable]) -> tuple[Callable, list]:
    """``caller`` with the frame objects among ``args`` bound at their positions (each guarded by identity),
    and what the node passes: the other arguments, then the graph inputs read from the bound objects."""
    fixed = {i: arg for i, arg in enumerate(args) if is_frame_object(arg)}
    if not fixed:
        return caller, args
    for arg in fixed.values():
        tx.output.guards.add("identity", arg.source, arg.value)
    objects = {i: arg.value for i, arg in fixed.items()}
    roots = {arg.source: i for i, arg in fixed.items()}
    paths, lifted = [], []
    for graph_input in list(tx.output.inputs):
        path = _path(graph_input.source, roots)
        if path is None or graph_input.convert is not None:
            continue
        holder = objects[path[0]]
        try:
            for step in path[1][:-1]:
                holder = step.read_from(holder)
        except (AttributeError, KeyError):
            continue
        if _table(holder, path[1][-1]) is not None:
            paths.append(path)
            lifted.append(tx.output.add_tensor_input(graph_input.example, graph_input.source))
    count, passed_count = len(args), len(args) - len(fixed)

    def bound(*passed: Any) -> Any:
        rest = iter(passed[:passed_count])
        with _placed(objects, paths, passed[passed_count:]):
            return caller(*[objects[i] if i in objects else next(rest) for i in range(count)])

    bound.__name__ = bound.__qualname__ = f"{caller.__name__}_with_objects"
    bound.__doc__ = f"{caller.__doc__} With objects from the frame at positions {sorted(objects)}."
    return bound, [arg for i, arg in enumerate(args) if i not in fixed] + lifted
