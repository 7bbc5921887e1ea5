"""Whether a tensor (or a symbolic number) made inside a higher-order op's function is still reachable
outside it.

A body's nodes move into a sub-graph (:func:`loom_symbolic.subgraphs.carve`): only its results come
back out. A tensor the function stored elsewhere (``kept.append(y)`` on a list of the caller, an
attribute, a dict, a cell, a global) would then stand for a node that is no longer in the graph. So
after a body is traced, everything the calling frames can reach is searched for such tensors: the
frames' locals, stacks and cells, the values the trace stored on outside objects and globals, and the
side effects recorded so far.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from torch import fx

from .base import Variable
from .container_tables import IdentityKey
from .symbolic_scalars import SymbolicVariable
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def escaping_tensor(tx: InstructionTranslator, nodes: list[fx.Node]) -> bool:
    """Whether a tensor variable over one of ``nodes`` (the body's) is reachable from the calling frames
    or the trace's stored values (its results are not yet: they are handed back to the op)."""
    inside = set(nodes)
    if not inside:
        return False
    return _reaches(list(_roots(tx)), inside, into_generator_frames=False)


def holds_graph_value(values: list[Any], nodes: set[fx.Node]) -> bool:
    """Whether ``values`` (variables, containers of them) hold a tensor or symbolic number over one of
    ``nodes``, directly or through what they hold (searched as :func:`escaping_tensor` searches)."""
    return bool(nodes) and _reaches(list(values), nodes, into_generator_frames=False)


#: A translator's attributes that hold the values its frame can still reach.
FRAME_HOLDERS = ("symbolic_locals", "stack", "cells", "block_stack", "exc_info", "yielded", "return_value")


def still_reachable(tx: InstructionTranslator, nodes: list[fx.Node]) -> bool:
    """Whether a graph value over one of ``nodes`` can still be reached by the program: from any calling
    frame (locals, stack, cells, ``with`` blocks, exceptions being handled), from a generator suspended in
    the trace, or from what the trace stored on outside objects and globals. Unlike
    :func:`escaping_tensor`, generator frames reached through variables are searched too."""
    pending: list[Any] = list(_roots(tx))
    frame = tx
    while frame is not None:
        pending += [getattr(frame, name, None) for name in FRAME_HOLDERS]
        frame = getattr(frame, "parent", None)
    return _reaches(pending, set(nodes), into_generator_frames=True)


def _reaches(pending: list[Any], inside: set[fx.Node], *, into_generator_frames: bool) -> bool:
    """Whether a graph value over one of ``inside`` is held by ``pending`` or what it holds. With
    ``into_generator_frames``, a suspended generator's frame is searched like a calling frame, and any
    object's attributes are followed; without, only variables' and the translator's own objects'."""
    return any(isinstance(value, (TensorVariable, SymbolicVariable)) and value.node in inside
               for value in _walk(pending, into_generator_frames))


def reached(pending: list[Any], targets: list[Any]) -> set[int]:
    """The identities of the ``targets`` (variables) that ``pending`` holds, or what it holds, searched as
    :func:`still_reachable` searches (suspended generators' frames included)."""
    wanted = {id(target) for target in targets}
    return {id(value) for value in _walk(pending, True) if id(value) in wanted}


def _walk(pending: list[Any], into_generator_frames: bool):
    """Every value ``pending`` holds, directly or through what it holds (graph values are leaves)."""
    seen: set[int] = set()
    while pending:
        value = pending.pop()
        if value is None or id(value) in seen:
            continue
        seen.add(id(value))
        yield value
        if isinstance(value, (TensorVariable, SymbolicVariable)):
            continue
        if isinstance(value, IdentityKey):  # a dict's or set's member only the trace holds: a tensor, an object
            pending.append(value.variable)
        elif isinstance(value, (list, tuple, set, frozenset)):
            pending.extend(value)
        elif isinstance(value, dict):
            pending.extend(value.values())
            pending.extend(key for key in value if isinstance(key, IdentityKey))
        elif into_generator_frames:
            if _is_frame(value):  # a generator's suspended frame: what it can still reach
                pending += [getattr(value, name, None) for name in FRAME_HOLDERS]
            elif isinstance(value, Variable) or _loom_object(value):  # a cell box, an effect, a with block...
                pending.extend(v for v in vars(value).values() if _may_hold_variables(v) or _is_frame(v))
        elif isinstance(value, Variable) or _translator_object(value):  # a variable, a cell box, an effect
            pending.extend(v for v in vars(value).values() if _may_hold_variables(v) and not hasattr(v, "symbolic_locals"))


def contents(tx: InstructionTranslator) -> dict[int, tuple[Any, tuple]]:
    """What the mutable values the calling frames reach hold now (lists, dicts, sets and objects made in
    the trace, and cells), by identity: :func:`changed` tells whether a body traced since changed one.
    Values from outside the frame count their changes as side effects; these do not."""
    found: dict[int, tuple[Any, tuple]] = {}
    seen: set[int] = set()
    pending: list[Any] = list(_roots(tx))
    while pending:
        value = pending.pop()
        if id(value) in seen or isinstance(value, (TensorVariable, SymbolicVariable)):
            continue
        seen.add(id(value))
        if isinstance(value, (list, tuple, set, frozenset)):
            pending.extend(value)
        elif isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, Variable) or _translator_object(value):
            state = _held(value)
            if state is not None:
                found[id(value)] = (value, state)
            pending.extend(v for v in vars(value).values() if _may_hold_variables(v) and not hasattr(v, "symbolic_locals"))
    return found


