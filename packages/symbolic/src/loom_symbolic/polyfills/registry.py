"""The polyfill tables: what the translator traces in place of a C builtin, a C method or a C class.

Filled by the modules of this package (one per standard-library module) with the decorators below;
read by the variables (:func:`replacement_for`, :func:`method_replacement`, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import Any

#: id(original) -> (original, replacement); the original is kept so its id stays unique.
_REPLACEMENTS: dict[int, tuple[Any, Callable[..., Any]]] = {}
#: (id(original), attribute) -> replacement of ``original.attribute`` (originals are long-lived types
#: and builtins, so their ids stay theirs)
_ATTRIBUTES: dict[tuple[int, str], Callable[..., Any]] = {}
#: id(original) -> (original, replacement) for builtins the translator models itself in the common
#: cases (``min`` of constants is folded): the replacement serves the calls it cannot model.
_FALLBACKS: dict[int, tuple[Any, Callable[..., Any]]] = {}
#: (id(C class), method name) -> (replacement, whether it is a class method)
_METHODS: dict[tuple[int, str], tuple[Callable[..., Any], bool]] = {}
#: every name in _METHODS: most attribute reads are of other names, answered by one set lookup
_METHOD_NAMES: set[str] = set()
#: id of every class in _METHODS (long-lived C classes)
_OWNERS: set[int] = set()
#: id(Python replacement class) -> (real class it stands for, function making the real object from one)
_REBUILDERS: dict[int, tuple[type, Callable[..., Any]]] = {}
#: id(C class) -> names of its C-level attributes (slots) the polyfilled methods keep on instances
_SLOTS: dict[int, frozenset[str]] = {}


def polyfill(original: Any, attribute: str | None = None, *,
             fallback: bool = False) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as what the translator traces in place of ``original`` (or of
    ``original.attribute``; with ``fallback=True``, only where its own model of the builtin does not
    apply)."""

    def register(replacement: Callable[..., Any]) -> Callable[..., Any]:
        if fallback:
            _FALLBACKS[id(original)] = (original, replacement)
        elif attribute is None:
            _REPLACEMENTS[id(original)] = (original, replacement)
            if isinstance(original, type) and isinstance(replacement, type):
                _class_methods(original, replacement)
        else:
            _ATTRIBUTES[(id(original), attribute)] = replacement
        replacement.__loom_polyfill_of__ = original  # for messages and tests
        return replacement

    return register


def _class_methods(original: type, replacement: type) -> None:
    """A C class replaced whole (``deque``): its Python methods are also the C class's methods as a
    subclass reaches them (``super().append``, ``deque.__init__(self)``, an inherited ``__init__``)."""
    for name, member in vars(replacement).items():
        if isinstance(member, FunctionType) and name in vars(original):
            _METHODS[(id(original), name)] = (member, False)
            _METHOD_NAMES.add(name)


def replacement_for(value: Any) -> Callable[..., Any] | None:
    """The Python function traced in place of ``value``, if it has one."""
    found = _REPLACEMENTS.get(id(value))
    return found[1] if found is not None and found[0] is value else None


def attribute_replacement(value: Any, name: str) -> Callable[..., Any] | None:
    """The Python function traced in place of ``value.name`` (``itertools.chain.from_iterable``,
    ``dict.fromkeys``)."""
    return _ATTRIBUTES.get((id(value), name))


def fallback_for(value: Any) -> Callable[..., Any] | None:
    """The Python function traced for a call of builtin ``value`` that the translator does not model."""
    found = _FALLBACKS.get(id(value))
    return found[1] if found is not None and found[0] is value else None


def method(owner: type, name: str, *, classmethod: bool = False,
           slots: tuple[str, ...] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as C class ``owner``'s method ``name``, traced with the
    instance (or, with ``classmethod=True``, the class) as first argument. ``slots``: C-level
    attributes of ``owner`` the method stores on new instances (``defaultdict.default_factory``)."""

    def register(replacement: Callable[..., Any]) -> Callable[..., Any]:
        _METHODS[(id(owner), name)] = (replacement, classmethod)
        _METHOD_NAMES.add(name)
        _OWNERS.add(id(owner))
        if slots:
            _SLOTS[id(owner)] = _SLOTS.get(id(owner), frozenset()) | frozenset(slots)
        replacement.__loom_polyfill_of__ = getattr(owner, name)
        return replacement

    return register


def method_replacement(cls: type, name: str) -> tuple[Callable[..., Any], bool] | None:
    """The Python version of method ``name`` as ``cls`` finds it (the first class of its MRO that
    defines ``name``), with whether it is a class method; None where that one has no replacement."""
    if name not in _METHOD_NAMES:
        return None
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return _METHODS.get((id(klass), name))
    return None


def has_methods(cls: type) -> bool:
    """Whether C class ``cls`` has polyfilled methods (so its attribute lookup is the generic one)."""
    return id(cls) in _OWNERS


def modelled_slot(cls: type, name: str) -> bool:
    """Whether ``name`` is a C-level attribute of a base of ``cls`` that polyfilled methods keep on
    instances made while tracing (read from and rebuilt with the instance's other attributes)."""
    if not _SLOTS:
        return False
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return name in _SLOTS.get(id(klass), ())
    return False


def rebuild(original: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the one turning an instance of ``original``'s replacement
    class into a real ``original`` where it outlives the frame."""

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        replacement = replacement_for(original)
        assert isinstance(replacement, type), "polyfill the class before its rebuild function"
        _REBUILDERS[id(replacement)] = (original, fn)
        return fn

    return register


def no_rebuild(original: type) -> None:
    """Register ``original``'s replacement class as one whose instances stay in the trace: rebuilding one
    (it outlives the frame, or is live at a graph break) is refused, where no real ``original`` could be
    made to match it."""
    replacement = replacement_for(original)
    assert isinstance(replacement, type), "polyfill the class before registering it"
    _REBUILDERS[id(replacement)] = (original, None)


def real_class_of(cls: type) -> tuple[type, Callable[..., Any]] | None:
    """For a replacement class, the real class its instances stand for and their rebuild function (None for
    one registered with :func:`no_rebuild`)."""
    return _REBUILDERS.get(id(cls))


def originals() -> list[Any]:
    """Every builtin that has a replacement (fallbacks included)."""
    return [original for original, _ in (*_REPLACEMENTS.values(), *_FALLBACKS.values())]


#: co_filename of every module whose generator functions stand in for C iterators (itertools')
_C_ITERATOR_FILES: set[str] = set()


def c_iterator_module(filename: str) -> None:
    """Register the module at ``filename`` as one whose generators stand in for C iterators: a StopIteration
    escaping one ends it, as a C ``tp_iternext`` returning NULL with StopIteration set does, where a Python
    generator would turn it into PEP 479's RuntimeError."""
    _C_ITERATOR_FILES.add(filename)


def stands_for_c_iterator(code: Any) -> bool:
    """Whether ``code`` is a generator function of a module :func:`c_iterator_module` registered."""
    return code.co_filename in _C_ITERATOR_FILES
