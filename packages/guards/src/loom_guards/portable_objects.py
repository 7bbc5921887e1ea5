"""Objects described by name for another process: modules, classes, functions, builtins, descriptors,
a module's globals dict, the builtins dict, and an object a module holds under a global name.

An object is described as ``module:qualname`` only when that name, resolved now, is the very object
(else it is refused: a class made in a function, a lambda, a bound method, a function replaced after it
was imported). When rebuilt, the name must resolve to an object of the same kind; a class must have the
same bases (its MRO, by name); a Python function must
also have the same code (a digest over its bytecode, constants, names and flags, nested code included,
line numbers not), the same defaults and the same closure (each cell's contents described by name, by value,
or, for a function no name reaches, such as the one a decorator wraps, by these same facts): a user who
edited the function between the two processes gets a refusal, never a guard that compares against the
edited function.

Recording never imports anything (a name is resolved through ``sys.modules``); rebuilding imports the
module named, as the program itself would.
"""

from __future__ import annotations

import builtins
import hashlib
import importlib
import json
import sys
import types
from typing import Any

from .portable_values import Memo, NotPortable, describe_value, rebuild_value, register

__all__ = ["code_digest", "describe_namespace_or_global", "unnamed_function_facts"]

#: The kinds of named objects: their exact Python type and the tag they are recorded under. A class is
#: any instance of ``type`` (metaclasses included) and is registered apart.
_NAMED_KINDS: dict[type, str] = {
    types.BuiltinFunctionType: "builtin",
    types.MethodDescriptorType: "method_descriptor",
    types.WrapperDescriptorType: "wrapper_descriptor",
    types.ClassMethodDescriptorType: "classmethod_descriptor",
    types.GetSetDescriptorType: "getset_descriptor",
    types.MemberDescriptorType: "member_descriptor",
}
_KIND_TYPES = {tag: tp for tp, tag in _NAMED_KINDS.items()}

# The interpreter's own types that ``builtins`` does not name (function, NoneType's siblings...): ``types``
# does, and a guard on the type of a function argument names one of them.
_TYPES_NAMES = {id(value): name for name, value in vars(types).items() if isinstance(value, type)}


def _module_of(obj: Any) -> str | None:
    module = getattr(obj, "__module__", None)
    if module is None:  # method descriptors carry their class instead
        module = getattr(getattr(obj, "__objclass__", None), "__module__", None)
    if module is None and isinstance(getattr(obj, "__self__", None), type):  # a class's static builtin: object.__new__
        module = obj.__self__.__module__
    return module if isinstance(module, str) else None


def _walk(root: Any, path: str) -> Any:
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _recorded_name(obj: Any) -> tuple[str, str]:
    """``(module, path)`` under which ``obj`` is found now, in ``sys.modules`` without importing anything."""
    qualname = getattr(obj, "__qualname__", None)
    name = getattr(obj, "__name__", None)
    what = f"{type(obj).__name__} {qualname or name or '?'}"
    if isinstance(qualname, str) and "<lambda>" in qualname:
        raise NotPortable(f"{what} is a lambda, which no name reaches in another process")
    if isinstance(qualname, str) and "<locals>" in qualname:
        raise NotPortable(f"{what} was defined inside a function, which no name reaches in another process")
    module_name = _module_of(obj)
    candidates = []
    if module_name is not None:
        candidates += [(module_name, p) for p in (qualname, name) if isinstance(p, str) and p]
    if id(obj) in _TYPES_NAMES:
        candidates.append(("types", _TYPES_NAMES[id(obj)]))
    for module_name, path in candidates:
        module = sys.modules.get(module_name)
        if module is None:
            continue
        try:
            found = _walk(module, path)
        except Exception:
            continue
        if found is obj:
            return module_name, path
    tried = ", ".join(f"{m}:{p}" for m, p in candidates) or "no module and name"
    raise NotPortable(f"{what} is not the object its name reaches ({tried})")


def _resolve(desc: dict, memo: Memo) -> Any:
    """The object ``module:path`` names in this process (importing the module as the program would)."""
    module_name, path = desc["module"], desc["path"]
    if not isinstance(module_name, str) or not isinstance(path, str):
        raise NotPortable(f"malformed name in {desc}")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise NotPortable(f"{module_name}:{path}: module {module_name!r} does not import here "
                          f"({type(exc).__name__}: {exc})") from None
    try:
        return _walk(module, path)
    except Exception as exc:
        raise NotPortable(f"{module_name}:{path} does not resolve here ({type(exc).__name__}: {exc})") from None


def _cached(encode):
    """An encoder memoised by object identity within one call (the object is kept alive with it)."""

    def wrapper(obj: Any, identity: bool, memo: Memo) -> dict:
        hit = memo.described.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        desc = encode(obj, identity, memo)
        memo.described[id(obj)] = (obj, desc)
        return desc

    return wrapper


def _memo_key(desc: dict) -> str:
    return json.dumps(desc, sort_keys=True)


# -- modules ------------------------------------------------------------------------------------------


