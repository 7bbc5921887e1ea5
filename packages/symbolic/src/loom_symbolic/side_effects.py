"""Mutations the traced program made to state outside the frame, replayed after the graph runs.

The translator never mutates real objects while tracing: it records what the program did, keeps a
symbolic overlay so later reads in the trace see the new values, and the rewritten bytecode replays
the mutations, in program order, once the compiled graph has run.

Replay has two steps. :func:`stage` first rebuilds every value the mutations need (and the caller
then rebuilds the values it will hand on: the return value, the live locals), while the real objects
still hold what they held when the frame started: a value the trace reached as ``d['k']`` or
``obj.child`` must be read before the program's own ``d.clear()`` or ``obj.child = None`` is
replayed. :func:`apply` then performs the mutations from those staged temporaries. Each effect
also ``describe``s itself in one line, for dumps and explain.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import Unsupported, missing_attribute
from .object_dicts import DELETED, UNKNOWN, ObjectDicts
from .variables.lazy_list import LazyListVariable

if TYPE_CHECKING:
    from .codegen import PyCodegen
    from .variables.base import Variable

#: The temporaries one effect's values were staged in, in the order its ``apply`` reads them.
Staged = tuple[str, ...]


class _ByName:
    """An effect replayed as one instruction on ``name``, after loading the values it staged (in
    :meth:`operands` order: what the instruction pops, deepest first)."""

    name: str
    OPCODE = ""

    def operands(self) -> tuple[Variable, ...]:
        return ()

    def stage(self, codegen: PyCodegen) -> Staged:
        return tuple(codegen.stash(value) for value in self.operands())

    def apply(self, codegen: PyCodegen, staged: Staged) -> None:
        codegen.load_temps(staged)
        codegen.emit(self.OPCODE, self.name)


@dataclass
class StoreAttr(_ByName):
    """``target.name = value`` on an object that exists outside the frame."""

    target: Variable
    name: str
    value: Variable
    OPCODE = "STORE_ATTR"

    def operands(self) -> tuple[Variable, ...]:
        return self.value, self.target

    def describe(self) -> str:
        return f"{self.target.describe()}.{self.name} = {self.value.describe()}"


@dataclass
class GenericStoreAttr:
    """``object.__setattr__(target, name, value)`` on an object from outside the frame whose class
    overrides ``__setattr__`` in Python: the trace ran the override; replay only what it stored."""

    target: Variable
    name: str
    value: Variable
    #: the base class's store the override reached (``nn.Module.__setattr__`` for a module)
    setter: Any = object.__setattr__

    def stage(self, codegen: PyCodegen) -> Staged:
        return codegen.stash(self.target), codegen.stash(self.value)

    def apply(self, codegen: PyCodegen, staged: Staged) -> None:
        target, value = staged
        codegen.call_const(self.setter, 3, lambda: (codegen.load_temps((target,)), codegen.load_const(self.name),
                                                           codegen.load_temps((value,))))
        codegen.emit("POP_TOP")

    def describe(self) -> str:
        return f"object.__setattr__({self.target.describe()}, {self.name!r}, {self.value.describe()})"


@dataclass
class DeleteAttr(_ByName):
    """``del target.name``."""

    target: Variable
    name: str
    OPCODE = "DELETE_ATTR"

    def operands(self) -> tuple[Variable, ...]:
        return (self.target,)

    def describe(self) -> str:
        return f"del {self.target.describe()}.{self.name}"


@dataclass
class GenericDeleteAttr:
    """``object.__delattr__(target, name)`` on an object from outside the frame whose class overrides
    ``__delattr__`` in Python: the trace ran the override; replay only the deletion it made."""

    target: Variable
    name: str

    def stage(self, codegen: PyCodegen) -> Staged:
        return (codegen.stash(self.target),)

    def apply(self, codegen: PyCodegen, staged: Staged) -> None:
        codegen.call_const(object.__delattr__, 2, lambda: (codegen.load_temps(staged), codegen.load_const(self.name)))
        codegen.emit("POP_TOP")

    def describe(self) -> str:
        return f"object.__delattr__({self.target.describe()}, {self.name!r})"


@dataclass
class StoreGlobal(_ByName):
    """``global name; name = value``."""

    name: str
    value: Variable
    OPCODE = "STORE_GLOBAL"

    def operands(self) -> tuple[Variable, ...]:
        return (self.value,)

    def describe(self) -> str:
        return f"global {self.name} = {self.value.describe()}"


@dataclass
class DeleteGlobal(_ByName):
    """``global name; del name``."""

    name: str
    OPCODE = "DELETE_GLOBAL"

    def describe(self) -> str:
        return f"del global {self.name}"


@dataclass
class StoreCell:
    """A store to one of the frame's free variables (``nonlocal x; x = value``)."""

    name: str
    value: Variable

    def stage(self, codegen: PyCodegen) -> Staged:
        return (codegen.stash(self.value),)

    def apply(self, codegen: PyCodegen, staged: Staged) -> None:
        codegen.load_temps(staged)
        codegen.store_free_var(self.name)

    def describe(self) -> str:
        return f"nonlocal {self.name} = {self.value.describe()}"


