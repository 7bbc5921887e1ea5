"""When loom makes sizes and ints dynamic (``loom.compile(dynamic=...)``), and ``loom.mark_dynamic``.

- ``dynamic=False``: never; every size and int argument is a guarded constant.
- ``dynamic=True``: every dimension of every tensor argument, and every int argument, is a symbol from
  the first compile (sizes 0 and 1 are still specialised, as PyTorch does).
- ``dynamic=None`` (the default): compile static first; when a frame is compiled again because an
  argument's size (or an int or float argument) changed, the dimensions (numbers) that changed become
  symbols, so one more compile serves every later size. So does an int or float the trace read elsewhere
  (an attribute, a dict item) whose constant guard failed (:meth:`DynamicPolicy.learn_from_failure`). A
  float becomes a SymFloat graph input, as torch.compile's automatic dynamic makes it; a decision the trace
  takes on it pins its value again.

Whatever the mode, an iterator argument (a list, tuple, range or dict iterator) found at another
position than on the frame's earlier compile is not modelled from then on: ``next()`` on it is one graph
break, not one compile per position.

``loom.mark_dynamic(t, dim)`` asks for a dimension of an argument to be symbolic from the start (with
``dynamic=None`` or ``True``); ``loom.mark_static(t, dim)`` keeps one static whatever happens.
"""

from __future__ import annotations

import dataclasses
import itertools
import operator
import threading
import types
from typing import Any

import torch

from loom_guards.kinds import const_eq  # equal as the constant guard compares: -0.0 is not 0.0, NaN is NaN
from loom_symbolic.bytecode_helpers import LiveIterator
from loom_symbolic.shapes import NO_DYNAMIC, DynamicSpec


