"""Python functions while tracing: a call to one is inlined (by the translator, ``tx.inline_call``)."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const, Item

from ..errors import Unsupported, missing_attribute
from ..policy import opaque_module, opaque_reason, trusted_module_name
from . import cells as _cells
from . import constant as _constant
from . import deferred_calls as _deferred
from . import environ as _environ
from . import exception_tracebacks as _tracebacks
from . import logger_calls as _logger_calls
from . import recursive_repr as _recursive_repr
from . import single_dispatch as _single_dispatch
from .base import Variable
from .methods import FunctionGetVariable
from .registry import wrap, wrap_constant_like

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


#: ``globals_base`` for functions of trusted libraries: their globals are read without guards.
TRUSTED_GLOBALS = "trusted"


#: code of standard-library wrapper functions → what a call of one is instead of its body (None: the body, traced)
_WRAPPER_CALLS = {
    **dict.fromkeys(_recursive_repr.WRAPPER_CODES, _recursive_repr.call_wrapped_repr),
    _single_dispatch.WRAPPER_CODE: _single_dispatch.call_dispatched,
    _single_dispatch.DISPATCH_CODE: _single_dispatch.call_dispatch,
}


#: torch.compile's wrappers of ``nn.Module`` methods that tag the module, and the cell holding the original.
_TAGGING_WRAPPERS = {"patched_init": "init", "patched_setstate": "setstate"}


def dynamo_tagging_init_original(fn: Any) -> Any:
    """The ``nn.Module.__init__`` (or ``__setstate__``) that torch.compile's first compile wrapped, when ``fn`` is that wrapper
    (``patched_init`` in ``torch._dynamo.mutation_guard``, which runs the original and then tags the module
    in dynamo's weak-keyed ``GenerationTracker``, bookkeeping for dynamo's own guards). loom traces the
    original, as in a process where torch.compile never ran: a module made in the trace exists at run time
    only if it escapes, and is then rebuilt without running ``__init__`` again either way."""
    code = getattr(fn, "__code__", None)
    wrapped = _TAGGING_WRAPPERS.get(getattr(code, "co_name", None))  # ``__setstate__`` too (copy.deepcopy)
    if wrapped is None or not code.co_filename.endswith(("_dynamo/mutation_guard.py", "_dynamo\\mutation_guard.py")):
        return None
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    try:
        return cells[wrapped].cell_contents
    except (KeyError, ValueError):
        return None


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

    def inlined_function(self) -> types.FunctionType:
        """The function, read to inline a call of it (a code-matched one stays unpinned by this read)."""
        return self.value

    def pin(self) -> None:
        """Make the trace rely on this very function object (already so here: it is guarded by identity)."""

    def cell_store(self, cell: Any) -> Any:
        """The store effect of ``cell``, one of the function's closure cells, as an inlined call writes it."""
        return store_real_cell(cell)

    def cell_pin(self) -> Any:
        """What pins the function's cells by identity when the trace reaches them another way too (None:
        the function's identity guard fixes them already)."""
        return None

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        fn = self.inlined_function()
        if (original := dynamo_tagging_init_original(fn)) is not None:
            self.pin()
            return UserFunctionVariable(original).call(tx, args, kwargs)
        library = opaque_module(fn)
        if library is not None:
            self.pin()
            read = _environ.environment_read(fn, args) or _tracebacks.traceback_call(fn, args, kwargs)
            if read is not None:
                return read(tx, args, kwargs)
            deferred = (_logger_calls.logger_call(tx, fn, args, kwargs) or _deferred.answer_query(tx, fn, args, kwargs)
                        or _deferred.defer_call(tx, fn, args, kwargs))
            if deferred is not None:
                return deferred
            own = (fn.__module__ or "").startswith(library)
            what = f"call to {library}.{fn.__qualname__}" if own else f"call to {fn.__qualname__} (a {library} wrapper)"
            raise Unsupported(what, opaque_reason(library),
                              hint="it runs as ordinary Python between graphs")
        src = self.source
        special = _WRAPPER_CALLS.get(fn.__code__)
        if special is not None:
            self.pin()
            if (called := special(tx, fn, src, args, kwargs)) is not None:
                return called
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
        if trusted or src is not None:
            tx.output.provenance.pinned_code.add(fn.__code__)
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
            closure.append(_cells.real_cell_box(tx, name, cell, cell_source, self.cell_store(cell), way=id(fn),
                                                pin=self.cell_pin()))
        globals_base = TRUSTED_GLOBALS if trusted else (Attr(src, "__globals__") if src is not None else None)
        qualname = fn.__qualname__ if isinstance(fn.__qualname__, str) else None
        return tx.inline_call(fn.__code__, fn.__globals__, defaults, kwdefaults, closure, args, kwargs, globals_base,
                              qualname)

    def known_hasattr(self, name: str) -> bool | None:
        """True for what every function has (``__globals__``, ``__call__``: its class's names, which no
        function can lose); None for the rest (its ``__dict__`` can change)."""
        return True if hasattr(type(self.value), name) else None

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "__class__":  # a function's class cannot be reassigned
            return wrap_constant_like(type(self.value))
        if name == "__get__" and isinstance(self.value, types.FunctionType):
            return FunctionGetVariable(self)
        return function_attribute(tx, self.value, self.source, name)

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``fn.name = value`` for a name of the function's own ``__dict__`` (a counter, a cache kept on
        the function): later reads in the trace see ``value``, and the rewritten code stores it after the
        graph. The function's metadata (``__defaults__``, ``__code__``...) and a library's functions break."""
        tx.output.side_effects.store_attr(self, self.value, self._own_name(name, "assigning"), value)

    def delete_attr(self, tx: InstructionTranslator, name: str) -> None:
        """``del fn.name`` of an entry of the function's ``__dict__`` (an AttributeError where it is missing)."""
        self._own_name(name, "deleting")
        self.var_getattr(tx, name)  # raises the AttributeError Python raises, guarded as a read
        tx.output.side_effects.delete_attr(self, self.value, name)

    def _own_name(self, name: str, doing: str) -> str:
        fn = self.value
        if (name in _FUNCTION_ATTRIBUTES or hasattr(type(fn), name) or not isinstance(fn, types.FunctionType)
                or _trusted_module(fn)):
            raise Unsupported(f"{doing} attribute {name!r} of function {fn.__qualname__}", "not modelled")
        return name

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
     "__wrapped__", "__annotations__", "__dict__", "__type_params__"}
)


