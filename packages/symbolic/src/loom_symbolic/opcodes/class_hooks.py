"""A class statement's keywords (``class Local(Base, scale=5)``) and a user's ``__init_subclass__`` on its bases,
for :func:`.class_definitions.build_class` (and ``type(name, bases, namespace)``).

CPython hands the keywords to the first ``__init_subclass__`` up the new class's MRO. The class is still made
once, while tracing, by CPython's own ``__build_class__``, so the hooks run then, once: that keeps eager's
behaviour only where every user hook writes into the new class alone. Each one is checked by its bytecode:
it loads its arguments and constants, stores them as attributes of ``cls`` (the arguments eager binds anew
per call, the ``*args``/``**kwargs`` collections, are not stored), and calls ``super().__init_subclass__(...)``,
nothing else (no global, no other call, no other attribute). The keywords must be immutable constants (a class
too): what a hook stores is then the same in every call. A ``metaclass=`` other than ``type``, keywords only
known at run time, or a hook that does anything else stay one graph break at the class statement.
"""

from __future__ import annotations

import builtins
import dis
import inspect
import types
from typing import Any

from ..errors import Unsupported
from ..made_once import immutable
from ..policy import trusted_module_name

#: What a hook may run: loading its locals and constants, calls (only ``super()`` and ``__init_subclass__`` are
#: reachable, by the name checks below), ``**kw`` packing, attribute stores, returns.
_ALLOWED = frozenset({
    "RESUME", "NOP", "CACHE", "EXTENDED_ARG", "COPY_FREE_VARS", "MAKE_CELL", "LOAD_FAST", "LOAD_FAST_CHECK",
    "LOAD_FAST_LOAD_FAST", "LOAD_DEREF", "LOAD_CONST", "PUSH_NULL", "PRECALL", "CALL", "CALL_KW", "KW_NAMES",
    "CALL_FUNCTION_EX", "BUILD_MAP", "DICT_MERGE", "POP_TOP", "RETURN_VALUE", "RETURN_CONST", "STORE_ATTR",
    "LOAD_GLOBAL", "LOAD_ATTR", "LOAD_METHOD", "LOAD_SUPER_ATTR", "BUILD_TUPLE", "LIST_TO_TUPLE", "BUILD_LIST",
    "LIST_EXTEND",
})


def _same_each_call(value: Any) -> bool:
    """Whether keyword ``value`` is one object on every call: an immutable constant, a class, or a tuple of
    those."""
    if type(value) in (tuple, frozenset):
        return all(_same_each_call(item) for item in value)
    return isinstance(value, type) or immutable(value)


def class_keywords(kwargs: dict[str, Any], name: str) -> dict[str, Any]:
    """The constant keywords of ``class name(..., **kwargs)`` (``metaclass=type`` dropped: the default)."""
    if not all(v.is_python_constant() for v in kwargs.values()):
        raise Unsupported(f"class {name}", "its keywords are only known at run time")
    keywords = {k: v.as_python_constant() for k, v in kwargs.items()}
    if keywords.get("metaclass", type) is not type:
        raise Unsupported(f"class {name}", "a class statement with a metaclass= keyword",
                          hint="the translator makes classes of type only")
    keywords.pop("metaclass", None)
    for key, value in keywords.items():
        if not _same_each_call(value):
            raise Unsupported(f"class {name}", f"its keyword {key}= is a {type(value).__name__}, made anew per "
                              "call in eager")
    return keywords


def _previous(instructions: list[dis.Instruction], index: int) -> dis.Instruction | None:
    while index > 0:
        index -= 1
        if instructions[index].opname not in ("CACHE", "EXTENDED_ARG"):
            return instructions[index]
    return None