class DynamicPolicy:
    """Per code object: the argument sizes seen by earlier compiles, and what became dynamic."""

    def __init__(self, mode: bool | None) -> None:
        self.mode = mode
        self._lock = threading.Lock()
        #: code → {argument source: last sizes (tuple) or int value}
        self._seen: dict[types.CodeType, dict[str, Any]] = {}
        #: code → {iterator argument source: items it had left} at the last compile
        self._positions: dict[types.CodeType, dict[str, Any]] = {}
        #: code → iterator argument sources seen at two positions
        self._moving: dict[types.CodeType, frozenset[str]] = {}
        #: code → (dims by source, int and float sources, varying local names) learned so far
        self._dynamic: dict[types.CodeType, tuple[dict[str, frozenset[int]], frozenset[str], frozenset[str]]] = {}
        #: codes whose float arguments stay constants: a backend failed on a graph taking them as inputs
        self._static_floats: set[types.CodeType] = set()

    def spec_for(self, code: types.CodeType, f_locals: Any, closure: Any = None) -> DynamicSpec:
        """The dynamic shapes to translate ``code`` with, for these arguments (and ``closure``, the frame's
        cells, matched to ``code.co_freevars``)."""
        spec = self._sizes_spec(code, f_locals, closure)
        moving = self._moving_iterators(code, f_locals)
        return dataclasses.replace(spec, moving_iterators=moving) if moving else spec

    def _moving_iterators(self, code: types.CodeType, f_locals: Any) -> frozenset[str]:
        with self._lock:
            before = self._positions.get(code)
            moving = self._moving.get(code, frozenset())
            if before is None:
                return moving
            now = _iterator_positions(f_locals)
            changed = {key for key, left in now.items() if before.get(key, left) != left}
            if changed - moving:
                moving = self._moving[code] = moving | changed
            return moving

    def _sizes_spec(self, code: types.CodeType, f_locals: Any, closure: Any) -> DynamicSpec:
        if self.mode is False:
            return NO_DYNAMIC
        if self.mode is True:
            ints = frozenset(f"L[{n!r}]" for n, v in f_locals.items() if type(v) is int)
            return DynamicSpec(all_dims=True, ints=ints)
        with self._lock:
            seen = self._seen.get(code)
            dims, ints, varying = self._dynamic.get(code, ({}, frozenset(), frozenset()))
            if seen is not None:
                dims, ints, varying = dict(dims), set(ints), set(varying)
                for key, now in _arguments(f_locals, code, closure).items():
                    before = seen.get(key)
                    if type(key) is tuple:  # ("len", name): (type, length)
                        if before is not None and before[0] is now[0] and before[1] != now[1]:
                            varying.add(key[1])
                    elif isinstance(now, tuple) and isinstance(before, tuple) and len(now) == len(before):
                        changed = frozenset(d for d, (a, b) in enumerate(zip(now, before)) if a != b)
                        if changed:
                            dims[key] = dims.get(key, frozenset()) | changed
                    elif type(now) in (int, float) and type(before) is type(now) and not const_eq(now, before):
                        ints.add(key)
                ints, varying = frozenset(ints), frozenset(varying)
                self._dynamic[code] = (dims, ints, varying)
        if dims or ints or varying:
            # a number that changed is a symbol of the type it holds at this call (an int or a float)
            floats = frozenset() if code in self._static_floats else ints
            return DynamicSpec(dims=dims, ints=ints, floats=floats, varying=varying)
        return NO_DYNAMIC

    def learn_from_failure(self, code: types.CodeType, failure: Any) -> None:
        """A recompile of ``code`` because a number it guarded as a constant changed (``failure``, the
        ``GuardFailure`` of its entry): with ``dynamic=None``, that number is a symbol from the next compile
        on, wherever the trace read it (an attribute, a dict item: an optimizer's ``param_groups[0]['lr']``
        that a scheduler changes every step), as one that is an argument (:meth:`spec_for`) already is."""
        guard = getattr(failure, "guard", None)
        if self.mode is not None or getattr(guard, "kind", None) != "const" or type(guard.value) not in (int, float):
            return
        key = str(guard.source)
        with self._lock:
            dims, ints, varying = self._dynamic.get(code, ({}, frozenset(), frozenset()))
            if key not in ints:
                self._dynamic[code] = (dims, ints | {key}, varying)

    def record(self, code: types.CodeType, f_locals: Any, closure: Any = None) -> None:
        """Remember the sizes (and iterator positions) a successful compile saw."""
        positions = _iterator_positions(f_locals)
        if positions or code in self._positions:
            with self._lock:
                self._positions[code] = positions
        if self.mode is None:
            with self._lock:
                self._seen[code] = _arguments(f_locals, code, closure)

    def keep_floats_static(self, code: types.CodeType, spec: DynamicSpec) -> bool:
        """Make ``code``'s float arguments constants from now on, after a backend failed on a graph compiled
        with ``spec`` (AOTAutograd cannot take every use of a float input: ``x % 0.7``, or it asks for the
        float specialised, ``TensorifyScalarRestartAnalysis``); whether that changes anything."""
        if not spec.floats:
            return False
        with self._lock:
            if code in self._static_floats:
                return False
            self._static_floats.add(code)
        return True

    def clear(self) -> None:
        """Forget everything (``loom.reset``)."""
        with self._lock:
            self._static_floats.clear()
            self._seen.clear()
            self._dynamic.clear()
            self._positions.clear()
            self._moving.clear()


#: Iterators whose position the translator models (and guards): list, tuple, range, dict, str and bytes ones, and
#: reverse iterators.
_POSITIONED_ITERATORS = frozenset(type(it) for it in (iter([]), iter(()), iter(range(0)), iter(range(1 << 64)),
                                                     iter({}), iter({}.items()), iter({}.values()), reversed([]),
                                                     reversed(()), iter(""), iter("\u00e9"), iter(b"")))
#: Builtin iterators over other iterators the translator models through their ``__reduce__`` (their inner
#: iterators' positions guarded): where they stand is where those stand (and an enumerate's count).
_WRAPPING_ITERATORS = frozenset((map, filter, zip, enumerate))


def _position(value: Any) -> Any:
    """Where an iterator the translator models stands (what a guard on it pins), or None for another value."""
    if type(value) in _POSITIONED_ITERATORS:
        return operator.length_hint(value)
    if type(value) is itertools.count:  # read (and guarded) through its repr: the number it stands at
        return repr(value)
    if type(value) in _WRAPPING_ITERATORS:
        parts = value.__reduce__()[1]
        return tuple(part if type(part) is int else _position(part) for part in parts)
    return None


