"""What a custom autograd Function's ``apply`` hands back beyond top-level tensors, and where the graph finds it.

``forward`` is speculated before the graph's node is recorded (:mod:`.autograd_function`); the speculation's
result is what the trace uses afterwards, with each graph value the speculation *made* (a tensor, a symbolic
number) taken from the node instead. The node calls the real ``apply`` as eager does, then reads those values
off what it returned and off the containers it was given, by the paths :func:`plan` finds:

* ``apply``'s own output: a tensor, or a tuple (any tuple, a named tuple too, comes back a plain tuple) whose
  tensors are autograd's outputs. A tensor ``forward`` made is the same object afterwards (autograd sets its
  ``grad_fn`` in place); an input returned comes back as a new tensor, so each position gets one of its own.
* values nested deeper (``return Pair(a.sin(), b), out``, ``return x, [y]``): handed back untouched, so a tensor
  ``forward`` made is read where it sits; one it was given is the caller's own object, kept as it is.
* lists and dicts made in the trace and passed to ``apply``: the node passes fresh copies (what FX builds for a
  list argument), ``forward`` fills them, and the node reads the tensors it put there; the trace's containers
  already hold what the speculation put in them.

A tensor the speculation made and left somewhere else (on an object of the caller) is found by the caller's
escape check: a break.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from torch.fx.immutable_collections import immutable_dict, immutable_list

from .. import policy
from ..errors import Unsupported
from .constant import ConstantVariable, is_constant_value
from .containers import DictVariable, SequenceVariable, TupleVariable
from .symbolic_scalars import SymbolicVariable
from .tensor import TensorVariable

#: Where one value sits: its root (``("result",)``: the output itself; ``("result", i)``: its i-th item;
#: ``("arg", i)``: the i-th argument ``apply`` was given), then its steps ``("seq", i)``, ``("key", k)``,
#: ``("attr", name)``.
Path = tuple


@dataclass
class Plan:
    """How the trace's result is made from the node's: the paths the node reads, in order, and what stands at
    each top-level position of ``apply``'s output."""

    paths: list[Path]
    #: each top-level position: ``("var", variable)`` (the speculation's, its made values taken from the node)
    #: or ``("fresh", k)`` (the node's k-th value: an input ``forward`` returned, which autograd copies)
    top: list[tuple[str, Any]]
    #: whether the output is a tuple (its positions are items) or one value
    is_tuple: bool
    #: id(made variable) -> (the variable, the index of the node's value that replaces it)
    made: dict[int, tuple[Any, int]]

    def plain(self) -> bool:
        """Whether ``apply``'s own output already is the node's values: one tensor, or a tuple of tensors and
        constants each made once, nothing nested, no containers filled."""
        expected = []
        for i, (kind, value) in enumerate(self.top):
            if kind == "fresh" or _graph_value(value):
                expected.append((("result", i) if self.is_tuple else ("result",),))
            elif not _constant(value):
                return False
        return self.paths == expected

    def values(self, returned: Any, plain: bool) -> list[Any]:
        """The node's values, in the order of ``paths``, from what it returned (``plain``: ``apply``'s output)."""
        if not plain:
            return list(returned.items)
        if not self.is_tuple:
            return [returned]
        return [item for item, (kind, value) in zip(returned.items, self.top) if kind == "fresh" or _graph_value(value)]


def _graph_value(value: Any) -> bool:
    return isinstance(value, (TensorVariable, SymbolicVariable))


def _constant(value: Any) -> bool:
    return isinstance(value, ConstantVariable) and is_constant_value(value.as_python_constant())


def plan(result: Any, containers: list[tuple[int, Any]], made_nodes: set[Any]) -> Plan:
    """The paths of the graph values the speculation made (over ``made_nodes``) that ``result`` (what it
    returned) and ``containers`` (``(position, variable)`` of the containers passed in) hold afterwards."""
    paths: list[Path] = []
    made: dict[int, tuple[Any, int]] = {}

    def take(value: Any, path: Path) -> bool:
        """Note ``value`` at ``path`` when the speculation made it; whether it did."""
        if value.node not in made_nodes:
            return False
        if id(value) not in made:
            made[id(value)] = (value, len(paths))
            paths.append(path)
        return True

    seen: set[int] = set()

    def visit(value: Any, path: Path) -> None:
        if _graph_value(value):
            take(value, path)
            return
        if id(value) in seen:
            return
        seen.add(id(value))
        items = getattr(value, "items", None)
        if isinstance(value, SequenceVariable) and isinstance(items, list):
            for i, item in enumerate(items):
                visit(item, (*path, ("seq", i)))
        elif isinstance(value, DictVariable) and isinstance(items, dict):
            for key, item in items.items():
                if is_constant_value(key):  # a key only the trace holds has no path: the escape check sees it
                    visit(item, (*path, ("key", key)))
        attrs = getattr(value, "attrs", None)
        if isinstance(attrs, dict):
            for name, item in attrs.items():
                if isinstance(name, str):
                    visit(item, (*path, ("attr", name)))

    is_tuple = isinstance(result, TupleVariable)
    positions = list(result.items) if is_tuple else [result]
    top: list[tuple[str, Any]] = []
    for i, item in enumerate(positions):
        root = (("result", i) if is_tuple else ("result",),)
        if _graph_value(item) and not take(item, root):
            if isinstance(item, TensorVariable):
                top.append(("fresh", len(paths)))
                paths.append(root)
            else:
                top.append(("var", item))  # a number passed in: returned as it is
            continue
        top.append(("var", item))
        if not _graph_value(item):
            visit(item, root)
    for position, container in containers:
        visit(container, (("arg", position),))
    return Plan(paths, top, is_tuple, made)


