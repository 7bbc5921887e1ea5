"""The base class of every symbolic value the translator tracks.

A :class:`Variable` stands for one Python value while bytecode is walked symbolically. Subclasses
model constants, tensors (graph values), containers, functions, modules and objects. Each knows
the :class:`~loom_guards.Source` it came from when it was read from the frame, so that using it can
install the right guard, and how to rebuild itself in the rewritten bytecode (:meth:`reconstruct`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import Unsupported

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


class Variable:
    """A symbolic Python value. ``source`` says how it is reached from the frame, if it is."""

    source: Any = None
    #: Mutable values (lists, dicts, objects) are tracked by identity for side effects and aliasing.
    mutable: bool = False
    #: A value a resume function hands on unread (``variables/passed_on.py``): operators ask it first.
    passed_on: bool = False
    #: Not a constant, but :meth:`as_python_constant` specialises it (its value becomes a guard) where a
    #: builtin needs a real number: a NumPy scalar argument (``variables/numpy.py``).
    specialises: bool = False

    def python_type(self) -> type:
        """The type the real value would have."""
        raise Unsupported(f"type of {self}", "the translator does not know this value's type")

    # -- constants ---------------------------------------------------------------------------------
    def is_python_constant(self) -> bool:
        """Whether :meth:`as_python_constant` would succeed."""
        try:
            self.as_python_constant()
        except Unsupported:
            return False
        return True

    def as_python_constant(self) -> Any:
        """The real Python value, when the translator knows it exactly."""
        raise Unsupported(f"{self} used as a constant", "its value is only known when the program runs")

    # -- graph arguments ---------------------------------------------------------------------------
    def as_graph_arg(self) -> Any:
        """What stands for this value in an FX node's arguments."""
        return self.as_python_constant()

    def as_example(self) -> Any:
        """What stands for this value when an op is run on FakeTensors to learn its result."""
        return self.as_python_constant()

    # -- protocol ----------------------------------------------------------------------------------
    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        """``self.name``."""
        raise Unsupported(f"attribute {name!r} of {self.describe()}", "the translator cannot read it")

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        """``self(*args, **kwargs)``."""
        raise Unsupported(f"call to {self.describe()}", "the translator cannot call this object")

    def call_method(
        self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]
    ) -> Variable:
        """``self.name(*args, **kwargs)``; by default an attribute read followed by a call."""
        return self.var_getattr(tx, name).call(tx, args, kwargs)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        """The items iteration would produce, all at once (for unpacking, ``*args``, loops)."""
        raise Unsupported(f"iteration over {self.describe()}", "the translator cannot iterate it")

    def truth(self, tx: InstructionTranslator) -> bool:
        """``bool(self)`` when it is known while tracing."""
        return bool(self.as_python_constant())

    def reconstruct(self, codegen: PyCodegen) -> None:
        """Emit bytecode that pushes this value (used after the graph ran)."""
        if self.source is not None:
            codegen.load_source(self.source)
            return
        raise Unsupported(f"rebuilding {self.describe()}", "the value cannot be recreated in bytecode")

    def describe(self) -> str:
        """A short description for error messages."""
        return type(self).__name__

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def is_none_constant(value: Variable | None) -> bool:
    """Whether ``value`` is absent (an argument not given) or the constant None."""
    return value is None or (value.is_python_constant() and value.as_python_constant() is None)


class RealValueVariable(Variable):
    """A variable that wraps one real Python object the translator may use directly.

    Builtins, torch functions, classes, modules and objects read from the frame are all of this
    kind: reading them installs a guard on their :attr:`source`, so the translator can call or
    inspect the real ``value`` while tracing, and the rewritten bytecode reloads it.
    """

    wraps_real_object = True

    def __init__(self, value: Any, source: Any = None) -> None:
        self.value = value
        self.source = source

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self) -> Any:
        # A mutable object's state may change while the frame runs, so it is never a constant.
        if self.mutable:
            return super().as_python_constant()
        return self.value

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
        else:
            codegen.load_const(self.value)


class NullVariable(Variable):
    """The NULL that CPython 3.11 pushes below a callable (PUSH_NULL, LOAD_GLOBAL's low bit)."""

    def describe(self) -> str:
        return "NULL"

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.emit("PUSH_NULL")


NULL = NullVariable()


class DeferredAttribute(Variable):
    """An attribute read in method position (``LOAD_METHOD``) the translator cannot model, of a value whose
    attribute lookup runs no Python (an instance or subclass-free class of builtin types only): the graph
    cannot be split at the read itself (its two stack results have no form a resume function takes), so
    the read waits for its use, the call, where the split is the ordinary one and the call runs natively.
    Reading the attribute there instead runs no code and so changes nothing."""

    def __init__(self, receiver: Variable, name: str, why: Unsupported) -> None:
        self.receiver = receiver
        self.name = name
        self.why = why

    def _unsupported(self) -> Unsupported:
        reason = self.why.reason
        return Unsupported(reason.what, reason.why, reason.hint)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        raise self._unsupported()

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        raise self._unsupported()

    def python_type(self) -> type:
        raise self._unsupported()

    def reconstruct(self, codegen: PyCodegen) -> None:
        # through the codegen's cache: a mutable receiver (an exception made in the trace) is built once, so
        # the call mutates the object the other names hold, not a copy (e.add_note(...) at a break)
        codegen.reconstruct(self.receiver)
        codegen.emit("LOAD_ATTR", self.name)

    def describe(self) -> str:
        return f"attribute {self.name!r} of {self.receiver.describe()}"


def reads_run_no_python(value: Variable) -> bool:
    """Whether reading an attribute of ``value`` runs no Python code: its class and every base are
    builtin (for a class, the class itself and its bases too)."""
    try:
        cls = value.python_type()
    except Unsupported:
        return False
    if cls is type:
        real = getattr(value, "value", None)
        return isinstance(real, type) and all(k.__module__ == "builtins" for k in real.__mro__)
    return all(k.__module__ == "builtins" for k in cls.__mro__)


#: The containers whose members are being asked "are you constants" right now (by id).
_ASKING: set[int] = set()


def members_constant(owner: Variable, members: Any) -> bool:
    """Whether every one of ``owner``'s members is a Python constant. A container that holds itself (``a.append(a)``,
    ``d["self"] = d``) is not: it has no finite constant form, and asking its members again would never end."""
    if id(owner) in _ASKING:
        return False
    _ASKING.add(id(owner))
    try:
        return all(m.is_python_constant() for m in members)
    finally:
        _ASKING.discard(id(owner))


def metaclass_read_runs_no_python(value: Variable, name: str) -> bool:
    """Whether reading ``name`` from a class whose metaclass is ``type`` itself runs no Python: no class of
    its MRO holds the name, so ``type``'s own attribute (``__subclasses__``, ``mro``) answers, in C."""
    real = getattr(value, "value", None)
    return isinstance(real, type) and type(real) is type and not any(name in k.__dict__ for k in real.__mro__)
