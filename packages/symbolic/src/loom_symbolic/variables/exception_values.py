"""Exceptions raised and caught inside traced code.

``raise`` inside the trace, or an operation the translator knows would raise a specific exception
(an index out of range, a missing key, StopIteration), becomes a :class:`SymbolicException` that
unwinds to the nearest handler in the exception table, through inlined calls, exactly as CPython
would. One that escapes the traced frame ends translation, and the frame runs as ordinary Python,
raising the real exception with its real traceback.
"""

from __future__ import annotations

import builtins
import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const

from .. import bytecode_helpers, polyfills
from ..errors import Reason, Unsupported, UserError
from . import attributes as _attributes
from . import functions as _functions
from .base import Variable, is_none_constant
from .constant import ConstantVariable, is_constant_value
from .containers import ListVariable, TupleVariable
from .exception_tracebacks import TracebackVariable, WithTraceback, is_traceback_value, listed_frames
from .methods import BoundMethodVariable
from .registry import wrap, wrap_constant_like

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator



class ExceptionVariable(Variable):
    """An exception object. ``args`` is None when the translator knows the type but not the message."""

    mutable = True  # an object with an identity: rebuilt once however many names hold it

    def __init__(self, cls: type[BaseException], args: list[Variable] | None) -> None:
        self.cls = cls
        self.args = args
        #: ``__cause__``, ``__context__`` and ``__suppress_context__`` as the trace set them (None: None).
        self.cause: Variable | None = None
        self.context: Variable | None = None
        self.suppress_context = False
        #: instance attributes set while tracing (by a user class's __init__, or later)
        self.attrs: dict[str, Variable] = {}
        #: the exception itself, when it came from the frame (``source`` says how to reach it)
        self.real: BaseException | None = None
        #: whether the trace raised it: Python gave it a traceback then, which a rebuilt one must have too
        self.raised_in_trace = False
        #: what ``__traceback__`` holds (None: None): a fresh TracebackVariable at each raise, or what
        #: ``with_traceback``/``__traceback__ =`` set
        self.traceback: Variable | None = None
        #: made by calling its class in the trace (not raised by an operation, where CPython may set C-level
        #: attributes such as AttributeError.name that its arguments do not give)
        self.made_by_call = False

    def python_type(self) -> type:
        return self.cls

    def as_python_constant(self) -> Any:
        if self.args is None:
            return super().as_python_constant()
        return self.cls(*(a.as_python_constant() for a in self.args))

    def is_python_constant(self) -> bool:
        # Never: an exception is an object with an identity (``e in caught`` compares it by identity first),
        # and ``cls(*args)`` would run a user class's ``__init__`` again on its stored arguments and lose the
        # notes and attributes set on it. Its text is folded from its ``args`` (``text._exception_text``).
        return False

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "args" and self.args is not None:
            return TupleVariable(list(self.args))
        if name == "__class__":
            return wrap_constant_like(self.cls)
        if name == "value" and issubclass(self.cls, StopIteration) and self.args is not None and "value" not in self.attrs:
            return self.args[0] if self.args else ConstantVariable(None)
        if name == "code" and issubclass(self.cls, SystemExit) and self.args is not None and "code" not in self.attrs \
                and not _has_own_construction(self.cls):
            return _system_exit_code(self.args)
        if self.real is not None and (name in _READ_FROM_REAL or name in getattr(self.real, "__dict__", ())):
            # from the frame: its value read there (and guarded), as any other object's attribute
            return wrap(tx, getattr(self.real, name), Attr(self.source, name))
        if name in _CHAIN_ATTRIBUTES:
            if self.source is not None:  # made outside the trace: its real chain is not known here
                raise Unsupported(f"{name} of an exception from outside the compiled function", "not modelled")
            if name == "__suppress_context__":
                return ConstantVariable(self.suppress_context)
            return (self.cause if name == "__cause__" else self.context) or ConstantVariable(None)
        if name in self.attrs:
            return self.attrs[name]
        polyfilled = polyfills.method_replacement(self.cls, name)  # BaseExceptionGroup.split...
        if polyfilled is not None and not polyfilled[1]:
            return BoundMethodVariable(_functions.UserFunctionVariable(polyfilled[0]), self)
        member = _user_class_member(self.cls, name)
        if member is None and name == "__notes__" and self.source is None:
            # only add_note (a break, after which the exception is the frame's) gives one notes
            message = f"{self.cls.__name__!r} object has no attribute '__notes__'"
            raise UserError("attribute '__notes__'", message, exc_type=AttributeError, exc_args=(message,))
        if member is None and name == "__traceback__" and self.real is not None and self.source is not None:
            return self._frame_traceback(tx)
        if member is None and name in _TRACEBACK_MEMBERS and self.source is None:
            if name == "with_traceback":
                return WithTraceback(self)
            return ConstantVariable(None) if self.traceback is None else self.traceback
        if isinstance(member, types.FunctionType):
            return BoundMethodVariable(_functions.UserFunctionVariable(member, _member_source(self.cls, name)), self)
        if isinstance(member, property) and isinstance(member.fget, types.FunctionType):
            getter = _functions.UserFunctionVariable(member.fget, Attr(_member_source(self.cls, name), "fget"))
            return getter.call(tx, [self], {})
        if member is not None and is_constant_value(member):
            return ConstantVariable(member)
        if member is None and self.made_by_call and (derived := _derived_attribute(self, name)) is not None:
            return derived
        raise Unsupported(f"attribute {name!r} of a {self.cls.__name__} raised while tracing",
                          "only the type, the arguments and the attributes set while tracing are known")

    def set_cause(self, cause: Variable) -> None:
        """``raise self from cause`` (or ``exc.__cause__ = cause``): also suppresses the context, as in Python."""
        self._check_made_here("__cause__")
        if not (is_none_constant(cause) or isinstance(cause, ExceptionVariable)):
            raise Unsupported("an exception cause that is not a traced exception", "not modelled")
        self.cause = None if is_none_constant(cause) else cause
        self.suppress_context = True

    def set_context(self, context: Variable | None) -> None:
        """``exc.__context__ = context``: the exception that was being handled when this one was raised."""
        self._check_made_here("__context__")
        if not (context is None or is_none_constant(context) or isinstance(context, ExceptionVariable)):
            raise Unsupported("an exception context that is not a traced exception", "not modelled")
        self.context = None if context is None or is_none_constant(context) else context

    def set_traceback(self, tb: Variable) -> None:
        """``with_traceback(tb)`` or ``exc.__traceback__ = tb``, on an exception made while tracing."""
        self._check_made_here("__traceback__")
        if not is_traceback_value(tb):
            raise Unsupported(f"a traceback that is {tb.describe()}", "only None or a traceback read while tracing is modelled")
        self.traceback = None if not isinstance(tb, TracebackVariable) else tb

    def _frame_traceback(self, tx: InstructionTranslator) -> Variable:
        """``__traceback__`` of an exception from the frame (one a break handed to a resume function's
        handler): the one it carries when the frame is called, rebuilt as its ``__traceback__`` until the
        trace raises it again (a new one then). Guarded to be a traceback: one never raised has None."""
        if self.traceback is None:
            real = self.real.__traceback__
            if real is None:
                tx.output.guards.add("constant", Attr(self.source, "__traceback__"), None)
                return ConstantVariable(None)
            tx.output.guards.add("type", Attr(self.source, "__traceback__"), real)
            self.traceback = TracebackVariable(self)
        return self.traceback

    def was_raised(self, entry: Any = None) -> None:
        """The trace raised it (anew or again), or it passed a frame (``entry``: that frame's code and line):
        Python gives it a new traceback object listing that frame in front of those it held."""
        previous, known = self.traceback, self.source is None or self.traceback is not None
        self.raised_in_trace = True
        self.traceback = TracebackVariable(self)
        self.traceback.entries = listed_frames(previous, known, entry)

    def _check_made_here(self, name: str) -> None:
        if self.source is not None:
            raise Unsupported(f"setting {name} of an exception from outside the compiled function",
                              "the change to the real object is not replayed")

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``exc.name = value`` on an exception made while tracing (a user class's ``__init__``)."""
        if name == "__cause__":
            return self.set_cause(value)
        if name == "__context__":
            return self.set_context(value)
        if name == "__traceback__" and _user_class_member(self.cls, name) is None:
            return self.set_traceback(value)
        if name == "__suppress_context__" and self.source is None and value.is_python_constant():
            self.suppress_context = bool(value.as_python_constant())
            return None
        if name == "args" and self.source is None and not issubclass(self.cls, _ATTRIBUTES_FROM_INIT) \
                and _user_class_member(self.cls, name) is None \
                and _attributes.class_attribute(self.cls, "__setattr__") is BaseException.__setattr__:
            items = _sequence_items(value)
            if items is not None:
                self.args = items  # BaseException's args setter makes a tuple of the sequence
                return None
        if name == "__notes__" and self.source is None and _user_class_member(self.cls, name) is None:
            self.attrs[name] = value  # kept, as any attribute: an exception with notes is not rebuilt
            return None
        if self.source is not None or name.startswith("__") or name == "args":
            raise Unsupported(f"setting {name!r} on a {self.cls.__name__}", "not modelled")
        if _attributes.class_attribute(self.cls, "__setattr__") is not BaseException.__setattr__:
            raise Unsupported(f"setting {name!r} on a {self.cls.__name__}", "the class customises __setattr__")
        self.attrs[name] = value

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            if self.raised_in_trace:
                codegen.load_callable(bytecode_helpers.raised_again)
            self._rebuild(codegen)
            if self.raised_in_trace:
                codegen.call(1)
            return
        tb = self.traceback
        if tb is None:  # never raised, or its traceback set to None since
            self._rebuild(codegen)
        elif isinstance(tb, TracebackVariable) and tb.owner is self:  # as its last raise left it
            line = tb.raised_in_compiled_frame()
            if line is not None:  # raised_here(<the exception>, line): the compiled frame at that line
                codegen.load_callable(bytecode_helpers.raised_here)
                self._rebuild(codegen)
                codegen.load_const(line)
                codegen.call(2)
                return
            if codegen.hands_on:  # the rest of the function, after a break, may read the frames of the raise
                tb.refuse_rebuild()
            codegen.load_callable(bytecode_helpers.raised_again)
            self._rebuild(codegen)
            codegen.call(1)
        else:  # another exception's traceback, given by with_traceback
            codegen.load_callable(BaseException.with_traceback)
            self._rebuild(codegen)
            codegen.reconstruct(tb)
            codegen.call(2)

    def _rebuild(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
            return
        if self.args is None:
            raise Unsupported(f"a {self.cls.__name__} escaping the compiled function", "its message is not known")
        if set(self.attrs) - {"__notes__"} or _has_own_construction(self.cls):
            # cls(*args) would run its __init__ again on other arguments: not the object the trace made
            raise Unsupported(f"a {self.cls.__name__} escaping the compiled function", "its class customises construction")
        notes = self.attrs.get("__notes__")
        if notes is not None:  # noted(<the exception>, notes): what add_note left
            codegen.load_callable(bytecode_helpers.noted)
        chained = self.cause is not None or self.context is not None or self.suppress_context
        if chained:  # chained(cls(*args), cause, context, suppress)
            codegen.load_callable(bytecode_helpers.chained)
        codegen.load_callable(self.cls)
        for arg in self.args:
            codegen.reconstruct(arg)
        codegen.call(len(self.args))
        if chained:
            for link in (self.cause, self.context):
                if link is None:
                    codegen.load_const(None)
                else:
                    codegen.reconstruct(link)
            codegen.load_const(self.suppress_context)
            codegen.call(4)
        if notes is not None:
            codegen.reconstruct(notes)
            codegen.call(2)

    def describe(self) -> str:
        return f"{self.cls.__name__} raised while tracing"


#: The attributes that chain exceptions (PEP 3134).
_CHAIN_ATTRIBUTES = frozenset({"__cause__", "__context__", "__suppress_context__"})
#: What an exception made while tracing models of its traceback.
_TRACEBACK_MEMBERS = frozenset({"__traceback__", "with_traceback"})
#: What an exception from the frame answers from the real object.
_READ_FROM_REAL = _CHAIN_ATTRIBUTES | {"args"}


def raised(tx: InstructionTranslator, exc: ExceptionVariable) -> ExceptionVariable:
    """What raising ``exc`` anew (not re-raising it) does, as CPython's ``_PyErr_SetObject``: the
    exception being handled, if any, becomes its ``__context__``. A link from that exception's own
    chain back to ``exc`` is cut first, so the chain never becomes a cycle (one the program made itself
    is walked once around, as CPython's tortoise-and-hare walk does)."""
    handled = tx.handled_exception()
    if handled is None or handled is exc:
        return exc
    if not isinstance(handled, ExceptionVariable):
        raise Unsupported("raising while a value that is not a traced exception is handled", "not modelled")
    link, seen = handled, {id(handled)}
    while isinstance(link.context, ExceptionVariable):
        if link.context is exc:
            link.set_context(None)
            break
        link = link.context
        if id(link) in seen:  # a cycle already there (``e.__context__ = e``): every link was checked
            break
        seen.add(id(link))
    exc.set_context(handled)
    return exc


# classes whose __init__ sets attributes from the arguments (StopIteration.value, SystemExit.code, OSError's
# errno...): read from ``args`` here, so a later ``args`` assignment, which leaves them, stays a break
_ATTRIBUTES_FROM_INIT = (StopIteration, SystemExit, OSError, ImportError, SyntaxError, UnicodeError, NameError,
                         AttributeError, BaseExceptionGroup)


#: how a builtin exception class keeps what its ``__init__`` derives from the arguments (``UnicodeError.start``)
_C_FIELDS = (types.MemberDescriptorType, types.GetSetDescriptorType)


def _derived_attribute(exc: ExceptionVariable, name: str) -> Variable | None:
    """A C-level attribute that a builtin exception's ``__init__`` derives from its arguments
    (``UnicodeTranslateError.start``, ``OSError.errno``, ``SyntaxError.lineno``), for one the trace made by a
    call on constants: read from a real one made the same way. None where that does not apply."""
    if not issubclass(exc.cls, _ATTRIBUTES_FROM_INIT) or exc.args is None or _has_own_construction(exc.cls):
        return None
    if not any(isinstance(klass.__dict__.get(name), _C_FIELDS) for klass in exc.cls.__mro__
               if klass.__module__ == "builtins" and klass not in (BaseException, object)):
        return None
    if not all(arg.is_python_constant() for arg in exc.args):
        return None
    try:
        value = getattr(exc.cls(*(arg.as_python_constant() for arg in exc.args)), name)
    except AttributeError:  # a field left unset (OSError.characters_written): the trace's AttributeError is not modelled
        return None
    return ConstantVariable(value) if is_constant_value(value) else None


def _sequence_items(value: Variable) -> list[Variable] | None:
    """The items of a tuple or list known while tracing, else None."""
    if isinstance(value, (TupleVariable, ListVariable)):
        return list(value.items)
    if value.is_python_constant() and isinstance(value.as_python_constant(), (tuple, list)):
        return [wrap_constant_like(item) for item in value.as_python_constant()]
    return None


def _system_exit_code(args: list[Variable]) -> Variable:
    """``SystemExit(*args).code``, as CPython's ``SystemExit.__init__`` sets it: None with no arguments,
    the one argument, else the arguments' tuple."""
    if not args:
        return ConstantVariable(None)
    return args[0] if len(args) == 1 else TupleVariable(list(args))


def stop_iteration_error(exc: Variable) -> Variable:
    """PEP 479: a StopIteration escaping a generator's body becomes ``RuntimeError("generator raised
    StopIteration")`` with the StopIteration as its ``__cause__`` and ``__context__``; anything else is
    left as it is. (CPython 3.11 does this in C as the exception leaves the frame; 3.12 and later in
    the generator's own bytecode, CALL_INTRINSIC_1.)"""
    if not (isinstance(exc, ExceptionVariable) and issubclass(exc.cls, StopIteration)):
        return exc
    error = ExceptionVariable(RuntimeError, [ConstantVariable("generator raised StopIteration")])
    error.set_cause(exc)
    error.set_context(exc)
    return error


def is_attribute_error(exc: UserError | SymbolicException) -> bool:
    """Whether a failed attribute read raised AttributeError (directly or from inlined code)."""
    cls = exc.exc.cls if isinstance(exc, SymbolicException) else exc.exc_type
    return issubclass(cls, AttributeError)


def stop_iteration_value(stop: ExceptionVariable, where: str) -> Variable:
    """``StopIteration.value`` of ``stop`` (raised by ``where``, for the break's reason): its ``value``
    attribute, else its first argument, else None."""
    if "value" in stop.attrs:
        return stop.attrs["value"]
    if stop.args is None:
        raise Unsupported(f"the value of a {stop.cls.__name__} from {where}",
                          "the translator does not know the exception's arguments")
    return stop.args[0] if stop.args else ConstantVariable(None)


class SymbolicException(Exception):
    """Carries a traced exception up through inlined calls to a handler (or out of the trace)."""

    def __init__(self, exc: ExceptionVariable, reason: Reason | None = None, *, again: bool = False) -> None:
        super().__init__(exc.cls.__name__)
        self.exc = exc
        self.reason = reason
        #: a bare ``raise`` or RERAISE: CPython adds no traceback entry in the frame that re-raises (the
        #: exception keeps its traceback object there), only in each frame it leaves
        self.again = again
        if again:
            exc.raised_in_trace = True
        else:
            exc.was_raised()  # every raise and throw() the trace models goes through here

    def to_unsupported(self) -> Unsupported:
        """What the caller of the translator sees when the exception escapes the traced frame."""
        if self.reason is not None:
            error = Unsupported(self.reason.what, self.reason.why, self.reason.hint)
            error.reason = self.reason
        else:
            error = Unsupported(f"an uncaught {self.exc.cls.__name__}", "the program raises here; it runs as ordinary Python")
        error.reason.raises_out = True
        return error


_attributes.ATTRIBUTE_ERROR_TESTS.append(
    lambda exc: isinstance(exc, SymbolicException) and issubclass(exc.exc.cls, AttributeError))

RAISE_REFUSED = "exceptions must derive from BaseException"  # CPython's TypeError for ``raise 5``


def instantiate(tx: InstructionTranslator, value: Variable, refused: str = RAISE_REFUSED) -> ExceptionVariable:
    """What ``raise value`` raises: an exception instance (a class is called with no arguments). A
    known value that is neither an exception class nor an instance raises CPython's TypeError, with
    the message ``refused`` (``raise``, ``raise ... from`` and ``throw()`` each word it their way)."""
    if isinstance(value, ExceptionVariable):
        return value
    if value.is_python_constant():
        cls = value.as_python_constant()
        if isinstance(cls, type) and issubclass(cls, BaseException):
            # called as ``cls()`` is: a class whose __init__ wants arguments raises TypeError instead
            made = make_exception(cls, [], {}, tx)
            if not isinstance(made, ExceptionVariable):
                raise Unsupported(f"raise {cls.__name__}", "its construction gives no traced exception")
            return made
        if not isinstance(cls, BaseException):
            raise SymbolicException(raised(tx, ExceptionVariable(TypeError, [ConstantVariable(refused)])))
    raise Unsupported(f"raise {value.describe()}", "not an exception the translator models")


#: builtin exception base -> (its instances' kind of variable, what makes one from a call's arguments), for
#: the bases whose C ``__new__`` does more than keep ``args`` (exception groups); filled from above
KINDS: dict[type, tuple[type[ExceptionVariable], Any]] = {}


def kind_of(cls: type) -> tuple[type[ExceptionVariable], Any] | None:
    """``KINDS``' entry for exception class ``cls``, or None for the plain ones."""
    for base, entry in KINDS.items():
        if issubclass(cls, base):
            return entry
    return None


def make_exception(cls: type[BaseException], args: list[Variable], kwargs: dict[str, Variable],
                   tx: InstructionTranslator | None = None) -> Variable:
    """``cls(*args, **kwargs)``: an exception class whose construction runs no Python code, or a user
    class whose ``__init__`` is Python (inlined on the new exception, as ``BaseException.__new__``
    leaves it: ``args`` holds the positional arguments)."""
    if KINDS and (special := kind_of(cls)) is not None:
        return special[1](tx, cls, args, kwargs)
    if cls is OSError:
        cls = _os_error_class(args)
    init = _attributes.class_attribute(cls, "__init__")
    if _attributes.class_attribute(cls, "__new__") not in _BUILTIN_NEWS:
        raise Unsupported(f"creating a {cls.__name__}", "its class customises __new__")
    if not _has_own_construction(cls):
        if kwargs:
            _refuse_keywords(tx, cls, args, kwargs)
        made = ExceptionVariable(cls, list(args))
        made.made_by_call = True
        return made
    if tx is None or not isinstance(init, types.FunctionType):
        raise Unsupported(f"creating a {cls.__name__}", "its class customises construction")
    exc = ExceptionVariable(cls, list(args))
    _functions.UserFunctionVariable(init, _member_source(cls, "__init__")).call(tx, [exc, *args], kwargs)
    return exc


def _refuse_keywords(tx: InstructionTranslator | None, cls: type, args: list[Variable],
                     kwargs: dict[str, Variable]) -> None:
    """``cls(*args, **kwargs)`` for a class whose construction runs no Python code: most refuse keywords
    (CPython's TypeError, raised in the trace, found by running the C constructor on the constants, where no
    metaclass of the user's runs first); the ones that take them (``AttributeError(name=...)``) are not modelled."""
    values = [*args, *kwargs.values()]
    if tx is not None and type(cls) is type and all(value.is_python_constant() for value in values):
        try:
            cls(*(a.as_python_constant() for a in args), **{k: v.as_python_constant() for k, v in kwargs.items()})
        except TypeError as error:
            raise SymbolicException(raised(tx, ExceptionVariable(TypeError, [ConstantVariable(str(error))]))) from None
    raise Unsupported(f"{cls.__name__}() with keyword arguments", "not modelled")


def _os_error_class(args: list[Variable]) -> type[BaseException]:
    """The class ``OSError(*args)`` makes: its C ``__new__`` picks the subclass of a known errno
    (``OSError(errno.ENOENT, msg)`` is a FileNotFoundError) when given two to five arguments."""
    if not 2 <= len(args) <= 5:
        return OSError
    if not args[0].is_python_constant():
        raise Unsupported("OSError(errno, ...) of an errno not known while tracing", "its class depends on the errno")
    try:  # only the errno and the number of arguments pick the class
        return type(OSError(args[0].as_python_constant(), *([None] * (len(args) - 1))))
    except Exception:
        raise Unsupported("OSError(...) with these arguments", "not modelled") from None


def _member_source(cls: type, name: str) -> Any:
    """How guards reach a class's function (its closure cells, ``__class__`` for ``super()``, included)."""
    return Attr(Const(cls), name)


def _has_own_construction(cls: type) -> bool:
    """Whether creating a ``cls`` runs Python code (a user class with its own ``__init__``)."""
    return cls.__module__ != "builtins" and _attributes.class_attribute(cls, "__init__") not in _BUILTIN_INITS


def _builtin_exception_slots(name: str) -> frozenset:
    """The ``__init__`` / ``__new__`` objects of the builtin exception classes (each class has its own)."""
    return frozenset(klass.__dict__[name] for klass in vars(builtins).values()
                     if isinstance(klass, type) and issubclass(klass, BaseException) and name in klass.__dict__)


_BUILTIN_INITS = _builtin_exception_slots("__init__")
_BUILTIN_NEWS = _builtin_exception_slots("__new__")


def _user_class_member(cls: type, name: str) -> Any:
    """``name`` as defined by a user class in ``cls``'s MRO (None if only builtins define it)."""
    for klass in cls.__mro__:
        if klass.__module__ == "builtins":
            return None
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


class ExceptionInit(Variable):
    """A builtin exception's ``__init__`` reached through ``super()`` from a user class's: it sets
    ``args`` to its positional arguments."""

    def __init__(self, receiver: ExceptionVariable) -> None:
        self.receiver = receiver

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if kwargs:
            raise Unsupported(f"{self.receiver.cls.__name__}.__init__ with keyword arguments", "not modelled")
        self.receiver.args = list(args)
        return ConstantVariable(None)