@dataclass
class ReplaceContents:
    """A list, dict or set from outside the frame was mutated: give the real object its final contents."""

    container: Variable

    def stage(self, codegen: PyCodegen) -> Staged:
        return codegen.stage_contents(self.container)

    def apply(self, codegen: PyCodegen, staged: Staged) -> None:
        codegen.replace_contents(self.container, staged)

    def describe(self) -> str:
        tail = self.container.unread_tail() if isinstance(self.container, LazyListVariable) else None
        if tail is not None:  # a list from outside never read: extended by what was appended
            return f"list extended by {len(tail)}"
        return f"contents of {self.container.describe()} replaced"


@dataclass
class RefillStandIn:
    """A real object the trace modelled as a polyfill stand-in (a ``deque`` from the frame): if its
    items changed, give the real one the final items (``clear()``, then ``extend(items)``); if its
    ``maxlen`` changed too (``d.__init__(items, maxlen)`` ran), ``__init__(items, maxlen)`` again."""

    stand_in: Variable
    #: the item variables it had when the trace reached it
    initial: list[Variable]
    #: the variable of its ``maxlen`` then
    initial_maxlen: Variable | None = None
    #: the C class whose methods refill it (a subclass's overrides must not run): ``deque.clear(d)``
    owner: Any = None

    def _bound_changed(self) -> bool:
        return self.stand_in.attrs.get("_maxlen") is not self.initial_maxlen

    def _final(self) -> list[Variable] | None:
        final = self.stand_in.attrs["_items"]
        items = getattr(final, "items", None)
        if items is not None and len(items) == len(self.initial) and all(a is b for a, b in zip(items, self.initial)) \
                and not self._bound_changed():
            return None  # unchanged: nothing to replay
        return items

    def stage(self, codegen: PyCodegen) -> Staged:
        final = self._final()
        if final is None:
            return ()
        target = codegen.stash(self.stand_in)
        staged = (target, codegen.stash(self.stand_in.attrs["_items"]))
        return (*staged, codegen.stash(self.stand_in.attrs["_maxlen"])) if self._bound_changed() else staged

    def apply(self, codegen: PyCodegen, staged: Staged) -> None:
        if not staged:
            return
        target, items, *bound = staged
        calls = (("__init__", (items, *bound)),) if bound else (("clear", ()), ("extend", (items,)))
        for method, args in calls:
            if self.owner is not None:
                codegen.load_callable(getattr(self.owner, method))
                codegen.emit("LOAD_FAST", target)
            else:
                codegen.emit("LOAD_FAST", target)
                codegen.emit("LOAD_METHOD", method)
            codegen.load_temps(args)
            codegen.call(len(args) + (self.owner is not None))
            codegen.emit("POP_TOP")

    def describe(self) -> str:
        return f"items of {self.stand_in.describe()} replaced if changed"


@dataclass
class DeferredCall:
    """A call the trace did not make (a log call): the rewritten code makes it, at the user's line."""

    fn: Any
    args: list[Variable]
    kwargs: dict[str, Variable]
    lineno: int | None

    def stage(self, codegen: PyCodegen) -> Staged:
        return tuple(codegen.stash(value) for value in [*self.args, *self.kwargs.values()])

    def apply(self, codegen: PyCodegen, staged: Staged) -> None:
        start = len(codegen.instrs)
        codegen.load_callable(self.fn)
        codegen.load_temps(staged)
        if self.kwargs:
            codegen.call_kw(len(staged), tuple(self.kwargs))
        else:
            codegen.call(len(staged))
        codegen.emit("POP_TOP")
        for instr in codegen.instrs[start:]:  # the record's line is the call's (logging's findCaller)
            if self.lineno is not None and hasattr(instr, "lineno"):
                instr.lineno = self.lineno

    def describe(self) -> str:
        return f"call to {self.fn.__qualname__} made after the graph"


