"""Whether a frame can give a graph at all, decided once per code object before anything is translated.

A frame that holds no tensor and can reach none cannot give a graph: translating it costs a millisecond,
and running it under a cache entry costs more than running it plainly. :func:`frame_verdict` looks at
what the frame can reach: its arguments, its closure, and the globals its code (and the code of every
Python function those name, transitively) loads. It answers

* :data:`Verdict.COMPILE` when a tensor, an ``nn.Module``, a torch module, function, type or value, a
  compiled function, or anything it cannot see through within its budget is reachable: the frame goes
  to the translator;
* :data:`Verdict.SKIP_RECURSIVE` when nothing tensor-like is reachable *and* everything the code can call
  is known (its arguments are plain data, its globals are plain data, builtins, library modules and
  Python functions that pass the same test): the hook runs such a frame and everything it calls with
  the callback off, so deep pure-Python recursion runs as it does without loom;
* :data:`Verdict.SKIP` when nothing tensor-like is reachable but something is opaque (an instance or a
  class of the user's, whose methods may be called): the frame runs natively, its callees are still
  looked at one by one.

This is Dynamo's rule ("no tensor in the frame's locals and no ``torch`` global: skip the code") made
wider: a function reading a global tensor or module, taking a list of tensors, or calling a helper that
uses ``torch`` still compiles. Like Dynamo's, the verdict is taken from the first frame of a code object
and kept (``loom.reset()`` forgets it): a function first called with ints and later with tensors is not
compiled for the tensors (it still is wherever a compiled caller inlines it), and a global container
that is empty at the first call is taken as plain data.
"""

from __future__ import annotations

import enum
import functools
import types
from typing import Any

import torch

from . import skipfiles


class Verdict(enum.Enum):
    """What the facade does with a frame before translating it (see the module docstring)."""

    COMPILE = "compile"
    SKIP = "skip"
    SKIP_RECURSIVE = "skip_recursive"


#: Values of these types hold nothing and call nothing.
_PLAIN = frozenset({int, float, bool, complex, str, bytes, type(None), type(Ellipsis), type(NotImplemented),
                    range, slice})
_SEQUENCES = frozenset({tuple, list, set, frozenset})
#: How many objects one verdict may look at, how long a container it scans, how deep into objects.
_BUDGET = 2000
_LONGEST = 1000
_DEPTH = 3
_TORCH_NAMES = frozenset({"torch"})


class _Unknown(Exception):
    """The scan ran out of budget or met something it cannot look into: assume a graph is possible."""


def frame_verdict(code: types.CodeType, f_locals: Any, f_globals: dict[str, Any], f_builtins: Any,
                  closure: tuple[Any, ...] | None) -> Verdict:
    """The verdict for a frame of ``code`` at its first entry (``f_locals`` are its arguments)."""
    scan = _Scan()
    try:
        reaches = any(scan.value(value, 0) for value in f_locals.values()) or scan.code(
            code, f_globals, f_builtins, closure
        )
    except _Unknown:
        return Verdict.COMPILE
    except Exception:  # an argument's odd __eq__/__dict__: never let the verdict break the program
        return Verdict.COMPILE
    if reaches:
        return Verdict.COMPILE
    return Verdict.SKIP_RECURSIVE if scan.closed else Verdict.SKIP


def _is_torch_name(module_name: Any) -> bool:
    return isinstance(module_name, str) and (module_name == "torch" or module_name.startswith("torch."))