def _stores_on_cls_only(function: types.FunctionType) -> str | None:
    """Why ``function`` (an ``__init_subclass__``) may act beyond the class it is given, or None."""
    code = function.__code__
    if code.co_argcount < 1 or code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE):
        return "it is no plain function of cls"
    cls_name = code.co_varnames[0]
    collections = set()
    extra = code.co_argcount + code.co_kwonlyargcount
    if code.co_flags & inspect.CO_VARARGS:
        collections.add(code.co_varnames[extra])
        extra += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        collections.add(code.co_varnames[extra])
    instructions = list(dis.get_instructions(code))
    names = [ins.opname for ins in instructions]
    # only ``super()`` and ``super().__init_subclass__(...)`` are called (3.12's LOAD_SUPER_ATTR makes both one)
    attributes = [i for i in instructions if i.opname in ("LOAD_ATTR", "LOAD_METHOD", "LOAD_SUPER_ATTR")]
    expected = names.count("LOAD_GLOBAL") + len(attributes) - names.count("LOAD_SUPER_ATTR")
    if sum(names.count(call) for call in ("CALL", "CALL_KW", "CALL_FUNCTION_EX")) != expected:
        return "it calls something other than super().__init_subclass__"
    for index, ins in enumerate(instructions):
        if ins.opname not in _ALLOWED:
            return f"it runs {ins.opname}"
        if ins.opname == "LOAD_GLOBAL" and (ins.argval != "super" or "super" in function.__globals__):
            return f"it reads the global {ins.argval!r}"
        if ins.opname in ("LOAD_ATTR", "LOAD_METHOD", "LOAD_SUPER_ATTR") and ins.argval != "__init_subclass__":
            return f"it reads the attribute {ins.argval!r}"
        if ins.opname == "LOAD_DEREF" and ins.argval != "__class__":
            return f"it reads the free variable {ins.argval!r}"
        if ins.opname == "STORE_ATTR":
            target = _previous(instructions, index)
            names = target.argval if target is not None and isinstance(target.argval, tuple) else None
            if target is None or target.opname not in ("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_LOAD_FAST"):
                return "it stores an attribute of something other than cls"
            if names is not None:  # 3.13: value and receiver loaded by one instruction
                value_name, target_name = names
            else:
                value = _previous(instructions, instructions.index(target))
                target_name = target.argval
                value_name = value.argval if value is not None and value.opname.startswith("LOAD_FAST") else None
            if target_name != cls_name:
                return "it stores an attribute of something other than cls"
            if value_name in collections:
                return "it stores its *args or **kwargs, made anew per call"
    return None


def check_init_subclass(bases: tuple[type, ...], name: str) -> None:
    """Refuse (a graph break) a class on ``bases`` whose creation runs a user's ``__init_subclass__`` that may
    act beyond the new class."""
    seen: set[int] = set()
    for base in bases:
        for klass in base.__mro__:
            hook = klass.__dict__.get("__init_subclass__")
            if hook is None or id(klass) in seen:
                continue
            seen.add(id(klass))
            function = getattr(hook, "__func__", hook)
            if not isinstance(function, types.FunctionType):
                if trusted_module_name(getattr(klass, "__module__", "") or ""):
                    continue
                raise Unsupported(f"class {name}", f"{klass.__qualname__}.__init_subclass__ acts when the class is made")
            if trusted_module_name(getattr(function, "__module__", "") or ""):
                continue
            why = _stores_on_cls_only(function)
            if why is not None:
                raise Unsupported(f"class {name}", f"{klass.__qualname__}.__init_subclass__ acts when the class is "
                                  f"made: {why}", hint="make the class at module level")


def build(function: types.FunctionType, name: str, bases: list[Any], keywords: dict[str, Any]) -> type:
    """CPython's ``__build_class__`` with the keywords; a TypeError they cause (no hook takes them) is eager's,
    raised where the statement runs as Python."""
    try:
        return builtins.__build_class__(function, name, *bases, **keywords)
    except TypeError as exc:
        if keywords:
            raise Unsupported(f"class {name}", f"its keywords raise TypeError: {exc}") from exc
        raise