def _encode_module(module: types.ModuleType, identity: bool, memo: Memo) -> dict:
    name = getattr(module, "__name__", None)
    if not isinstance(name, str) or sys.modules.get(name) is not module:
        raise NotPortable(f"module {name!r} is not sys.modules[{name!r}]")
    return {"t": "module", "name": name}


def _decode_module(desc: dict, memo: Memo) -> types.ModuleType:
    name = desc["name"]
    try:
        return importlib.import_module(name)
    except Exception as exc:
        raise NotPortable(f"module {name!r} does not import here ({type(exc).__name__}: {exc})") from None


register("module", _decode_module, types=(types.ModuleType,), encoder=_encode_module, singleton=True)


# -- classes, builtins, descriptors ----------------------------------------------------------------------


def _mro_names(cls: type) -> list[str]:
    """The classes ``cls`` looks names up in, by name: a class whose bases were edited between the two
    processes finds its attributes elsewhere, which the guards on those classes' dicts would not see."""
    names = []
    for klass in cls.__mro__[1:]:
        module, path = _recorded_name(klass)
        names.append(f"{module}:{path}")
    return names


@_cached
def _encode_class(cls: type, identity: bool, memo: Memo) -> dict:
    module, path = _recorded_name(cls)
    try:
        mro = _mro_names(cls)
    except NotPortable as exc:
        raise NotPortable(f"class {module}:{path} has a base without a name: {exc}") from None
    return {"t": "class", "module": module, "path": path, "mro": mro}


def _decode_class(desc: dict, memo: Memo) -> type:
    cls = _resolve(desc, memo)
    where = f"{desc['module']}:{desc['path']}"
    if not isinstance(cls, type):
        raise NotPortable(f"{where} is a {type(cls).__name__} here, not a class")
    try:
        mro = _mro_names(cls)
    except NotPortable as exc:
        raise NotPortable(f"class {where} has a base without a name here: {exc}") from None
    if mro != desc["mro"]:
        raise NotPortable(f"class {where} has other bases here ({', '.join(mro)}) than when recorded")
    return cls


register("class", _decode_class, bases=(type,), encoder=_encode_class, singleton=True)


def _named_encoder(tag: str):
    @_cached
    def encode(obj: Any, identity: bool, memo: Memo) -> dict:
        module, path = _recorded_name(obj)
        return {"t": tag, "module": module, "path": path}

    return encode


def _named_decoder(tag: str):
    def decode(desc: dict, memo: Memo) -> Any:
        obj = _resolve(desc, memo)
        if type(obj) is not _KIND_TYPES[tag]:
            raise NotPortable(f"{desc['module']}:{desc['path']} is a {type(obj).__name__} here, not a {tag}")
        return obj

    return decode


for _tp, _tag in _NAMED_KINDS.items():
    register(_tag, _named_decoder(_tag), types=(_tp,), encoder=_named_encoder(_tag), singleton=True)


# -- Python functions -----------------------------------------------------------------------------------


def _code_fields(code: types.CodeType, memo: Memo) -> dict:
    """What a function's code does, without where it sits in its file (no line numbers, no file name)."""
    consts = []
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            consts.append({"t": "code", "v": _code_fields(const, memo)})
        else:
            consts.append(describe_value(const, memo=memo))
    return {
        "code": code.co_code.hex(),
        "consts": consts,
        "names": list(code.co_names),
        "varnames": list(code.co_varnames),
        "freevars": list(code.co_freevars),
        "cellvars": list(code.co_cellvars),
        "flags": code.co_flags,
        "argcount": code.co_argcount,
        "posonlyargcount": code.co_posonlyargcount,
        "kwonlyargcount": code.co_kwonlyargcount,
        "name": code.co_name,
        "qualname": getattr(code, "co_qualname", code.co_name),  # 3.11+
        # offsets into co_code, not lines: where each try block's handler is
        "exceptiontable": getattr(code, "co_exceptiontable", b"").hex(),
    }


def code_digest(code: types.CodeType, memo: Memo | None = None) -> str:
    """A sha256 over what ``code`` does (see ``_code_fields``); equal for the same source anywhere on the
    same Python version, different once the code changed."""
    fields = _code_fields(code, memo if memo is not None else Memo())
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def _function_facts(fn: types.FunctionType, memo: Memo, where: str) -> dict:
    """The code digest, defaults and closure of ``fn``: what must match in the rebuilding process."""
    memo.functions.append(fn)
    try:
        defaults = None if fn.__defaults__ is None else [describe_value(v, memo=memo) for v in fn.__defaults__]
        kwdefaults = None if fn.__kwdefaults__ is None else {
            k: describe_value(v, memo=memo) for k, v in fn.__kwdefaults__.items()
        }
        digest = code_digest(fn.__code__, memo)
        closure = None if fn.__closure__ is None else [_cell_facts(cell, memo) for cell in fn.__closure__]
    except NotPortable as exc:
        raise NotPortable(f"{where}: {exc}") from None
    finally:
        memo.functions.pop()
    return {"code": digest, "defaults": defaults, "kwdefaults": kwdefaults, "closure": closure}


