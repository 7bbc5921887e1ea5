"""Functions made while tracing (a ``def`` or ``lambda`` inside the traced code): calls are inlined, and
the attributes ``functools.update_wrapper`` assigns are kept, and rebuilt with the function."""

from __future__ import annotations

import functools
import types
from typing import TYPE_CHECKING, Any

from .. import bytecode_helpers
from ..errors import Unsupported, UserError, missing_attribute, missing_for_delete
from .base import Variable
from .cells import CellBox, CellVariable
from .constant import ConstantVariable
from .containers import DictVariable, TupleVariable
from .methods import FunctionGetVariable
from .registry import wrap_constant_like

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


class NestedFunctionVariable(Variable):
    """A function created while tracing (a ``def`` or ``lambda`` inside the traced code)."""

    mutable = True  # an object with an identity: rebuilt once however many names hold it

    def __init__(
        self,
        code: types.CodeType,
        f_globals: dict[str, Any],
        qualname: str,
        defaults: list[Variable],
        kwdefaults: dict[str, Variable],
        closure: list[CellBox],
        globals_base: Any,
    ) -> None:
        self.code = code
        self.f_globals = f_globals
        self.qualname = qualname
        self.defaults = defaults
        self.kwdefaults = kwdefaults
        self.closure = closure
        self.globals_base = globals_base
        #: Attributes of the function type assigned while tracing (``__name__``, ``__doc__``, ...).
        self.assigned: dict[str, Variable] = {}
        #: The ``def``'s annotations, name → value, as MAKE_FUNCTION got them (None: it had none).
        self.annotations: dict[str, Variable] | None = None
        #: The real function made for it once a class made while tracing closed over it: the compiled code
        #: keeps that one function, and this variable rebuilds as it (see opcodes.class_closures).
        self.real: types.FunctionType | None = None

    def set_annotations(self, tx: InstructionTranslator, pairs: Variable) -> None:
        """MAKE_FUNCTION's annotations: a flat tuple ``(name, value, name, value, ...)``; kept so that
        ``fn.__annotations__`` reads them and the rebuilt function carries them."""
        if pairs.is_python_constant():
            items = [wrap_constant_like(item) for item in pairs.as_python_constant()]
        else:
            items = pairs.unpack(tx)
        names = [item.as_python_constant() for item in items[::2]]
        self.annotations = dict(zip(names, items[1::2]))

    def python_type(self) -> type:
        return types.FunctionType

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        named = self.assigned.get("__qualname__")  # functools.wraps's, which CPython's TypeError names
        qualname = self.qualname if named is None else named.as_python_constant() if _is_str(named) else None
        return tx.inline_call(self.code, self.f_globals, self.defaults, self._kwdefaults(), self.closure, args,
                              kwargs, self.globals_base, qualname)

    def _kwdefaults(self) -> dict[str, Variable]:
        """The keyword defaults a call uses: those MAKE_FUNCTION gave, or what the ``__kwdefaults__`` dict the
        program read (and may have changed since) holds now."""
        read = self.assigned.get("__kwdefaults__")
        if read is None:
            return self.kwdefaults
        keys = read.unpack(None) if isinstance(read, DictVariable) else None
        if keys is None or not all(_is_str(k) for k in keys):
            raise Unsupported(f"a call of {self.qualname} after its __kwdefaults__ changed", "not modelled")
        return {k.as_python_constant(): v for k, v in zip(keys, read.items.values())}

    def known_hasattr(self, name: str) -> bool | None:
        """True for what every function has (its class's names: ``__call__``, ``__globals__``...), which
        reading may not model; None for the rest (read, as its ``__dict__`` may hold it)."""
        return True if hasattr(types.FunctionType, name) else None

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in self.assigned:
            return self.assigned[name]
        if name in _MADE_AS_CPYTHON_MAKES_THEM:
            if name == "__qualname__":
                return ConstantVariable(self.qualname)
            try:
                return wrap_constant_like(getattr(self._as_made(), name))
            except AttributeError:  # __type_params__ before 3.12
                raise missing_attribute("'function' object", name) from None
        if name == "__class__":
            return wrap_constant_like(types.FunctionType)
        if name == "__get__":
            return FunctionGetVariable(self)
        if name == "__code__":  # the code object MAKE_FUNCTION got (assigning another is not modelled)
            return wrap_constant_like(self.code)
        if name == "__annotations__":  # one dict, made on first read, as CPython makes it
            self.assigned[name] = DictVariable(dict(self.annotations or {}))
            return self.assigned[name]
        if name == "__kwdefaults__":  # one dict, made on first read, which later calls use (see _kwdefaults)
            if not self.kwdefaults:
                return ConstantVariable(None)
            self.assigned[name] = DictVariable(dict(self.kwdefaults))
            return self.assigned[name]
        if name == "__defaults__":  # a tuple: what it holds is what calls use
            return TupleVariable(list(self.defaults)) if self.defaults else ConstantVariable(None)
        if name == "__closure__":
            return TupleVariable([CellVariable(box) for box in self.closure]) if self.closure else ConstantVariable(None)
        if name == "__dict__":
            return self.namespace
        if name in self.namespace.items:
            return self.namespace.items[name]
        if hasattr(types.FunctionType, name):  # __code__, __defaults__, __annotations__, ...
            raise Unsupported(f"attribute {name!r} of a function made while tracing", "not modelled")
        raise missing_attribute("'function' object", name)

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``fn.name = value`` (``functools.update_wrapper`` sets the names and ``__wrapped__``)."""
        if self.real is not None:
            raise Unsupported(f"setting {name} of function {self.qualname}",
                              "a class made while tracing holds it, and the compiled code keeps that one function")
        if name in ("__defaults__", "__kwdefaults__"):
            self._set_defaults(tx, name, value)
        elif name in _ASSIGNABLE:
            check = _ASSIGNABLE[name]
            if check is not None and not check(value):
                self._refused_as_made(name, value)
                raise Unsupported(f"setting {name} of a function made while tracing to {value.describe()}",
                                  "CPython checks the value's type")
            self.assigned[name] = value
        elif name == "__code__" and value.is_python_constant() and isinstance(value.as_python_constant(), types.CodeType):
            code = value.as_python_constant()
            if len(code.co_freevars) != len(self.code.co_freevars):
                self._refused_as_made(name, value)  # CPython's ValueError: the free variables must match
            if code.co_flags & _KIND_FLAGS != self.code.co_flags & _KIND_FLAGS:
                raise Unsupported(f"setting __code__ of {self.qualname}", "a code object of another kind: it warns")
            self.code = code  # later calls (and the function rebuilt after the graph) run it over the same cells
        elif name in ("__closure__", "__globals__", "__builtins__"):  # read-only whatever the value: CPython's error
            self._refused_as_made(name, ConstantVariable(None))
            raise Unsupported(f"setting {name} of a function made while tracing", "not modelled")
        elif hasattr(types.FunctionType, name):
            raise Unsupported(f"setting {name} of a function made while tracing", "not modelled")
        else:
            self.namespace.items[name] = value  # the function's __dict__, as CPython stores it

    def _refused_as_made(self, name: str, value: Variable | None) -> None:
        """Raise the error CPython raises for setting (``value``) or deleting (None) ``name`` of this function,
        taken from the same change to a real function of this code, name and closure size (it runs nothing); a
        change it accepts returns."""
        if value is not None and not value.is_python_constant():
            return
        made = self._as_made()
        named = self.assigned.get("__name__")
        made.__name__ = named.as_python_constant() if named is not None and _is_str(named) else self.code.co_name
        try:
            if value is None:
                delattr(made, name)
            else:
                setattr(made, name, value.as_python_constant())
        except (TypeError, ValueError, AttributeError) as exc:
            raise UserError(f"{'setting' if value is not None else 'deleting'} {name} of {self.qualname}", str(exc),
                            exc_type=type(exc), exc_args=exc.args) from exc

    def delete_attr(self, tx: InstructionTranslator, name: str) -> None:
        """``del fn.name``: ``__defaults__``/``__kwdefaults__``/``__doc__`` are emptied (None), an entry of the
        function's ``__dict__`` removed; CPython's error for the names it refuses (``__name__``, ``__dict__``)."""
        if self.real is not None:
            raise Unsupported(f"deleting {name} of function {self.qualname}", "a class made while tracing holds it")
        if name == "__defaults__":
            self.defaults = []
        elif name == "__kwdefaults__":
            self.kwdefaults = {}
            self.assigned.pop(name, None)
        elif name == "__doc__":
            self.assigned[name] = ConstantVariable(None)
        elif name in self.namespace.items and not hasattr(types.FunctionType, name):
            del self.namespace.items[name]
        elif name in (*_ASSIGNABLE, "__dict__", "__code__", "__globals__", "__closure__", "__builtins__"):
            self._refused_as_made(name, None)
            raise Unsupported(f"deleting {name} of function {self.qualname}", "not modelled")
        elif hasattr(types.FunctionType, name):
            raise Unsupported(f"deleting {name} of function {self.qualname}", "not modelled")
        else:
            raise missing_for_delete("'function' object", name)

    def _set_defaults(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``fn.__defaults__ = (...)`` (or None): later calls, and the function rebuilt after the graph, use
        them. ``fn.__kwdefaults__ = {...}``: the function keeps the very dict assigned (a dict the trace holds),
        which later calls read as it is then (:meth:`_kwdefaults`), and ``None`` drops them."""
        if name == "__defaults__" and value.is_python_constant() and value.as_python_constant() is None:
            self.defaults = []
        elif name == "__defaults__" and isinstance(value, TupleVariable) and value.python_type() is tuple:
            self.defaults = list(value.items)
        elif name == "__defaults__" and value.is_python_constant() and type(value.as_python_constant()) is tuple:
            self.defaults = [wrap_constant_like(v) for v in value.as_python_constant()]
        elif name == "__kwdefaults__" and value.is_python_constant() and value.as_python_constant() is None:
            self.kwdefaults = {}
            self.assigned.pop(name, None)
        elif name == "__kwdefaults__" and isinstance(value, DictVariable) and value.python_type() is dict:
            self.assigned[name] = value
        else:
            raise Unsupported(f"setting {name} of a function made while tracing to {value.describe()}",
                              "not modelled")

    @functools.cached_property
    def namespace(self) -> FunctionDictVariable:
        """The function's ``__dict__``: one dict, so that ``fn.x = 1`` and ``fn.__dict__["x"]`` agree."""
        return FunctionDictVariable(self)

    def _as_made(self) -> types.FunctionType:
        """A real function of this code and globals, as MAKE_FUNCTION makes it (``__doc__`` and
        ``__module__`` read from it follow the running CPython's own rules)."""
        cells = tuple(types.CellType() for _ in self.code.co_freevars)
        return types.FunctionType(self.code, self.f_globals, None, None, cells)

    def signature_stand_in(self, follow_wrapped: bool = True) -> Any:
        """A real function ``inspect.signature`` gives this one's signature for: the same code, defaults,
        keyword defaults and annotations, when all are constants; with ``__wrapped__`` set (``functools.wraps``)
        and ``follow_wrapped``, the wrapped function's (a real one, or a stand-in of one made while tracing).
        None where ``signature`` would read anything else (``__signature__``, another attribute)."""
        own = self.namespace.items  # __wrapped__ and __signature__ live in the function's __dict__
        wrapped = own.get("__wrapped__")
        if follow_wrapped and wrapped is not None and "__signature__" not in own:
            if getattr(wrapped, "wraps_real_object", False):
                return wrapped.value
            return wrapped.signature_stand_in() if isinstance(wrapped, NestedFunctionVariable) else None
        if set(self.assigned) - _SIGNATURE_BLIND or set(own) - {"__wrapped__"}:
            return None
        annotations = self.assigned.get("__annotations__")  # read (made then) or set while tracing
        if annotations is None:
            annotations = self.annotations or {}
        elif isinstance(annotations, DictVariable):
            keys = annotations.unpack(None)
            if not all(k.is_python_constant() for k in keys):
                return None
            annotations = {k.as_python_constant(): v for k, v in zip(keys, annotations.items.values())}
        else:
            return None
        values = [*self.defaults, *self.kwdefaults.values(), *annotations.values()]
        if not all(v.is_python_constant() for v in values):
            return None
        made = self._as_made()
        made.__defaults__ = tuple(v.as_python_constant() for v in self.defaults) or None
        made.__kwdefaults__ = {k: v.as_python_constant() for k, v in self.kwdefaults.items()} or None
        made.__annotations__ = {k: v.as_python_constant() for k, v in annotations.items()}
        return made

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.real is not None:
            codegen.load_const(self.real)
            return
        attributes = {**self.assigned, **self.namespace.items}
        if self.annotations and "__annotations__" not in attributes:
            attributes["__annotations__"] = DictVariable(dict(self.annotations))
        if not attributes:
            codegen.make_function(self)
            return
        codegen.load_callable(bytecode_helpers.with_attributes)  # with_attributes(function, {name: value})
        codegen.make_function(self)
        for name, value in attributes.items():
            codegen.load_const(name)
            codegen.reconstruct(value)
        codegen.emit("BUILD_MAP", len(attributes))
        codegen.call(2)

    def describe(self) -> str:
        return f"function {self.qualname}"