def changed(tx: InstructionTranslator, before: dict[int, tuple[Any, tuple]]) -> bool:
    """Whether one of the values :func:`contents` saw holds something else now."""
    return any(_held(value) != state for value, state in before.values())


def _held(value: Any) -> tuple | None:
    """The identities of what a mutable value holds: a container's items, an object's attributes, a
    cell's contents, what a value that keeps its own state says it holds (``held_state``). None for other values."""
    own = getattr(value, "held_state", None) if isinstance(value, Variable) else None
    if own is not None:
        return own()
    for name in ("items", "attrs"):
        held = vars(value).get(name)
        if isinstance(held, list):
            return tuple(id(v) for v in held)
        if isinstance(held, dict):
            return tuple((k if isinstance(k, (str, int)) else id(k), id(v)) for k, v in held.items())
        if isinstance(held, set):
            return tuple(sorted(id(v) for v in held))
    if _translator_object(value) and "contents" in vars(value):
        return (id(value.contents),)
    return None


def _loom_object(value: Any) -> bool:
    """One of the translator's own objects (not the program's: their attributes hold real values, which
    hold no variables, and searching them would search whatever they reach, modules included)."""
    return type(value).__module__.startswith("loom_symbolic.") and hasattr(value, "__dict__")


def _is_frame(value: Any) -> bool:
    """Whether ``value`` is a translator (a frame's values): read from its own ``__dict__``, since asking
    other objects for an attribute can run their code (``torch.classes`` makes a class for any name)."""
    try:
        return "symbolic_locals" in object.__getattribute__(value, "__dict__")
    except Exception:
        return False


def _may_hold_variables(value: Any) -> bool:
    return isinstance(value, (Variable, list, tuple, dict, set, frozenset)) or _translator_object(value)


def _translator_object(value: Any) -> bool:
    """One of the translator's own records that hold variables: a cell box, a recorded side effect. Not a
    translator (a variable may keep the one that made it; the frames are searched as roots)."""
    return (type(value).__module__ in _RECORD_MODULES and hasattr(value, "__dict__")
            and not hasattr(value, "symbolic_locals"))


_RECORD_MODULES = frozenset({"loom_symbolic.side_effects", "loom_symbolic.variables.cells"})


def _roots(tx: Any) -> list[Any]:
    roots: list[Any] = []
    frame = tx
    while frame is not None:
        roots += [frame.symbolic_locals, frame.stack, getattr(frame, "cells", {})]
        frame = getattr(frame, "parent", None)
    return roots + side_effect_roots(tx)


def side_effect_roots(tx: Any) -> list[Any]:
    """The values the trace stored outside its frames: on objects, in globals, and the recorded effects."""
    effects = tx.output.side_effects
    return [effects.attr_overlay, effects.global_overlay, effects.effects]