def _read(path: Path, result: Any, args: tuple) -> Any:
    """The value at ``path`` after ``apply`` returned ``result`` given ``args`` (builtin lookups: a class's own
    ``__getitem__`` or ``__getattr__`` is not what put the value there)."""
    root, steps = path[0], path[1:]
    if root[0] == "arg":
        value = args[root[1]]
    else:
        value = result if len(root) == 1 else result[root[1]]
    for kind, key in steps:
        if kind == "seq":
            value = (list.__getitem__ if isinstance(value, list) else tuple.__getitem__)(value, key)
        elif kind == "key":
            value = dict.__getitem__(value, key)
        else:
            held = getattr(value, "__dict__", None)
            value = held[key] if isinstance(held, dict) and key in held else object.__getattribute__(value, key)
    return value


#: Function class -> {(copied positions, paths or None): the node's target} (one per layout, so graphs compare
#: equal).
_TARGETS: weakref.WeakKeyDictionary[type, dict[tuple, Callable]] = weakref.WeakKeyDictionary()


def node_target(cls: type, copied: tuple[int, ...], paths: list[Path] | None) -> Callable:
    """A plain function calling ``cls.apply`` (FX names a target by its module, and a bound ``apply`` claims
    to live in ``torch.autograd.function``, which generated code would import it from). The containers at
    ``copied`` have FX's immutable lists and dicts made plain (a graph interpreter hands them, and ``forward``
    may fill them); with ``paths`` it returns the values there, as a tuple, else ``apply``'s
    output."""
    table = _TARGETS.setdefault(cls, {})
    key = (copied, None if paths is None else tuple(paths))
    target = table.get(key)
    if target is None:
        apply, reads = cls.apply, key[1]

        def target(*args: Any) -> Any:
            if copied:
                args = tuple(_fresh(arg) if i in copied else arg for i, arg in enumerate(args))
            # forward runs as in eager: not compiled as a frame of its own under the graph
            result = policy.call_natively(apply, *args)
            return result if reads is None else tuple(_read(path, result, args) for path in reads)

        target.__name__ = target.__qualname__ = f"{cls.__name__}_apply" + ("" if reads is None else "_values")
        target.__doc__ = f"Calls {cls.__module__}.{cls.__qualname__}.apply" + (
            "." if reads is None else f"; returns the values at {len(reads)} paths.")
        target.loom_autograd_function = cls
        table[key] = target
    return target


def _fresh(value: Any) -> Any:
    """``value`` with FX's immutable lists and dicts (what a graph interpreter passes for a container
    argument) replaced by plain ones ``forward`` may fill. Other containers are the node's own (fresh for
    the call) or the frame's bound objects: kept, only what they hold converted."""
    if isinstance(value, immutable_list):
        return [_fresh(item) for item in value]
    if isinstance(value, immutable_dict):
        return {key: _fresh(item) for key, item in value.items()}
    if type(value) is list:
        for i, item in enumerate(value):
            if (new := _fresh(item)) is not item:
                value[i] = new
    elif type(value) is dict:
        for key, item in value.items():
            if (new := _fresh(item)) is not item:
                value[key] = new
    elif type(value) is tuple:
        items = tuple(_fresh(item) for item in value)
        if any(a is not b for a, b in zip(items, value)):
            return items
    return value


def rebuild(the_plan: Plan, values: list[Any]) -> Any:
    """The trace's result: each made value now the node's (its variable repointed, so every holder sees it),
    each input returned replaced by the node's copy, the output a plain tuple if it was any tuple."""
    for variable, index in the_plan.made.values():
        fresh = values[index]
        if type(fresh) is not type(variable):
            raise Unsupported(f"an autograd Function's forward returning {variable.describe()}",
                              f"apply hands back {fresh.describe()} there")
        vars(variable).clear()
        vars(variable).update(vars(fresh))
    items = [values[value] if kind == "fresh" else value for kind, value in the_plan.top]
    return TupleVariable(items) if the_plan.is_tuple else items[0]
