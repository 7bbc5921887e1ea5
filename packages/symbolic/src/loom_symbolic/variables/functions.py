"""Python functions and methods while tracing: user functions are inlined, methods bound."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const, Item

from .._late import LateModule
from ..errors import Unsupported, UserError, missing_attribute
from .registry import wrap
from ..policy import is_skipped, opaque_module, trusted_module_name
from .base import Variable
from .containers import DictVariable, TupleVariable

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from ..translator import InstructionTranslator
    from .cells import CellBox

# Read only while translating, and in an import cycle with this module: imported at first read (see _late.py).
_cells = LateModule("loom_symbolic.variables.cells", globals(), "_cells")
_constant = LateModule("loom_symbolic.variables.constant", globals(), "_constant")
_environ = LateModule("loom_symbolic.variables.environ", globals(), "_environ")
_generators = LateModule("loom_symbolic.variables.generators", globals(), "_generators")
_translator = LateModule("loom_symbolic.translator", globals(), "_translator")

#: ``globals_base`` for functions of trusted libraries: their globals are read without guards.
TRUSTED_GLOBALS = "trusted"
CO_GENERATOR = 0x20
CO_VARARGS = 0x04
CO_VARKEYWORDS = 0x08


def bind_arguments(
    code: types.CodeType,
    defaults: list[Variable],
    kwdefaults: dict[str, Variable],
    args: list[Variable],
    kwargs: dict[str, Variable],
) -> dict[str, Variable]:
    """Bind call arguments to ``code``'s parameters as CPython does, with its TypeError messages."""
    name = code.co_name
    nargs, nposonly, nkwonly = code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount
    names = code.co_varnames
    positional = names[:nargs]
    kwonly = names[nargs : nargs + nkwonly]
    has_varargs = bool(code.co_flags & CO_VARARGS)
    has_varkw = bool(code.co_flags & CO_VARKEYWORDS)
    bound: dict[str, Variable] = dict(zip(positional, args))
    extra = args[nargs:]
    if extra and not has_varargs:
        raise UserError(f"calling {name}()", f"{name}() takes {nargs} positional arguments but {len(args)} were given", exc_type=TypeError)
    slot = nargs + nkwonly
    if has_varargs:
        bound[names[slot]] = TupleVariable(list(extra))
        slot += 1
    varkw: dict[str, Variable] = {}
    for key, value in kwargs.items():
        if key in kwonly or key in positional[nposonly:]:
            if key in bound:
                raise UserError(f"calling {name}()", f"{name}() got multiple values for argument {key!r}", exc_type=TypeError)
            bound[key] = value
        elif has_varkw:
            varkw[key] = value
        elif key in positional[:nposonly]:
            raise UserError(f"calling {name}()", f"{name}() got some positional-only arguments passed as keyword arguments: {key!r}", exc_type=TypeError)
        else:
            raise UserError(f"calling {name}()", f"{name}() got an unexpected keyword argument {key!r}", exc_type=TypeError)
    first_default = nargs - len(defaults)
    missing = []
    for i, param in enumerate(positional):
        if param not in bound:
            if i >= first_default:
                bound[param] = defaults[i - first_default]
            else:
                missing.append(param)
    if missing:
        raise UserError(f"calling {name}()", f"{name}() missing {len(missing)} required positional argument(s): {', '.join(map(repr, missing))}", exc_type=TypeError)
    for param in kwonly:
        if param not in bound:
            if param not in kwdefaults:
                raise UserError(f"calling {name}()", f"{name}() missing 1 required keyword-only argument: {param!r}", exc_type=TypeError)
            bound[param] = kwdefaults[param]
    if has_varkw:
        bound[names[slot]] = DictVariable(varkw)
    return bound


def inline_call(
    tx: InstructionTranslator,
    code: types.CodeType,
    f_globals: dict[str, Any],
    defaults: list[Variable],
    kwdefaults: dict[str, Variable],
    closure: list[CellBox],
    args: list[Variable],
    kwargs: dict[str, Variable],
    globals_base: Any,
) -> Variable:
    """Run ``code`` in place with the given arguments; its tensor work lands in the caller's graph."""
    if is_skipped(code):
        raise Unsupported(
            f"call to {code.co_qualname}",
            "the function is marked to be skipped (loom.disable) or lives in a library loom does not trace",
            hint="it runs as ordinary Python instead",
        )
    bound = bind_arguments(code, defaults, kwdefaults, args, kwargs)
    if code.co_flags & CO_GENERATOR:
        generator = _translator.GeneratorTranslator(tx, code, f_globals, bound, closure, globals_base)
        return _generators.GeneratorVariable(generator, tx.root().break_point())
    child = _translator.InliningTranslator(tx, code, f_globals, bound, closure, globals_base)
    return child.run()