#: Function attributes ``inspect.signature`` does not read (``functools.wraps`` sets them, ``__type_params__``
#: from 3.12 on); ``__annotations__`` it does, from the value the stand-in is given.
_SIGNATURE_BLIND = frozenset({"__name__", "__qualname__", "__doc__", "__module__", "__annotations__", "__type_params__"})


def _is_str(value: Variable) -> bool:
    return value.is_python_constant() and isinstance(value.as_python_constant(), str)


#: The code flags that make a function of another kind (a generator, a coroutine): ``__code__`` swaps keep them.
_KIND_FLAGS = 0x20 | 0x80 | 0x100 | 0x200  # CO_GENERATOR | CO_COROUTINE | CO_ITERABLE_COROUTINE | CO_ASYNC_GENERATOR
#: What a function made while tracing reads as MAKE_FUNCTION set it, until assigned.
_MADE_AS_CPYTHON_MAKES_THEM = frozenset({"__name__", "__qualname__", "__module__", "__doc__", "__type_params__"})
#: Function-type attributes that may be assigned while tracing → the check CPython makes of the value
#: (None: any value), as ``functools.update_wrapper`` assigns them.
_ASSIGNABLE: dict[str, Any] = {
    "__name__": _is_str, "__qualname__": _is_str, "__module__": None, "__doc__": None,
    "__annotations__": lambda value: isinstance(value, DictVariable) and value.python_type() is dict,
    "__type_params__": lambda value: hasattr(types.FunctionType, "__type_params__") and (
        isinstance(value, TupleVariable) or (value.is_python_constant() and isinstance(value.as_python_constant(), tuple))),
}


class FunctionDictVariable(DictVariable):
    """The ``__dict__`` of a function made while tracing: rebuilt as that function's own ``__dict__``."""

    def __init__(self, owner: NestedFunctionVariable) -> None:
        super().__init__({})
        self.owner = owner

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.reconstruct(self.owner)
        codegen.emit("LOAD_ATTR", "__dict__")
