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


#: What :func:`frame_object` answers for a variable that is no object from the frame.
NO_OBJECT = object()


def frame_object(tx: InstructionTranslator, arg: Variable) -> Any:
    """The real object ``arg`` wraps when the frame reached it (it has a source the guards can check): an
    object, or a list or dict the trace has not changed (``self.layers``); else :data:`NO_OBJECT`."""
    source = getattr(arg, "source", None)
    if source is None:
        return NO_OBJECT
    if getattr(arg, "wraps_real_object", False) and hasattr(arg, "value"):
        return arg.value
    if getattr(arg, "mutable", False) and type(arg).__name__ in ("ListVariable", "DictVariable") \
            and not tx.output.side_effects.is_mutated_container(arg):
        for value, variable in tx.output.known_objects.values():
            if variable is arg:
                return value
    return NO_OBJECT


def _path(source: Any, roots: dict[Any, int]) -> tuple[int, list[Any]] | None:
    """(position of the bound object ``source`` starts from, the sources from it to the tensor), or None."""
    chain = []
    while source not in roots:
        base = getattr(source, "base", None)
        if base is None or not isinstance(source, (loom_guards.Attr, loom_guards.Item, loom_guards.Submodule, *_TABLES)):
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
def _placed(objects: list[Any], paths: list[tuple[int, list[Any]]], tensors: tuple) -> Iterator[None]:
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


def bind_frame_objects(tx: InstructionTranslator, caller: Callable, args: list[Variable],
                       graph_value: Callable[[Variable], bool]) -> tuple[Callable, list]:
    """``caller`` with the frame objects among ``args`` bound in their places (each guarded by identity), and
    what the node passes: the arguments that are graph values (``graph_value``), then the graph inputs read
    from the bound objects. A tuple, list or dict holding frame objects (``(self.a, self.b)``) is rebuilt
    around them for each call."""
    objects: list[Any] = []
    sources: list[Any] = []
    passed: list[Variable] = []

    def template(arg: Variable) -> tuple:
        if graph_value(arg):
            passed.append(arg)
            return ("pass", len(passed) - 1)
        value = frame_object(tx, arg)
        if value is not NO_OBJECT:
            objects.append(value)
            sources.append(arg.source)
            return ("object", len(objects) - 1)
        items = arg.items  # a container of the above (the caller checked)
        if isinstance(items, dict):
            return ("dict", tuple((key, template(item)) for key, item in items.items()))
        return (type(arg).__name__, tuple(template(item) for item in items))

    templates = [template(arg) for arg in args]
    if not objects:
        return caller, args
    for source, value in zip(sources, objects):
        tx.output.guards.add("identity", source, value)
    roots = {source: i for i, source in enumerate(sources)}
    paths, lifted = [], []
    for graph_input in list(tx.output.inputs):
        path = _path(graph_input.source, roots)
        if path is None or graph_input.convert is not None:
            continue
        holder = objects[path[0]]
        try:
            for step in path[1][:-1]:
                holder = step.read_from(holder)
        except (AttributeError, KeyError, IndexError, TypeError):
            continue
        if _table(holder, path[1][-1]) is not None:
            paths.append(path)
            lifted.append(tx.output.add_tensor_input(graph_input.example, graph_input.source))
    passed_count = len(passed)

    def bound(*given: Any) -> Any:
        values = given[:passed_count]
        with _placed(objects, paths, given[passed_count:]):
            return caller(*[_built(t, values, objects) for t in templates])

    bound.__name__ = bound.__qualname__ = f"{caller.__name__}_with_objects"
    bound.__doc__ = f"{caller.__doc__} With {len(objects)} objects from the frame bound in."
    return bound, passed + lifted


def _built(template: tuple, values: tuple, objects: list[Any]) -> Any:
    """One argument of ``apply`` from its template: a passed value, a bound object, or a container of them."""
    kind, held = template
    if kind == "pass":
        return values[held]
    if kind == "object":
        return objects[held]
    if kind == "dict":
        return {key: _built(item, values, objects) for key, item in held}
    items = [_built(item, values, objects) for item in held]
    return items if kind == "ListVariable" else tuple(items)
