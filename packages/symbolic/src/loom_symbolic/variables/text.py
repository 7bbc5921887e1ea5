"""``str()``, ``repr()``, ``format()`` and f-string text of objects whose class writes ``__str__``/``__repr__``/
``__format__`` in Python.

The method is inlined and its result must be a string known while tracing. Registers the ``str``, ``repr`` and
``format`` builtins (:func:`.builtins.builtin`); :func:`formatted_text` and :func:`builtin_format` serve
``FORMAT_VALUE``.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

import torch

from loom_guards import Attr

from ..errors import Unsupported, UserError
from ..versions import current as version
from .attributes import class_attribute
from .base import Variable
from .builtins import builtin
from .constant import ConstantVariable, is_constant_value
from .containers import DictVariable, SequenceVariable
from .exception_values import ExceptionVariable
from .new_objects import NewObjectVariable
from .operand_dispatch import constant_runs_python

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def _user_text(tx: InstructionTranslator, value: Variable, dunder: str) -> Variable | None:
    """``str(obj)`` / ``repr(obj)`` of an object whose class defines the method in Python: inlined."""
    cls = value.python_type()
    if getattr(value, "stands_for", None) is not None:
        cls = value.cls  # deque's stand-in: its __repr__ is the real one's, in Python
    elif not _is_user_class(cls):
        return None
    method = class_attribute(cls, dunder)
    called = dunder.strip("_")
    if dunder == "__str__" and method is object.__str__:
        dunder, method = "__repr__", class_attribute(cls, "__repr__")  # object.__str__ calls repr
    if method is object.__repr__:
        return ConstantVariable(_address_text(tx, value, cls, called))
    if not isinstance(method, types.FunctionType):
        builtin_text = getattr(value, "builtin_text", None)  # a str subclass's, from its text
        return builtin_text(dunder) if builtin_text is not None else None
    call_meta = getattr(value, "call_meta", None)  # a class: its metaclass's method
    result = call_meta(tx, dunder, [], {}) if call_meta is not None else value.call_method(tx, dunder, [], {})
    text = result.as_python_constant() if result.is_python_constant() else None
    if not isinstance(text, str):
        raise UserError(f"{dunder}()", f"{dunder} returned non-string (type {result.python_type().__name__})",
                        exc_type=TypeError)
    return ConstantVariable(text)


def _address_text(tx: InstructionTranslator, value: Variable, cls: type, called: str) -> str:
    """``object.__repr__``'s ``<module.Class object at 0x...>``, folded to a constant as torch.compile
    does: for an object from the frame, the real one's text, under an identity guard (another object
    would show another address); for one made while tracing, its address is not known until it runs,
    and a placeholder stands in (what the text shows of one made afresh on every call is arbitrary)."""
    real = getattr(value, "value", None)
    source = getattr(value, "source", None)
    if source is not None and type(real) is cls:
        tx.output.guards.add("identity", source, real)
        return object.__repr__(real)
    if not isinstance(value, NewObjectVariable):
        raise Unsupported(f"{called}() of {cls.__name__} object",
                          "object.__repr__ shows the address of an object the trace cannot reach",
                          hint=f"give {cls.__name__} a __repr__ or __str__")
    module = cls.__module__
    name = cls.__qualname__ if isinstance(module, str) and module != "builtins" else cls.__name__
    prefix = f"{module}." if isinstance(module, str) and module != "builtins" else ""
    return f"<{prefix}{name} object at {id(value):#x}>"


def formatted_text(tx: InstructionTranslator, value: Variable, convert: Any) -> Variable | None:
    """The text ``f"{value}"`` (``convert`` None), ``f"{value!s}"`` or ``f"{value!r}"`` gives for an
    object whose ``__str__``/``__repr__`` is Python code (traced), if ``__format__`` is object's (which
    formats ``str(value)``); None where that cannot be modelled."""
    if convert is repr:
        return _text(tx, value, "__repr__")
    if convert is str:
        return _text(tx, value, "__str__")
    if convert is not None:
        return None
    cls = value.cls if getattr(value, "stands_for", None) is not None else value.python_type()
    if class_attribute(cls, "__format__") is not object.__format__:
        return builtin_format(tx, [value], {})  # a __format__ of its own (in Python, or a str subclass's)
    return _text(tx, value, "__str__")


def _is_user_class(cls: type) -> bool:
    return bool(cls.__flags__ & (1 << 9)) and not issubclass(cls, (torch.Tensor, BaseException))  # a heap type


#: The C ``__repr__`` of each builtin container, and the brackets it writes around its items.
_CONTAINER_REPRS = {list.__repr__: ("[", "]"), tuple.__repr__: ("(", ")"), dict.__repr__: ("{", "}")}


def _container_text(tx: InstructionTranslator, value: Variable, running: set[int]) -> str | None:
    """``repr(container)`` of a list, tuple or dict (or a subclass keeping its ``__repr__``) holding objects
    whose text the trace can compute, item by item as the C ``__repr__`` writes it; a container met
    again inside itself is ``[...]``/``{...}`` (``Py_ReprEnter``). None where an item's text is unknown."""
    if not isinstance(value, (SequenceVariable, DictVariable)):
        return None
    brackets = _CONTAINER_REPRS.get(class_attribute(value.python_type(), "__repr__"))
    if brackets is None:
        return None
    opening, closing = brackets
    if id(value) in running:
        return f"{opening}...{closing}"
    running.add(id(value))
    try:
        if isinstance(value, DictVariable):
            parts = [_item_text(tx, key, running) for key in value.unpack(tx)]
            values = [_item_text(tx, item, running) for item in value.items.values()]
            if None in parts or None in values:
                return None
            return "{" + ", ".join(f"{k}: {v}" for k, v in zip(parts, values)) + "}"
        parts = [_item_text(tx, item, running) for item in value.items]
        if None in parts:
            return None
        trailing = "," if opening == "(" and len(parts) == 1 else ""
        return opening + ", ".join(parts) + trailing + closing
    finally:
        running.discard(id(value))