def function_attribute(tx: InstructionTranslator, fn: Any, source: Any, name: str) -> Variable:
    """``fn.name`` for a real function guarded by identity: its own metadata (``__name__``, ``__wrapped__``...)
    or an entry of its ``__dict__`` (what ``functools.wraps`` copied, what a decorator set on it, what the trace
    stored there so far)."""
    effects = tx.output.side_effects
    if name not in _FUNCTION_ATTRIBUTES and effects.stored_attributes(fn):
        stored = effects.stored_attribute(fn, name)  # (an AttributeError for one the trace deleted)
        if stored is not None:
            return stored
    if name in _FUNCTION_ATTRIBUTES or name in getattr(fn, "__dict__", {}):
        try:
            value = getattr(fn, name)
        except AttributeError as exc:
            raise missing_attribute(f"{type(fn).__name__!r} object", name, raised=exc) from None
        return wrap(tx, value, Attr(source, name) if source is not None else None)
    reader = ATTRIBUTE_READERS.get(name)
    if reader is not None and isinstance(fn, types.FunctionType):
        return reader(tx, fn, source)
    if hasattr(fn, name):  # __globals__, __builtins__, __call__...: real, so never the AttributeError below
        raise Unsupported(f"attribute {name!r} of function {getattr(fn, '__qualname__', fn)!r}", "not modelled")
    if isinstance(getattr(fn, "__dict__", None), dict):
        # `getattr(fn, "calls", 0)` decided "absent": the entry must not serve a call after the name is set
        tx.output.guards.add("absent_key", Attr(source if source is not None else Const(fn), "__dict__"), name)
    raise missing_attribute(f"{type(fn).__name__!r} object", name)


#: Readers of a real function's attributes that need variables above this module (``__closure__``: a tuple
#: of cells): name -> reader(tx, function, source), filled by the modules that model them.
ATTRIBUTE_READERS: dict[str, Any] = {}


def _trusted_module(fn: types.FunctionType) -> bool:
    """Functions of torch and the standard library: their globals are taken as fixed (not guarded)."""
    return trusted_module_name(fn.__module__ or "")


def store_real_cell(cell: Any) -> Any:
    """The store effect of a real cell's ``cell_contents`` (replayed after the graph)."""
    def record(tx: InstructionTranslator, value: Variable) -> None:
        tx.output.side_effects.store_attr(_constant.ObjectConstantVariable(cell), cell, "cell_contents", value)

    return record