class UserFunctionVariable(Variable):
    """A Python function that exists outside the trace; calls to it are inlined."""

    wraps_real_object = True

    def __init__(self, value: types.FunctionType, source: Any = None) -> None:
        self.value = value
        self.source = source

    def python_type(self) -> type:
        return types.FunctionType

    def as_python_constant(self) -> Any:
        return self.value

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        fn = self.value
        library = opaque_module(fn)
        if library is not None:
            read = _environ.environment_read(fn, args)
            if read is not None:
                return read(tx, args, kwargs)
            raise Unsupported(f"call to {library}.{fn.__qualname__}", f"{library} does I/O or keeps process state",
                              hint="it runs as ordinary Python between graphs")
        src = self.source
        trusted = _trusted_module(fn)
        if src is None and not trusted:
            # Reached without a source (an item under an object key, an attribute of an object made while
            # tracing): the trace relies on this very function, so its globals, defaults and cells are
            # guarded through the function object itself.
            src = Const(fn)
        if fn.__closure__ and src is None and not trusted:
            raise Unsupported(f"call to closure {fn.__qualname__}", "the closure's cells cannot be guarded")
        if src is not None and not trusted:
            tx.output.guards.add("identity", Attr(src, "__code__"), fn.__code__)  # inlined: fn.__code__ = ... recompiles
        defaults = [
            wrap(tx, v, Item(Attr(src, "__defaults__"), i) if src is not None else None)
            for i, v in enumerate(fn.__defaults__ or ())
        ]
        kwdefaults = {
            k: wrap(tx, v, Item(Attr(src, "__kwdefaults__"), k) if src is not None else None)
            for k, v in (fn.__kwdefaults__ or {}).items()
        }
        closure = []
        for i, (name, cell) in enumerate(zip(fn.__code__.co_freevars, fn.__closure__ or ())):
            # torch's and the standard library's closures are taken as fixed, like their globals.
            cell_source = Attr(Item(Attr(src, "__closure__"), i), "cell_contents") if src is not None else None
            closure.append(_cells.real_cell_box(tx, name, cell, cell_source, _store_real_cell(cell)))
        globals_base = TRUSTED_GLOBALS if trusted else (Attr(src, "__globals__") if src is not None else None)
        return inline_call(tx, fn.__code__, fn.__globals__, defaults, kwdefaults, closure, args, kwargs, globals_base)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in _FUNCTION_ATTRIBUTES or name in getattr(self.value, "__dict__", {}):
            try:
                value = getattr(self.value, name)
            except AttributeError:

                raise missing_attribute("'function' object", name) from None
            return wrap(tx, value, Attr(self.source, name) if self.source is not None else None)

        raise missing_attribute("'function' object", name)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
        else:
            codegen.load_const(self.value)

    def describe(self) -> str:
        return f"function {self.value.__qualname__}"


#: Function attributes the translator reads (the function itself is guarded by identity).
_FUNCTION_ATTRIBUTES = frozenset(
    {"__name__", "__qualname__", "__module__", "__doc__", "__code__", "__defaults__", "__kwdefaults__",
     "__wrapped__", "__annotations__", "__dict__"}
)


def _trusted_module(fn: types.FunctionType) -> bool:
    """Functions of torch and the standard library: their globals are taken as fixed (not guarded)."""
    return trusted_module_name(fn.__module__ or "")


def _store_real_cell(cell: Any) -> Any:
    def record(tx: InstructionTranslator, value: Variable) -> None:
        tx.output.side_effects.store_attr(_constant.ObjectConstantVariable(cell), cell, "cell_contents", value)

    return record


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

    def python_type(self) -> type:
        return types.FunctionType

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return inline_call(tx, self.code, self.f_globals, self.defaults, self.kwdefaults, self.closure, args,
                           kwargs, self.globals_base)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "__name__":
            return _constant.ConstantVariable(self.code.co_name)
        if name == "__qualname__":
            return _constant.ConstantVariable(self.qualname)
        raise Unsupported(f"attribute {name!r} of a function made while tracing", "not modelled")

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.make_function(self)

    def describe(self) -> str:
        return f"function {self.qualname}"


class BoundMethodVariable(Variable):
    """A Python function bound to an object (``obj.method``); calling passes the object first."""

    def __init__(self, function: Variable, receiver: Variable, source: Any = None) -> None:
        self.function = function
        self.receiver = receiver
        self.source = source

    def python_type(self) -> type:
        return types.MethodType

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return self.function.call(tx, [self.receiver, *args], kwargs)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
            return
        fn = getattr(self.function, "value", None)
        if not isinstance(fn, types.FunctionType):
            raise Unsupported(f"rebuilding {self.describe()}", "not a method of a real function")
        original = getattr(fn, "__loom_polyfill_of__", None)
        if original is not None or getattr(self.receiver, "stands_for", None) is not None:
            # A polyfilled C method (od.move_to_end, or a method of deque's stand-in): the real
            # object's own method, so that code resumed after a graph break runs the C one.
            codegen.reconstruct(self.receiver)
            codegen.emit("LOAD_ATTR", getattr(original, "__name__", fn.__name__))
            return
        # types.MethodType(fn, receiver), not receiver.<name>: the attribute lookup could find
        # another object, or run a Python __getattribute__ (this may be the code of that very method)
        def load_args() -> None:
            codegen.load_const(fn)
            codegen.reconstruct(self.receiver)

        codegen.call_const(types.MethodType, 2, load_args)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "__self__":
            return self.receiver
        if name == "__func__":
            return self.function
        return self.function.var_getattr(tx, name)

    def describe(self) -> str:
        return f"method {self.function.describe()}"


class MethodVariable(Variable):
    """``receiver.name`` for a method the receiver's variable models (``list.append``, ``str.join``).

    ``builtin=True`` means the builtin container's own method even if a subclass overrides it.
    """

    def __init__(self, receiver: Variable, name: str, builtin: bool = False) -> None:
        self.receiver = receiver
        self.name = name
        self.builtin = builtin

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if self.builtin:
            return self.receiver.call_builtin_method(tx, self.name, args, kwargs)
        return self.receiver.call_method(tx, self.name, args, kwargs)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.builtin:
            raise Unsupported(f"rebuilding {self.describe()}", "a base-class method reached through super()")
        codegen.reconstruct(self.receiver)
        codegen.emit("LOAD_ATTR", self.name)

    def describe(self) -> str:
        return f"method {self.name} of {self.receiver.describe()}"
