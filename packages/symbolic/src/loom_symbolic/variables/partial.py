"""``functools.partial`` objects: read from the frame or made while tracing, and called inline.

Libraries store activations and hooks as partials (Hugging Face's ``GELUTanh`` is
``partial(gelu, approximate="tanh")``): calling one is calling its function with the frozen
arguments first, so the call is inlined like any other instead of breaking the graph.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from loom_guards import Attr

from .. import bytecode_helpers
from ..errors import Unsupported, UserError
from . import constant as _constant
from . import containers as _containers
from .base import Variable
from .methods import MethodVariable
from .registry import wrap

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator



class PartialVariable(Variable):
    """``functools.partial(func, *args, **keywords)``.

    ``flattens``: whether ``partial(self, ...)`` takes this partial's function and arguments in (CPython
    does so for a partial whose instance ``__dict__`` was never made; one made in the trace has none).
    """

    def __init__(self, func: Variable, args: list[Variable], keywords: dict[str, Variable] | Variable,
                 source: Any = None, flattens: bool = True) -> None:
        self.func = func
        self.args = list(args)
        #: the one dict ``p.keywords`` is (a real partial's, read through its source): what the trace stores
        #: into it is what later calls pass, as in CPython
        self.keywords_dict = keywords if isinstance(keywords, Variable) else _containers.DictVariable(keywords)
        self.keywords_read = False  # ``p.keywords`` reached the trace: a rebuilt partial must share that dict
        self.source = source
        self.flattens = flattens
        #: attributes set on a partial made in the trace (its instance ``__dict__``; partialmethod sets ``__self__``)
        self.attrs: dict[str, Variable] = {}

    @property
    def keywords(self) -> dict[str, Variable]:
        """The keyword arguments every call passes first, as they stand now."""
        return self.keywords_dict.items

    def python_type(self) -> type:
        return functools.partial

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return self.func.call(tx, [*self.args, *args], {**self.keywords, **kwargs})

    def call_method(
        self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]
    ) -> Variable:
        if name == "__call__":
            return self.call(tx, args, kwargs)
        return super().call_method(tx, name, args, kwargs)

    def known_hasattr(self, name: str) -> bool | None:
        """``hasattr(self, name)`` without reading the attribute (``__repr__``, ``__dict__``: not modelled as
        values), for a partial made in the trace: its instance ``__dict__`` stays empty (setting attributes
        is not modelled), so the answer is whether its class defines the name. None: only the object knows."""
        if self.source is not None:
            return None
        return name in self.attrs or any(name in klass.__dict__ for klass in functools.partial.__mro__)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "func":
            return self.func
        if name == "args":
            return _containers.TupleVariable(self.args)
        if name == "keywords":
            self.keywords_read = True
            return self.keywords_dict
        if name == "__call__":
            return MethodVariable(self, name)
        if self.source is None and name in self.attrs:
            return self.attrs[name]
        if self.source is None and not any(name in klass.__dict__ for klass in functools.partial.__mro__):
            # made in the trace, its __dict__ holds only what the trace set: a name neither it nor the class
            # has is Python's AttributeError (hasattr(p, "__name__") is False)
            message = f"'functools.partial' object has no attribute {name!r}"
            raise UserError(f"attribute {name!r} of {self.describe()}", message, exc_type=AttributeError,
                            exc_args=(message,))
        return super().var_getattr(tx, name)

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``p.name = value`` on a partial made in the trace: into its instance ``__dict__`` (the class's own
        names, ``func``/``args``/``keywords`` and the rest, are read-only or not modelled)."""
        if self.source is not None or any(name in klass.__dict__ for klass in functools.partial.__mro__):
            raise Unsupported(f"assigning attribute {name!r} of {self.describe()}", "not modelled")
        self.attrs[name] = value
        self.flattens = False  # CPython takes a partial's parts in only while it has no instance __dict__

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
            return
        if self.attrs:
            codegen.load_callable(bytecode_helpers.with_attributes)  # with_attributes(partial, {name: value})
        self._build(codegen)
        if self.attrs:
            for name, value in self.attrs.items():
                codegen.load_const(name)
                codegen.reconstruct(value)
            codegen.emit("BUILD_MAP", len(self.attrs))
            codegen.call(2)

    def _build(self, codegen: PyCodegen) -> None:
        if self.keywords_read:  # the dict the trace held as p.keywords is the rebuilt partial's own
            codegen.load_callable(bytecode_helpers.partial_over)
            codegen.reconstruct(self.func)
            codegen.reconstruct(_containers.TupleVariable(self.args))
            codegen.reconstruct(self.keywords_dict)
            codegen.call(3)
            return
        codegen.load_callable(functools.partial)
        codegen.reconstruct(self.func)
        for item in self.args:
            codegen.reconstruct(item)
        for item in self.keywords.values():
            codegen.reconstruct(item)
        argc = 1 + len(self.args) + len(self.keywords)
        if self.keywords:
            codegen.call_kw(argc, tuple(self.keywords))  # 3.11/3.12: KW_NAMES; 3.13: CALL_KW
        else:
            codegen.call(argc)

    def describe(self) -> str:
        return f"partial of {self.func.describe()}"


def wrap_partial(tx: InstructionTranslator | None, value: functools.partial, source: Any) -> Variable:
    """The variable for a real partial: its function, arguments and keywords are guarded where they
    are read (``p.func``, ``p.args``, ``p.keywords``)."""

    def part(name: str) -> Any:
        return Attr(source, name) if source is not None else None

    if tx is not None and source is not None:
        tx.output.guards.add("type", source, value)
    func = wrap(tx, value.func, part("func"))
    args = wrap(tx, value.args, part("args"))
    keywords = wrap(tx, value.keywords, part("keywords"))
    if not isinstance(keywords, _containers.DictVariable):
        raise Unsupported("a functools.partial", "its keywords are not a dict the translator models")
    # partial(p) takes p's parts in only while p has no instance __dict__: ask CPython (it makes no dict)
    flattens = functools.partial(value).func is value.func
    return PartialVariable(func, args.unpack(tx), keywords, source, flattens)


def make_partial(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``functools.partial(func, *args, **kwargs)`` called in the trace."""

    if not args:
        raise UserError("functools.partial()", "TypeError: type 'partial' takes at least one argument",
                        exc_type=TypeError)
    if isinstance(args[0], _constant.ConstantVariable) and not callable(args[0].value):
        raise UserError("functools.partial()", "TypeError: the first argument must be callable", exc_type=TypeError)
    inner = args[0]
    if type(inner) is PartialVariable and inner.flattens:
        # partial(partial(f, a, k=1), b, k=2) is partial(f, a, b, k=2), as CPython builds it
        return PartialVariable(inner.func, [*inner.args, *args[1:]], {**inner.keywords, **kwargs})
    return PartialVariable(inner, args[1:], kwargs)