def _item_text(tx: InstructionTranslator, item: Variable, running: set[int]) -> str | None:
    if item.is_python_constant():
        return repr(item.as_python_constant())
    nested = _container_text(tx, item, running)
    if nested is not None:
        return nested
    text = _user_text(tx, item, "__repr__")
    return None if text is None else text.as_python_constant()


#: The C text methods of builtin exceptions that read nothing but the exception's type and ``args``
#: (``OSError``'s, ``ImportError``'s, ``SyntaxError``'s and ``UnicodeError``'s also read attributes;
#: ``NameError``'s and ``AttributeError``'s are CPython's ``BaseException_str`` under their own slot).
_ARGS_ONLY_TEXT = frozenset({BaseException.__str__, BaseException.__repr__, KeyError.__str__, NameError.__str__,
                             AttributeError.__str__})


def _exception_text(tx: InstructionTranslator, value: Variable, dunder: str) -> str | None:
    """``str(e)``/``repr(e)`` of an exception from the frame (what a resume function's handler holds after a
    break in its ``try``), whose class's text method is a C one reading only ``args``: the real exception's
    text, under a guard that its ``args`` (constants) are the same. None elsewhere."""
    real = getattr(value, "real", None)
    if not isinstance(value, ExceptionVariable) or real is None or value.source is None:
        return None
    if class_attribute(type(real), dunder) not in _ARGS_ONLY_TEXT or not is_constant_value(real.args):
        return None
    tx.output.guards.add("constant", Attr(value.source, "args"), real.args)
    return getattr(type(real), dunder)(real)


def _traced_exception_text(tx: InstructionTranslator, value: Variable, dunder: str) -> str | None:
    """``str(e)``/``repr(e)`` of an exception the trace made: its class's Python method, inlined, or a C one
    reading only ``args``, run on a bare instance holding the same (constant) ``args``: made by the class's
    builtin ``__new__``, which runs no ``__init__`` (a user one would take the stored arguments for its own);
    a builtin class's is made again by calling it. None elsewhere."""
    if not isinstance(value, ExceptionVariable) or value.source is not None or value.args is None:
        return None
    method = class_attribute(value.cls, dunder)
    if isinstance(method, types.FunctionType):
        result = value.var_getattr(tx, dunder).call(tx, [], {})
        text = result.as_python_constant() if result.is_python_constant() else None
        if not isinstance(text, str):
            raise UserError(f"{dunder}()", f"{dunder} returned non-string (type {result.python_type().__name__})",
                            exc_type=TypeError)
        return text
    if value.cls.__module__ == "builtins" and (twin := _builtin_twin(value)) is not _NO_TWIN:
        return getattr(twin, dunder)()  # no Python code: made again, as the trace made it
    if not all(arg.is_python_constant() for arg in value.args):
        return None
    args = [arg.as_python_constant() for arg in value.args]
    if method not in _ARGS_ONLY_TEXT or not isinstance(class_attribute(value.cls, "__new__"), types.BuiltinMethodType):
        return None  # a C method reading attributes the trace may have set, or a __new__ in Python
    return method(value.cls.__new__(value.cls, *args))