class _Scan:
    """One verdict's walk: True from a method means "a tensor-like thing is reachable from here"."""

    def __init__(self) -> None:
        self.budget = _BUDGET
        self.closed = True  # every callable met so far is known
        self._seen: set[int] = set()
        self._codes: set[int] = set()

    def _spend(self) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise _Unknown

    # -- values ---------------------------------------------------------------------------------------
    def value(self, value: Any, depth: int) -> bool:
        kind = type(value)
        if kind in _PLAIN:
            return False
        self._spend()
        if isinstance(value, (torch.Tensor, torch.nn.Module)):
            return True
        if id(value) in self._seen:
            return False
        self._seen.add(id(value))
        rule = _VALUE_RULES.get(kind)
        if rule is not None:
            return rule(self, value, depth)
        if isinstance(value, type):
            return self.cls(value, depth)
        if _is_torch_name(getattr(kind, "__module__", None)):
            return True  # a dtype, a device, a torch.Size, a torch function object
        return self.instance(value, depth)

    def sequence(self, value: Any, depth: int) -> bool:
        if len(value) > _LONGEST or depth > _DEPTH:
            raise _Unknown
        return any(self.value(item, depth + 1) for item in value)

    def mapping(self, value: dict, depth: int) -> bool:
        if len(value) > _LONGEST or depth > _DEPTH:
            raise _Unknown
        return any(self.value(k, depth + 1) or self.value(v, depth + 1) for k, v in value.items())

    def function(self, fn: types.FunctionType, depth: int) -> bool:
        if getattr(fn, "_loom_compiler", None) is not None:
            return True  # a loom.compile wrapper: it compiles what it wraps
        code = fn.__code__
        if skipfiles.is_library_code(code, fn.__globals__):
            # Library code calls only what it is given; torch's own Python functions make tensors.
            return _is_torch_name(fn.__globals__.get("__name__"))
        defaults = (*(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values())
        return any(self.value(d, depth + 1) for d in defaults) or self.code(
            code, fn.__globals__, fn.__builtins__, fn.__closure__
        )

    def method(self, value: types.MethodType, depth: int) -> bool:
        return self.value(value.__func__, depth) or self.value(value.__self__, depth)

    def builtin(self, value: Any, depth: int) -> bool:
        owner = value.__self__
        if isinstance(owner, types.ModuleType):
            return _is_torch_name(owner.__name__)
        return _is_torch_name(getattr(value, "__module__", None)) or self.value(owner, depth)

    def partial(self, value: functools.partial, depth: int) -> bool:
        return (self.value(value.func, depth) or self.sequence(value.args, depth)
                or self.mapping(value.keywords, depth))

    def module(self, value: types.ModuleType, depth: int) -> bool:
        return _is_torch_name(value.__name__)

    def cls(self, value: type, depth: int) -> bool:
        module = getattr(value, "__module__", None)
        if module == "builtins":
            return False
        if _is_torch_name(module):
            return True
        # A class of the user's (or a library's): calling it or its methods runs code not seen here.
        self.closed = False
        if depth > _DEPTH:
            return False
        return any(self.value(member, depth + 1) for member in list(vars(value).values())
                   if isinstance(member, (types.FunctionType, staticmethod, classmethod)))

    def wrapped_function(self, value: staticmethod | classmethod, depth: int) -> bool:
        return self.value(value.__func__, depth)

    def instance(self, value: Any, depth: int) -> bool:
        self.closed = False
        if depth > _DEPTH:
            return False
        # A container subclass (a namedtuple, an OrderedDict, a ModelOutput) holds its items itself
        if isinstance(value, (tuple, list, set, frozenset)) and self.sequence(value, depth):
            return True
        if isinstance(value, dict) and self.mapping(value, depth):
            return True
        state = getattr(value, "__dict__", None)
        if type(state) is dict and self.mapping(state, depth):
            return True
        if any(self.value(slot, depth + 1) for slot in _slot_values(value)):
            return True
        return self.cls(type(value), depth)

    # -- code -----------------------------------------------------------------------------------------
    def code(self, code: types.CodeType, f_globals: dict[str, Any], f_builtins: Any,
             closure: tuple[Any, ...] | None) -> bool:
        """Whether ``code`` (run with these globals and closure) can reach something tensor-like."""
        if id(code) in self._codes:
            return False
        self._codes.add(id(code))
        self._spend()
        names = code.co_names
        if not _TORCH_NAMES.isdisjoint(names):
            return True  # `import torch` inside, or torch under its usual name
        builtins = f_builtins if type(f_builtins) is dict else getattr(f_builtins, "__dict__", {})
        for name in names:
            if name in f_globals:
                found = f_globals[name]
            elif name in builtins:
                found = builtins[name]
            else:
                continue  # an attribute name: what it reads is reached through its object
            if self.value(found, 1):
                return True
            if type(found) is types.ModuleType and self.module_members(found, names):
                return True
        for cell in closure or ():
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if self.value(contents, 1):
                return True
        return any(self.code(const, f_globals, f_builtins, None) for const in code.co_consts
                   if type(const) is types.CodeType)

    def module_members(self, module: types.ModuleType, names: tuple[str, ...]) -> bool:
        """Whether a member of a (user) module that the code may read by one of ``names`` is tensor-like."""
        members = getattr(module, "__dict__", {})
        file = getattr(module, "__file__", None)
        if file is None or skipfiles.is_library_file(file):
            return False  # a library module's functions call only what they are given
        return any(self.value(members[name], 2) for name in names if name in members)


def _slot_values(value: Any) -> list[Any]:
    """The values in an object's ``__slots__``, read through the slots' member descriptors (no user code)."""
    found = []
    for klass in type(value).__mro__:
        for name in klass.__dict__.get("__slots__", ()):
            member = klass.__dict__.get(name)
            if isinstance(member, types.MemberDescriptorType):
                try:
                    found.append(member.__get__(value, klass))
                except AttributeError:  # an unset slot
                    pass
    return found


_VALUE_RULES: dict[type, Any] = {
    **{kind: _Scan.sequence for kind in _SEQUENCES},
    dict: _Scan.mapping,
    types.FunctionType: _Scan.function,
    types.MethodType: _Scan.method,
    types.BuiltinFunctionType: _Scan.builtin,
    types.ModuleType: _Scan.module,
    functools.partial: _Scan.partial,
    staticmethod: _Scan.wrapped_function,
    classmethod: _Scan.wrapped_function,
}