@dataclass
class Reposition:
    """An iterator from outside the frame (a list or tuple iterator) that the trace advanced: set it
    to where the trace left it, and exhaust it if the trace did, after every other effect, so that
    its list already holds its final items."""

    iterator: Variable

    def stage(self, codegen: PyCodegen) -> Staged:
        return (codegen.stash(self.iterator),)

    def apply(self, codegen: PyCodegen, staged: Staged) -> None:
        helper, arguments = self.iterator.replay()

        def load() -> None:
            codegen.load_temps(staged)
            for argument in arguments:
                codegen.load_const(argument)

        codegen.call_const(helper, 1 + len(arguments), load)
        codegen.emit("POP_TOP")

    def describe(self) -> str:
        return f"{self.iterator.describe()} moved as the trace moved it"


def stage(effects: list[Any], codegen: PyCodegen) -> list[Staged]:
    """Rebuild every value ``effects`` will need, before any of them mutates anything."""
    return [effect.stage(codegen) for effect in effects]


def apply(effects: list[Any], staged: list[Staged], codegen: PyCodegen) -> None:
    """Perform ``effects`` in program order from the values :func:`stage` rebuilt."""
    for effect, temps in zip(effects, staged):
        effect.apply(codegen, temps)


@dataclass
class SideEffects:
    """The ordered record of mutations, plus the overlay later reads in the trace consult."""

    effects: list[Any] = field(default_factory=list)
    #: id(real object) → {attribute name: variable or DELETED} for attribute stores seen so far.
    attr_overlay: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: Global names stored by the trace → their current variable (or DELETED).
    global_overlay: dict[str, Any] = field(default_factory=dict)
    #: id(a module's globals dict) → the module, for each other module whose globals the trace stored or
    #: deleted (their overlay is ``attr_overlay``'s, as attributes of the module; the frame's own module's
    #: is ``global_overlay``). Empty in the common case, so global reads pay for one truth test.
    global_modules: dict[int, Any] = field(default_factory=dict)
    #: id(globals dict of trusted library code) → {id(container global): name} (see variables.library_globals).
    library_containers: dict[int, dict[int, str]] = field(default_factory=dict)
    #: Names the trace stored on classes (``Registry.count = ...``): attribute lookups of other names,
    #: the common case, need not search the classes' overlays.
    class_attribute_names: set[str] = field(default_factory=set)
    _mutated_containers: set[int] = field(default_factory=set)
    #: The variables of objects' ``__dict__``s, kept in step with the attribute stores above.
    dicts: ObjectDicts = field(default_factory=ObjectDicts)
    #: id → (object, where the trace made it): classes and functions made once for the compiled entry, which
    #: the code after a graph break may change for every later call (``made_once``, ``PyCodegen.load_const``).
    made_once: dict[int, tuple[Any, Any]] = field(default_factory=dict)
    #: Every mutation recorded so far, counted (a container mutated twice is one effect, two here).
    mutations: int = 0
    #: What a deferred call recorded now is wrapped in (None: as it is); set while a block whose entry is
    #: replayed is open, so that a call raising there first leaves the block (``warnings_blocks``).
    deferred_wrapper: Any = None
    #: Iterators from outside the frame the trace advanced, repositioned after the other effects.
    repositioned: list[Reposition] = field(default_factory=list)

    @property
    def replayed(self) -> list[Any]:
        """Every effect, in the order the rewritten code performs them."""
        return self.effects + self.repositioned if self.repositioned else self.effects

    def store_attr(self, target: Variable, real: Any, name: str, value: Variable, *, generic: bool = False,
                   setter: Any = object.__setattr__) -> None:
        """``target.name = value`` (``generic``: through ``setter``, bypassing the class's own ``__setattr__``)."""
        self.mutations += 1
        plain = setter is object.__setattr__  # Module.__setattr__ may file the value in a table instead
        if not self.dicts.store(real, name, value if plain else UNKNOWN, f"setting {name!r}"):
            self.effects.append(GenericStoreAttr(target, name, value, setter) if generic else StoreAttr(target, name, value))
        self.attr_overlay.setdefault(id(real), {})[name] = value

    def store_class_attr(self, target: Variable, cls: type, name: str, value: Variable) -> None:
        """``cls.name = value`` on a class from outside the frame; reads of ``name`` through ``cls``,
        its subclasses and their instances see ``value`` for the rest of the trace."""
        self.store_attr(target, cls, name, value)
        self.class_attribute_names.add(name)

    def delete_class_attr(self, target: Variable, cls: type, name: str) -> None:
        """``del cls.name`` on a class (``name`` known to be in its dict): reads of ``name`` through ``cls``,
        its subclasses and their instances go past it for the rest of the trace (``variables.class_deletions``)."""
        self.delete_attr(target, cls, name)
        self.class_attribute_names.add(name)

    def stored_class_attribute(self, cls: type, name: str) -> Variable | None:
        """The value the trace stored as ``name`` on ``cls`` or the first class of its MRO that has
        ``name`` (stored, or defined), DELETED where the trace deleted it from that class, or None if the
        lookup reaches a class the trace did not change."""
        if name not in self.class_attribute_names:
            return None
        for klass in cls.__mro__:
            stored = self.attr_overlay.get(id(klass), {}).get(name)
            if stored is not None:
                return stored
            if name in klass.__dict__:
                return None
        return None

    def delete_attr(self, target: Variable, real: Any, name: str, *, generic: bool = False) -> None:
        """``del target.name`` (``generic``: through ``object.__delattr__``, bypassing the class's own)."""
        self.mutations += 1
        if not self.dicts.store(real, name, DELETED, f"deleting {name!r}"):  # else the dict's replay does it
            self.effects.append(GenericDeleteAttr(target, name) if generic else DeleteAttr(target, name))
        self.attr_overlay.setdefault(id(real), {})[name] = DELETED

    def exposed_instance_dict(self, real: Any, variable: Variable, *, live: bool = False) -> None:
        """The trace read ``real.__dict__`` as ``variable``: it shows the trace's attribute stores on ``real``
        (:class:`~.object_dicts.ObjectDicts`). ``live``: ``real``'s attribute reads are the generic ones, which
        read the dict where the program changes it; others (a module's globals) refuse a change of it."""
        variable.instance_dict_of = real
        variable.instance_dict_live = live

    def dict_view(self, real: Any) -> Any:
        """The variable of ``real.__dict__`` the program changed through the dict, which ``real``'s attribute
        reads must read from now on; None if there is none."""
        return self.dicts.changed_view(real)

    def dict_exposed(self, real: Any) -> bool:
        """Whether the trace holds ``real.__dict__`` as a variable (a store the dict cannot show then breaks)."""
        return self.dicts.held(real)

    def stored_attribute(self, real: Any, name: str) -> Variable | None:
        """The value the trace stored in ``real.name`` so far, or None if it stored none; an
        attribute the trace deleted raises ``AttributeError`` as Python would."""
        if self.dicts.changed_view(real) is not None:
            # attributes.view_of_real reads such an object's dict; any other reader of attributes would not
            raise Unsupported(f"attribute {name!r} of a {type(real).__name__} whose __dict__ the trace changed",
                              "this kind of object's attributes are not read from its dict")
        stored = self.attr_overlay.get(id(real), {}).get(name)
        if stored is DELETED:
            raise missing_attribute(f"{type(real).__name__!r} object", name)
        return stored

    def stored_overlay(self, real: Any) -> dict[str, Variable] | None:
        """The attributes the trace stored on ``real`` (name -> value, first store first), for a read of
        ``real.__dict__`` that must see them: a store adds a new name at the end of the dict or keeps an
        old one where it is, as Python does. None when that does not hold: the trace deleted one of them
        (where it sits after a delete and a store depends on their order), or stored one through a
        setter other than ``object.__setattr__`` (``nn.Module.__setattr__`` puts a parameter elsewhere)."""
        overlay = self.attr_overlay.get(id(real), {})
        for effect in self.effects:
            if isinstance(effect, (DeleteAttr, GenericDeleteAttr)) and effect.name in overlay:
                return None
            if isinstance(effect, GenericStoreAttr) and effect.name in overlay and effect.setter is not object.__setattr__:
                return None
        return overlay

    def attribute_deleted(self, real: Any, name: str) -> bool:
        """Whether the trace's last change to ``real.name`` deleted it (a read goes on to the class then)."""
        return self.attr_overlay.get(id(real), {}).get(name) is DELETED

    def stored_attributes(self, real: Any) -> bool:
        """Whether the trace stored or deleted an attribute of ``real`` so far."""
        return bool(self.attr_overlay.get(id(real)))

    def store_global(self, name: str, value: Variable) -> None:
        self.mutations += 1
        self.effects.append(StoreGlobal(name, value))
        self.global_overlay[name] = value

    def delete_global(self, name: str) -> None:
        self.mutations += 1
        self.effects.append(DeleteGlobal(name))
        self.global_overlay[name] = DELETED

    def store_module_global(self, target: Variable, module: Any, name: str, value: Variable) -> None:
        """``name = value`` among another module's globals (``target``: the module): replayed as an attribute
        store; the module's attribute reads and its functions' global reads see it."""
        self.global_modules[id(module.__dict__)] = module
        self.store_attr(target, module, name, value)

    def delete_module_global(self, target: Variable, module: Any, name: str) -> None:
        """``del name`` among another module's globals, as :meth:`store_module_global` stores."""
        self.global_modules[id(module.__dict__)] = module
        self.delete_attr(target, module, name)

    def stored_module_global(self, f_globals: dict[str, Any], name: str) -> Any:
        """What the trace stored (a variable) or deleted (:data:`DELETED`) as global ``name`` of the other
        module whose dict ``f_globals`` is, or None where it did neither."""
        module = self.global_modules.get(id(f_globals))
        return None if module is None else self.attr_overlay.get(id(module), {}).get(name)

    def store_cell(self, name: str, value: Variable) -> None:
        self.mutations += 1
        self.effects.append(StoreCell(name, value))

    def mutated_container(self, container: Variable) -> None:
        """Note that ``container`` (which came from outside the frame) changed; replayed once."""
        self.mutations += 1
        self.dicts.changed(container)
        if id(container) not in self._mutated_containers:
            self._mutated_containers.add(id(container))
            self.effects.append(ReplaceContents(container))

    def replay_effect(self, effect: Any) -> None:
        """Record ``effect``, one a variable kind defines itself (``stage``, ``apply``, ``describe``: a
        bytearray from outside the frame given its final contents), replayed in program order."""
        self.mutations += 1
        self.effects.append(effect)

    def is_mutated_container(self, container: Variable) -> bool:
        """Whether the program changed ``container`` (from outside the frame) earlier in the trace: the
        real object still holds its old contents, the variable the current ones."""
        return id(container) in self._mutated_containers

    def deferred_call(self, fn: Any, args: list[Variable], kwargs: dict[str, Variable], lineno: int | None) -> None:
        """``fn(*args, **kwargs)`` is made by the rewritten code, in program order with the mutations."""
        self.mutations += 1
        if self.deferred_wrapper is not None:
            fn = self.deferred_wrapper(fn)
        self.effects.append(DeferredCall(fn, list(args), dict(kwargs), lineno))

    def advanced_iterator(self, iterator: Variable, *, first: bool = False) -> None:
        """``iterator`` (from outside the frame) moved: its final position is replayed, once. ``first``: before
        every other effect (an ``enumerate`` whose count only its own steps move, over the items its inner
        iterator held on entry), else after them all."""
        self.mutations += 1
        if first:
            if not any(getattr(effect, "iterator", None) is iterator for effect in self.effects):
                self.effects.insert(0, Reposition(iterator))
            return
        if not any(effect.iterator is iterator for effect in self.repositioned):
            self.repositioned.append(Reposition(iterator))

    def track_stand_in(self, stand_in: Variable, owner: Any = None) -> None:
        """``stand_in`` models a real object from outside the frame: its final items are replayed (through
        C class ``owner``'s own methods, when given)."""
        self.effects.append(RefillStandIn(stand_in, list(stand_in.attrs["_items"].items), stand_in.attrs.get("_maxlen"),
                                          owner))

    def __len__(self) -> int:
        return len(self.effects) + len(self.repositioned)

    def describe(self) -> list[str]:
        """One line per recorded effect, for dumps and explain."""
        return [e.describe() for e in self.replayed]