def _builtin_twin(value: Variable) -> Any:
    """A real object equal to ``value`` for its text: a constant; a list or tuple of twins; a builtin exception
    the trace made, made again from the twins of its ``args`` (a group's members too), when nothing but its
    ``args`` was set on it. ``_NO_TWIN`` where there is none."""
    if value.is_python_constant():
        return value.as_python_constant()
    if isinstance(value, SequenceVariable) and value.python_type() in (list, tuple):
        items = [_builtin_twin(item) for item in value.items]
        return _NO_TWIN if any(item is _NO_TWIN for item in items) else value.python_type()(items)
    if not isinstance(value, ExceptionVariable) or value.source is not None or value.args is None \
            or value.cls.__module__ != "builtins" or set(value.attrs) - {"__notes__"} - _import_keywords(value.cls):
        return _NO_TWIN
    args = [_builtin_twin(arg) for arg in value.args]
    # an ImportError's ``name`` and ``path`` (3.12: ``name_from``) are its constructor's keywords (its text reads ``msg``, set from args)
    keywords = {k: _builtin_twin(v) if isinstance(v, Variable) else v for k, v in value.attrs.items() if k != "__notes__"}
    if any(arg is _NO_TWIN for arg in [*args, *keywords.values()]):
        return _NO_TWIN
    return value.cls(*args, **keywords)


def _import_keywords(cls: type) -> frozenset[str]:
    return version.IMPORT_ERROR_KEYWORDS if issubclass(cls, ImportError) else frozenset()


_NO_TWIN = object()


#: Library objects whose text is fixed by what they are (``str(torch.ops.aten.mul.Tensor)``, as a torch function
#: mode logs ``func``): folded on the real object.
_FIXED_TEXT = (torch._ops.OpOverload, torch._ops.OpOverloadPacket)


def _text(tx: InstructionTranslator, value: Variable, dunder: str) -> Variable | None:
    """``str(value)``/``repr(value)``: a container's from its items' (both are its ``repr``), an exception's
    from its ``args`` (or its class's method, traced), else the object's own method, traced."""
    if value.is_python_constant() and isinstance(value.as_python_constant(), _FIXED_TEXT):
        return ConstantVariable(getattr(type(value.as_python_constant()), dunder)(value.as_python_constant()))
    if not value.is_python_constant():
        text = _container_text(tx, value, set())
        if text is None:
            text = _exception_text(tx, value, dunder)
        if text is None:
            text = _traced_exception_text(tx, value, dunder)
        if text is not None:
            return ConstantVariable(text)
    return _user_text(tx, value, dunder)


@builtin(str)
def builtin_str(tx, args, kwargs):
    return _text(tx, args[0], "__str__") if len(args) == 1 and not kwargs else None


@builtin(repr)
def builtin_repr(tx, args, kwargs):
    return _text(tx, args[0], "__repr__") if len(args) == 1 and not kwargs else None


@builtin(format)
def builtin_format(tx, args, kwargs):
    """``format(obj, spec)`` of an object made or met in the trace whose class is Python: its own
    ``__format__`` inlined, or ``object.__format__``'s ``str(obj)`` (which takes no spec)."""
    if kwargs or not 1 <= len(args) <= 2:
        return None
    if args[0].is_python_constant() and not constant_runs_python(args[0], "__format__"):
        return None  # folded (an enum's own __format__ written in Python is inlined)
    value, spec = args[0], args[1] if len(args) == 2 else ConstantVariable("")
    if not spec.is_python_constant() or not isinstance(spec.as_python_constant(), str):
        return None
    cls = value.cls if getattr(value, "stands_for", None) is not None else value.python_type()
    if not _is_user_class(cls) and not isinstance(value, ExceptionVariable):  # exceptions: object.__format__
        return None
    method = class_attribute(cls, "__format__")
    if method is object.__format__:
        if spec.as_python_constant():
            message = f"unsupported format string passed to {cls.__name__}.__format__"
            raise UserError("format()", message, exc_type=TypeError, exc_args=(message,))
        return _text(tx, value, "__str__")
    if method is str.__format__ and hasattr(value, "call_builtin_method"):  # a str subclass made in the trace
        return value.call_builtin_method(tx, "__format__", [spec], {})
    if not isinstance(method, types.FunctionType):
        return None
    result = value.call_method(tx, "__format__", [spec], {})
    text = result.as_python_constant() if result.is_python_constant() else None
    if not isinstance(text, str):
        message = f"__format__ must return a str, not {result.python_type().__name__}"
        raise UserError("format()", message, exc_type=TypeError, exc_args=(message,))
    return ConstantVariable(text)