def _cell_facts(cell: types.CellType, memo: Memo) -> dict:
    """What a closure cell holds, described so that the same description in the rebuilding process means
    the same behaviour: an object a name reaches by that name (compared there by what the name reaches), a
    constant by value, a function no name reaches (what a decorator wraps) by its own facts, recursively,
    and a function whose facts are being described (``up`` levels out) by that reference. Both processes compute this of their own function and compare the results."""
    try:
        contents = cell.cell_contents
    except ValueError:
        return {"t": "empty_cell"}
    for up, enclosing in enumerate(reversed(memo.functions)):
        if contents is enclosing:
            return {"t": "enclosing_function", "up": up}
    if memo.depth > _MAX_CLOSURE_DEPTH:
        raise NotPortable(f"closures nested more than {_MAX_CLOSURE_DEPTH} deep")
    memo.depth += 1
    try:
        try:
            return describe_value(contents, identity=True, memo=memo)
        except NotPortable:
            if type(contents) is not types.FunctionType:
                return describe_value(contents, memo=memo)
        return {"t": "inner_function", **_function_facts(contents, memo, f"the function {contents.__qualname__} in a closure")}
    finally:
        memo.depth -= 1


def unnamed_function_facts(fn: types.FunctionType, memo: Memo | None = None) -> dict:
    """What an identity guard on a function no name reaches (a decorator's wrapped function, read from a
    closure cell) keeps: its module and :func:`_function_facts`. In another process the guard is rebuilt
    on the function its source reaches on the frame there, when that function's facts are these."""
    memo = memo if memo is not None else Memo()
    module = fn.__module__ if isinstance(fn.__module__, str) else None
    return {"module": module, **_function_facts(fn, memo, f"function {fn.__qualname__}")}


_MAX_CLOSURE_DEPTH = 20  # decorators on decorators; past this the description would be larger than useful


@_cached
def _encode_function(fn: types.FunctionType, identity: bool, memo: Memo) -> dict:
    module, path = _recorded_name(fn)
    return {"t": "function", "module": module, "path": path, **_function_facts(fn, memo, f"function {module}:{path}")}


def _decode_function(desc: dict, memo: Memo) -> types.FunctionType:
    key = _memo_key(desc)
    hit = memo.resolved.get(key)
    if hit is not None:
        return hit
    where = f"function {desc['module']}:{desc['path']}"
    fn = _resolve(desc, memo)
    if type(fn) is not types.FunctionType:
        raise NotPortable(f"{where} is a {type(fn).__name__} here, not a Python function")
    facts = _function_facts(fn, memo, where)
    if facts["code"] != desc["code"]:
        raise NotPortable(f"{where} has other code here than when recorded (edited, or another Python)")
    if facts["defaults"] != desc["defaults"] or facts["kwdefaults"] != desc["kwdefaults"]:
        raise NotPortable(f"{where} has other default arguments here than when recorded")
    if facts["closure"] != desc.get("closure"):
        raise NotPortable(f"{where} holds other values in its closure here than when recorded")
    memo.resolved[key] = fn
    return fn


register("function", _decode_function, types=(types.FunctionType,), encoder=_encode_function, singleton=True)


# -- what a Const source holds besides named objects ----------------------------------------------------


def describe_namespace_or_global(value: Any, label: str | None) -> dict | None:
    """A ``Const`` value that is a namespace or a module's global object: the builtins dict, a module's
    globals dict (how the frame's ``G`` is held for guards on absent names), or an object found as
    ``module.name`` where ``label`` says ``"module.name"`` (torch's process-wide hook dicts). None when
    it is none of these."""
    if value is builtins.__dict__:
        return {"t": "builtins_dict"}
    if type(value) is dict:
        name = value.get("__name__")
        module = sys.modules.get(name) if isinstance(name, str) else None
        if module is not None and getattr(module, "__dict__", None) is value:
            return {"t": "module_dict", "module": name}
    if label is None or "." not in label:
        return None
    module_name, _, name = label.rpartition(".")
    module = sys.modules.get(module_name)
    if module is None or getattr(module, "__dict__", {}).get(name, _MISSING) is not value:
        return None
    try:
        cls = describe_value(type(value), identity=True)
    except NotPortable:
        return None
    return {"t": "global_object", "module": module_name, "name": name, "type": cls}


_MISSING = object()


def _decode_module_dict(desc: dict, memo: Memo) -> dict:
    return vars(_decode_module({"name": desc["module"]}, memo))


def _decode_global_object(desc: dict, memo: Memo) -> Any:
    module = _decode_module({"name": desc["module"]}, memo)
    value = vars(module).get(desc["name"], _MISSING)
    if value is _MISSING:
        raise NotPortable(f"{desc['module']}.{desc['name']} does not exist here")
    cls = rebuild_value(desc["type"], memo)
    if type(value) is not cls:
        raise NotPortable(f"{desc['module']}.{desc['name']} is a {type(value).__name__} here, not a {cls.__name__}")
    return value


# Not registered by type: only a Const source is described this way (describe_value never makes them).
register("builtins_dict", lambda d, memo: builtins.__dict__, singleton=True)
register("module_dict", _decode_module_dict, singleton=True)
register("global_object", _decode_global_object, singleton=True)