def _iterator_positions(f_locals: Any) -> dict[str, Any]:
    """How many items each iterator argument has left, by source text (also inside ``*args``)."""
    found: dict[str, Any] = {}
    for name, value in f_locals.items():
        if (left := _position(value)) is not None:
            found[f"L[{name!r}]"] = left
        elif type(value) is LiveIterator:  # a loop resumed over an iterator that is its own state
            if (left := _position(value.iterator)) is not None:
                # under both names: the next pass's resume function gets the iterator itself there
                found[f"L[{name!r}].iterator"] = found[f"L[{name!r}]"] = left
        elif type(value) is tuple:
            for i, item in enumerate(value):
                if (left := _position(item)) is not None:
                    found[f"L[{name!r}][{i!r}]"] = left
    return found


def _arguments(f_locals: Any, code: types.CodeType | None = None, closure: Any = None) -> dict[Any, Any]:
    """Sizes of the tensor arguments and values of the int arguments, by source text — including those
    inside ``*args`` / ``**kwargs`` and other tuples, lists and dicts (``L['args'][0]``), and the ints held
    by the frame's closure cells (``C['i']``: an inner comprehension or nested function reads its outer
    loop's counter there, a new value on each outer pass)."""
    found: dict[str, Any] = {}

    def visit(key: str, value: Any, depth: int) -> None:
        if isinstance(value, torch.nn.parameter.UninitializedTensorMixin):
            return  # a lazy module's parameter before its first call has no shape to read
        if isinstance(value, torch.Tensor):
            found[key] = tuple(int(s) for s in value.shape)
        elif type(value) in (int, float):
            found[key] = value
        elif depth < _DEPTH and type(value) in (tuple, list):
            for i, item in enumerate(value):
                visit(f"{key}[{i!r}]", item, depth + 1)
        elif depth < _DEPTH and type(value) is dict:
            for name, item in value.items():
                if isinstance(name, str):
                    visit(f"{key}[{name!r}]", item, depth + 1)

    for name, value in f_locals.items():
        visit(f"L[{name!r}]", value, 0)
        if type(value) in _LENGTHS_SEEN:
            found[("len", name)] = (type(value), len(value))  # a tuple key: never a source text
    if closure and code is not None:
        for name, cell in zip(code.co_freevars, closure):
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if type(value) in (int, float):
                found[f"C[{name!r}]"] = value
    return found


#: Arguments whose length is remembered: one that differs between entries is a value a loop grows in
#: every pass, which a loop's resume function hands on unread (``DynamicSpec.varying``).
_LENGTHS_SEEN = (list, tuple, dict, str, set)


#: How deep into containers arguments are looked at (``*args`` and ``**kwargs`` are one level).
_DEPTH = 2


def mark_dynamic(tensor: torch.Tensor, dim: int | list[int] | tuple[int, ...]) -> None:
    """Make dimension(s) ``dim`` of ``tensor`` symbolic when it is passed to a compiled function."""
    _mark(tensor, dim, "_loom_dynamic_dims", "mark_dynamic")


def mark_static(tensor: torch.Tensor, dim: int | list[int] | tuple[int, ...]) -> None:
    """Keep dimension(s) ``dim`` of ``tensor`` static, even when its size changes between calls."""
    _mark(tensor, dim, "_loom_static_dims", "mark_static")


def _mark(tensor: Any, dim: Any, attribute: str, name: str) -> None:
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"loom.{name}() expects a torch.Tensor, got {type(tensor).__name__}")
    dims = [dim] if isinstance(dim, int) and not isinstance(dim, bool) else list(dim) if isinstance(dim, (list, tuple)) else None
    if dims is None or not all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
        raise TypeError(f"loom.{name}() expects a dimension (an int) or a list of them, got {dim!r}")
    for d in dims:
        if not -tensor.dim() <= d < tensor.dim():
            raise ValueError(f"loom.{name}(): dimension {d} is out of range for a {tensor.dim()}-d tensor")
    marked = set(getattr(tensor, attribute, ())) | {d % tensor.dim() for d in dims}
    setattr(tensor, attribute, marked)
