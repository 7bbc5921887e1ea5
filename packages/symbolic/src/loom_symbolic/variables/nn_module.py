"""``torch.nn.Module`` instances: forward is inlined, parameters and buffers become graph inputs.

A module is guarded by its type, not its identity, so that the layers of a model (32 instances of one
block class) share one compiled entry of their ``forward``. Everything else the trace relies on is
read through the module's source and guarded there, so another instance must match it too:

* its type (``TypeMatch``) and, as the trace reads them, its submodules (each guarded the same way
  through ``_modules``), its parameters and buffers (graph inputs, read at call time through
  ``_parameters``/``_buffers``: never constants), the attributes ``forward`` reads (``training``,
  ``eps``, ``self.scale``: by value or type as usual) and the keys of the tables it iterates;
* its hook dicts: empty (``len(m.__dict__['_forward_hooks']) == 0``, one fused check per module in
  the guard accelerator), or their keys and hooks when it has hooks (see :mod:`.module_hooks`);
* aliasing: two sources holding one module are guarded to stay one (``SameObject``); a trace that
  relied on two modules being distinct (``is``, ``==``, ``parameters()`` deduplication, a stored
  attribute) gets them into its ``NoAliasing`` guard;
* its identity only where the trace used it: ``id(m)`` and a module as the key of a dict pin it
  (an ``Identity`` guard), since their answers hold for that very object.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

import torch
import torch.nn.modules.module as _torch_module_module

from loom_guards import Attr, Const, DictAttr, ModuleBuffer, ModuleParam, Submodule, TypeOf

from ..errors import Unsupported, UserError
from ..operand_errors import truth_of
from ..policy import trusted_module_name
from . import containers as _containers
from . import functions as _functions
from . import lazy_modules as _lazy_modules
from . import tensor as _tensor
from .attributes import _MISSING, class_attribute, resolve, store_through_descriptor, view_of_real
from .base import Variable
from .constant import ConstantVariable
from .iterators import SnapshotIterator
from .methods import MethodVariable
from .module_hooks import call_with_hooks, changed_in_trace, global_table_source, own_table_source
from .module_tables import buffer_flag_absent, file_in_tables
from .registry import wrap

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


_HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")
_GLOBAL_HOOK_DICTS = ("_global_forward_hooks", "_global_forward_pre_hooks", "_global_backward_hooks",
                      "_global_backward_pre_hooks")


def _hook_tables(module: torch.nn.Module, source: Any) -> list[tuple[Any, Any]]:
    """The module's own hook dicts and the process-wide module hook dicts, each with its source."""
    return [(getattr(module, name, None), own_table_source(module, source, name)) for name in _HOOK_DICTS] + [
        (getattr(_torch_module_module, name, None), global_table_source(name)) for name in _GLOBAL_HOOK_DICTS
    ]


def _check_no_hooks(tx: InstructionTranslator, module: torch.nn.Module, source: Any) -> bool:
    """Inlining ``forward`` skips ``__call__``'s hooks, so it is valid only while there are none
    (False: there are, and :mod:`.module_hooks` inlines them).

    Each hook dict is guarded empty, so a hook registered later, or another instance with a hook,
    fails the guard and recompiles. The module's own four are read through its source (the guard
    accelerator checks them in one instruction per module); the process-wide ones are constants.
    """

    for table, table_source in _hook_tables(module, source):
        if table:
            return False
        if table is not None:
            tx.output.guards.add("length", table_source, table)
            changed = changed_in_trace(tx, table)
            if changed is not None and changed.items:
                return False  # a hook the program registered earlier in this frame
    return True


def _guard_call_inherited(tx: InstructionTranslator, cls: type) -> None:
    """The trace runs ``nn.Module.__call__`` (hooks, then ``forward``) because no class of ``cls``'s MRO above
    ``nn.Module`` defines ``__call__``: one assigned there later (``M.__call__ = f``) must recompile. Library
    classes (``nn.Linear``) are taken as fixed, as their other attributes are."""
    for klass in cls.__mro__:
        if klass is torch.nn.Module:
            return
        if not trusted_module_name(klass.__module__ or ""):
            tx.output.guards.add("absent_key", Attr(Const(klass), "__dict__"), "__call__")


class NNModuleVariable(Variable):
    """A module from the frame (guarded by type and structure, see the module docstring); its
    submodules and tensors are reached through ``_modules``/``_parameters``/``_buffers`` so the
    rewritten code loads them with dict lookups."""

    wraps_real_object = True
    mutable = True

    def __init__(self, value: torch.nn.Module, source: Any = None, guards: Any = None) -> None:
        self.value = value
        self.source = source
        #: The trace's guard collector (None: no source, nothing to guard), for :meth:`pin_identity`.
        self._guards = guards

    def pin_identity(self) -> None:
        """The trace used this very object (as a dict key): guard it by identity too."""
        if self._guards is not None and self.source is not None:
            self._guards.add("identity", self.source, self.value)

    def python_type(self) -> type:
        return type(self.value)

    def _child_source(self, table: str, name: Any) -> Any:
        if self.source is None:
            return None
        kind = {"_modules": Submodule, "_parameters": ModuleParam, "_buffers": ModuleBuffer}[table]
        return kind(self.source, name)

    def table(self, tx: InstructionTranslator, name: str) -> dict:
        """The module's ``_modules``/``_parameters``/``_buffers`` dict, for iterating over it: its keys
        are guarded, so adding or removing a member later recompiles."""
        members = self.value.__dict__[name]
        if changed_in_trace(tx, members) is not None:
            raise Unsupported(f"listing the {name[1:]} of {type(self.value).__name__}",
                              "the program added or removed one earlier in this frame", hint="it runs between graphs")
        self.check_table_current(tx, name, f"listing the {name[1:]} of {type(self.value).__name__}")
        overrides = tx.output.module_overrides
        if overrides and name in ("_parameters", "_buffers") and any((id(self.value), k) in overrides for k in members):
            raise Unsupported(f"listing the {name[1:]} of {type(self.value).__name__} inside torch.func.functional_call",
                              "the call's tensors are swapped in for attribute reads only")
        if self.source is not None:
            tx.output.guards.add("dict_keys", DictAttr(self.source, name), members)
        return members

    def members(self, tx: InstructionTranslator, name: str) -> list[tuple[str, Variable, Any]]:
        """``_parameters``/``_buffers`` as (key, variable, identity) in order: the trace's contents when the
        program changed the table earlier in this frame (``register_buffer`` in ``forward``), the real
        dict's otherwise; ``identity`` tells shared members apart (the real tensor, or the variable)."""
        members = self.value.__dict__[name]
        changed = changed_in_trace(tx, members)
        self.check_table_current(tx, name, f"listing the {name[1:]} of {type(self.value).__name__}")
        if changed is None:
            return [(k, wrap(tx, v, self._child_source(name, k)), v) for k, v in self.table(tx, name).items()]
        if self.source is not None:  # what the frame started from: another set of keys is another trace
            tx.output.guards.add("dict_keys", DictAttr(self.source, name), members)
        found = []
        for key, value in changed.items.items():
            constant = value.is_python_constant() and value.as_python_constant() is None
            real = getattr(value, "real", None)
            found.append((key, value, None if constant else value if real is None else real))
        return found

    def check_table_current(self, tx: InstructionTranslator, table: str, what: str) -> None:
        """Refuse to read ``table`` after an assignment that ``Module.__setattr__`` files in it or takes out of it
        (a parameter, a submodule, a name registered there, a tensor that may carry ``nn.Buffer``'s flag) and that
        :mod:`.module_tables` left to be replayed through ``Module.__setattr__``: it reaches the real table only
        after the graph, so the table would still list what the assignment replaced."""
        stored = tx.output.side_effects.attr_overlay.get(id(self.value))
        if not stored:
            return
        state = self.value.__dict__
        for name, value in stored.items():
            kind = value.python_type() if isinstance(value, Variable) else None
            filed = "_parameters" if kind is not None and issubclass(kind, torch.nn.Parameter) else (
                "_modules" if kind is not None and issubclass(kind, torch.nn.Module) else None)
            flagged = table == "_buffers" and isinstance(value, _tensor.TensorVariable) and not buffer_flag_absent(tx, value)
            if table == filed or flagged or name in state.get(table, ()):
                raise Unsupported(what, f"the program assigned {name!r} earlier in this frame, which the module's "
                                  f"{table} shows only after the graph", hint="it runs between graphs")

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        stored = tx.output.side_effects.stored_attribute(self.value, name)
        if stored is not None:
            return stored
        if name in _TABLES:
            self.check_table_current(tx, name, f"{type(self.value).__name__}.{name}")
        overrides = tx.output.module_overrides
        if overrides and (id(self.value), name) in overrides:  # inside torch.func.functional_call
            return overrides[(id(self.value), name)]
        state = self.value.__dict__
        # an instance attribute of that name (``self.buffers = []``) hides the method, as in Python's lookup
        if (name in _MODULE_METHODS and name not in state
                and class_attribute(type(self.value), name) is getattr(torch.nn.Module, name)):
            if self.source is not None:  # set on the instance later (modules share entries by type): recompile
                tx.output.guards.add("absent_key", Attr(self.source, "__dict__"), name)
            return MethodVariable(self, name)
        # Python's lookup finds a class attribute (a method ``proj`` of a base class) before
        # Module.__getattr__ looks in the tables (a submodule also named ``proj``)
        tables = ("_parameters", "_buffers", "_modules") if class_attribute(type(self.value), name) is _MISSING else ()
        for table in tables:
            members = state.get(table)
            if members is None:
                continue
            changed = changed_in_trace(tx, members)  # register_buffer(...), del, earlier in the frame
            if changed is not None:
                if name in changed.items:
                    return changed.items[name]
                continue  # not (or no longer) in this table
            if name in members:
                return wrap(tx, members[name], self._child_source(table, name))
        if self.source is not None and name not in state and class_attribute(type(self.value), name) is _MISSING:
            self._guard_absent_from_tables(tx, name)
        return resolve(tx, view_of_real(tx, self, self.value, self.source, state), name)

    def _guard_absent_from_tables(self, tx: InstructionTranslator, name: str) -> None:
        """A missing attribute: ``nn.Module.__getattr__`` would find a parameter, buffer or submodule
        of that name registered later, so each table is guarded not to have it."""

        for table in ("_parameters", "_buffers", "_modules"):
            members = self.value.__dict__.get(table)
            if members is None:
                continue
            if changed_in_trace(tx, members) is not None:  # the frame changed it: its keys at entry decide
                tx.output.guards.add("dict_keys", DictAttr(self.source, table), members)
            else:
                tx.output.guards.add("absent_key", DictAttr(self.source, table), name)

    def delete_attr(self, tx: InstructionTranslator, name: str) -> None:
        """``del module.name`` as ``nn.Module.__delattr__`` makes it: a parameter or submodule leaves its
        table (later reads in the frame miss it, the real table loses it after the graph), anything else
        the instance dict."""
        cls = type(self.value)
        if self.source is None or class_attribute(cls, "__delattr__") is not torch.nn.Module.__delattr__:
            raise Unsupported(f"deleting {name!r} of {self.describe()}", "not modelled")
        state = self.value.__dict__
        for table in ("_parameters", "_modules"):
            changed = changed_in_trace(tx, state[table])
            if name in (state[table] if changed is None else changed.items):
                self.var_getattr(tx, table).call_builtin_method(tx, "__delitem__", [ConstantVariable(name)], {})
                return
        if name in state["_buffers"]:
            raise Unsupported(f"deleting buffer {name!r} of {self.describe()}", "not modelled")
        if tx.output.side_effects.stored_attribute(self.value, name) is None and name not in state:
            raise UserError(f"deleting {name!r}", f"{cls.__name__!r} object has no attribute {name!r}",
                            exc_type=AttributeError)
        tx.output.side_effects.delete_attr(self, self.value, name)

    def object_view(self, tx: InstructionTranslator) -> Any:
        """What attribute lookup needs to know about this module."""
        return view_of_real(tx, self, self.value, self.source, self.value.__dict__)

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        if self.source is None:
            raise Unsupported(f"assigning {name!r} on a module the translator cannot reach", "not modelled")
        hook = class_attribute(type(self.value), "__setattr__")
        if hook is not torch.nn.Module.__setattr__:  # the class's own __setattr__ runs first, as in Python
            wrap(tx, hook, Attr(TypeOf(self.source), "__setattr__")).call(tx, [self, ConstantVariable(name), value], {})
            return
        self.module_store(tx, name, value)

    def module_setattr(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        """``nn.Module.__setattr__(self, name, value)`` reached through ``super()`` from the class's own
        ``__setattr__``: the store as ``Module`` makes it (inlining torch's would read ``self.__dict__``)."""
        if kwargs or len(args) != 2 or not args[0].is_python_constant():
            raise Unsupported("Module.__setattr__ with these arguments", "not modelled")
        self.module_store(tx, args[0].as_python_constant(), args[1], generic=True)
        return ConstantVariable(None)

    def module_store(self, tx: InstructionTranslator, name: str, value: Variable, generic: bool = False) -> None:
        """The store ``nn.Module.__setattr__`` makes (``generic``: the class's own ``__setattr__`` ran in the
        trace and reached it, so the rewritten code replays it through ``Module.__setattr__`` itself)."""
        if (id(self.value), name) in tx.output.module_overrides:  # eager writes the swapped-in slot, then restores
            raise Unsupported(f"assigning {name!r} on {type(self.value).__name__} inside torch.func.functional_call",
                              "the call's tensors are swapped in for attribute reads only", hint="it runs between graphs")
        static = class_attribute(type(self.value), name)
        if hasattr(type(static), "__set__"):  # a property, or a data descriptor of the user's: its __set__ runs
            if isinstance(value, (_tensor.TensorVariable, NNModuleVariable)):
                raise Unsupported(f"assigning {name!r} on {type(self.value).__name__}",
                                  "a data descriptor, which Module.__setattr__ bypasses for parameters and submodules")
            if store_through_descriptor(tx, self, type(self.value), TypeOf(self.source), name, value):
                return
        if file_in_tables(tx, self, name, value):
            # a parameter, buffer or submodule: later reads of the table in this frame (parameters(),
            # children(), ``name in m._modules``) see it, and the real table gets it after the graph
            return
        tx.output.side_effects.store_attr(self, self.value, name, value, generic=generic, setter=torch.nn.Module.__setattr__)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        module = self.value
        own_call = type(module).__call__
        if own_call is not torch.nn.Module.__call__:
            if not isinstance(own_call, types.FunctionType) or self.source is None:
                raise Unsupported(f"calling {type(module).__name__}", "the module overrides __call__")
            # the class's own __call__ (one that scales forward's result) runs in its place, as in Python
            return wrap(tx, own_call, Attr(TypeOf(self.source), "__call__")).call(tx, [self, *args], kwargs)
        _guard_call_inherited(tx, type(module))
        return self.module_call(tx, args, kwargs)

    def module_call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        """``nn.Module.__call__``: hooks and ``forward`` (also what an overriding ``__call__`` reaches through
        ``super().__call__``)."""
        module = self.value
        if _lazy_modules.is_uninitialized(module):
            _lazy_modules.materialize(tx, module, args, kwargs, self.source)
        if not _check_no_hooks(tx, module, self.source):
            return call_with_hooks(tx, self, args, kwargs)
        return self.var_getattr(tx, "forward").call(tx, args, kwargs)

    #: Methods of ``nn.Module`` this variable models itself when ``super()`` reaches them (by function).
    super_methods = {torch.nn.Module.__setattr__: module_setattr, torch.nn.Module.__call__: module_call}

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        handler = _MODULE_METHODS.get(name)
        if handler is not None:
            recurse = _recurse_argument(name, args, kwargs)
            if recurse is not None:
                return handler(self, tx, recurse)
            # other arguments (prefix=, remove_duplicate=): torch's own method, inlined (reading it again
            # through var_getattr would come back here)
            method = class_attribute(type(self.value), name)
            return wrap(tx, method, None).call(tx, [self, *args], kwargs)
        if name == "__getitem__":
            return self.getitem(tx, args[0])
        if name == "__len__" and class_attribute(type(self.value), "__len__") in _CHILD_COUNTING_LENGTHS:
            return ConstantVariable(len(self._ordered_children(tx)))
        return self.var_getattr(tx, name).call(tx, args, kwargs)

    def truth(self, tx: InstructionTranslator) -> bool:
        """``if module:``: ``__bool__``, else ``__len__`` (the containers), else true, as for any object. The
        type is guarded, so a type without either is true for every instance the entry serves."""
        cls = type(self.value)
        if class_attribute(cls, "__bool__") is not _MISSING:
            return truth_of("__bool__", self.var_getattr(tx, "__bool__").call(tx, [], {}).as_python_constant())
        length = class_attribute(cls, "__len__")
        if length is _MISSING:
            return True
        if length in _CHILD_COUNTING_LENGTHS:
            return bool(self._ordered_children(tx))
        return truth_of("__len__", self.var_getattr(tx, "__len__").call(tx, [], {}).as_python_constant())

    # -- containers (Sequential, ModuleList, ModuleDict) ------------------------------------------
    def _ordered_children(self, tx: InstructionTranslator) -> list[str]:
        changed = self._changed_children(tx)
        return list(changed if changed is not None else self.table(tx, "_modules"))

    def _changed_children(self, tx: InstructionTranslator) -> dict[str, Variable] | None:
        """The trace's ``_modules`` entries when the program changed the table in this frame (``append``,
        a submodule assigned): the real table keeps its old entries until the graph has run."""
        members = self.value.__dict__["_modules"]
        changed = changed_in_trace(tx, members)
        if changed is None:
            return None
        if self.source is not None:  # what the frame started from: another set of keys is another trace
            tx.output.guards.add("dict_keys", DictAttr(self.source, "_modules"), members)
        return changed.items

    def _parameter_entries(self, tx: InstructionTranslator) -> dict:
        """The ``_parameters`` keys a ParameterList holds now: the trace's when the program appended to it in
        this frame, else the real table's; either way guarded, so a list grown outside recompiles."""
        members = self.value.__dict__["_parameters"]
        changed = changed_in_trace(tx, members)
        if changed is None:
            return self.table(tx, "_parameters")
        if self.source is not None:  # what the frame started from: another set of keys is another trace
            tx.output.guards.add("dict_keys", DictAttr(self.source, "_parameters"), members)
        return changed.items

    def _child(self, tx: InstructionTranslator, key: str) -> Variable:
        changed = self._changed_children(tx)
        if changed is not None:
            return changed[key]
        return wrap(tx, self.value._modules[key], self._child_source("_modules", key))

    def _submodules(self, tx: InstructionTranslator) -> list[tuple[str, Variable]]:
        """(name, module) of the children ``named_children``/``named_modules`` walk (None entries skipped);
        a module made in this frame and filed here has no tables the walk could read: a break."""
        found = []
        for key in self._ordered_children(tx):
            child = self._child(tx, key)
            if isinstance(child, NNModuleVariable):
                found.append((key, child))
            elif not (child.is_python_constant() and child.as_python_constant() is None):
                raise Unsupported(f"listing the modules of {type(self.value).__name__}",
                                  "one was made in this frame", hint="it runs between graphs")
        return found

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        if isinstance(self.value, torch.nn.ModuleDict):
            return [ConstantVariable(k) for k in self._ordered_children(tx)]
        if isinstance(self.value, (torch.nn.ModuleList, torch.nn.Sequential)):
            return [self._child(tx, k) for k in self._ordered_children(tx)]
        if isinstance(self.value, (torch.nn.ParameterList,)):
            return [self.var_getattr(tx, k) for k in self.table(tx, "_parameters")]
        if isinstance(self.value, torch.nn.ParameterDict):
            return [ConstantVariable(k) for k in self._parameter_dict_keys(tx)]
        raise Unsupported(f"iteration over {type(self.value).__name__}", "not a module container")

    def _parameter_dict_keys(self, tx: InstructionTranslator) -> list[str]:
        """A ParameterDict's keys, in its ``_keys`` order: read through ``_parameters`` (whose keys are
        guarded) when it holds only parameters, the common case."""
        keys = list(self.value._keys)
        if keys != list(self.table(tx, "_parameters")):
            raise Unsupported(f"iteration over {type(self.value).__name__}", "it holds values other than parameters")
        return keys

    def getitem(self, tx: InstructionTranslator, index: Variable) -> Variable:
        module = self.value
        own = getattr(type(module), "__getitem__", None)
        if isinstance(own, types.FunctionType) and own not in _CONTAINER_GETITEMS:
            # the class's own __getitem__ (a model indexing its blocks, a ModuleList subclass): inlined
            return _functions.UserFunctionVariable(own).call(tx, [self, index], {})
        key = index.as_python_constant()
        if isinstance(module, torch.nn.ModuleDict):
            changed = self._changed_children(tx)
            if key not in (module._modules if changed is None else changed):
                raise UserError("ModuleDict lookup", f"KeyError: {key!r}", exc_type=KeyError)
            return self._child(tx, key)
        if isinstance(module, (torch.nn.ModuleList, torch.nn.Sequential)):
            keys = self._ordered_children(tx)
            if isinstance(key, slice):
                if isinstance(module, torch.nn.Sequential):
                    # a new Sequential of the same children (``self.__class__(...)``), made in the trace as
                    # the class's own __getitem__ makes it
                    return _functions.UserFunctionVariable(type(module).__getitem__).call(tx, [self, index], {})
                return _ModuleSliceVariable([self._child(tx, k) for k in keys[key]])
            try:
                return self._child(tx, keys[key])
            except IndexError:
                raise UserError("module index", f"index {key} is out of range", exc_type=IndexError) from None
            except TypeError:
                raise UserError("module index", f"indices must be integers, not {type(key).__name__}", exc_type=TypeError) from None
        if isinstance(module, torch.nn.ParameterList):
            if not isinstance(key, int):  # a slice is a new ParameterList, another key eager's TypeError: its own code
                return _functions.UserFunctionVariable(type(module).__getitem__).call(tx, [self, index], {})
            size, key = len(self._parameter_entries(tx)), int(key)
            if not -size <= key < size:
                raise UserError("ParameterList index", f"index {key} is out of range", exc_type=IndexError,
                                exc_args=(f"index {key} is out of range",))
            return self.var_getattr(tx, str(key % size))
        if isinstance(module, torch.nn.ParameterDict) and isinstance(key, str):
            if key not in self._parameter_dict_keys(tx):
                raise UserError("ParameterDict lookup", f"KeyError: {key!r}", exc_type=KeyError)
            return self.var_getattr(tx, key)
        raise Unsupported(f"subscript of {type(module).__name__}", "not a module container")

    def reconstruct(self, codegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
        else:
            codegen.load_const(self.value)

    def describe(self) -> str:
        return f"module {type(self.value).__name__}"


#: torch's containers' own ``__getitem__``: modelled here (a slice of a ModuleList is never a new module).
_CONTAINER_GETITEMS = frozenset(cls.__getitem__ for cls in (torch.nn.ModuleList, torch.nn.ModuleDict, torch.nn.Sequential,
                                                             torch.nn.ParameterList, torch.nn.ParameterDict))

# ``len()`` of these containers counts their submodules (``_modules``, whose keys the trace guards).
_CHILD_COUNTING_LENGTHS = (torch.nn.ModuleList.__len__, torch.nn.Sequential.__len__, torch.nn.ModuleDict.__len__)


class _ModuleSliceVariable(Variable):
    """``module_list[a:b]``: iterable and indexable, never rebuilt as a new ModuleList."""

    def __init__(self, items: list[Variable]) -> None:
        self.items = items

    def python_type(self) -> type:
        return torch.nn.ModuleList

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        return list(self.items)

    def getitem(self, tx: InstructionTranslator, index: Variable) -> Variable:
        key = index.as_python_constant()
        if isinstance(key, slice):
            return _ModuleSliceVariable(self.items[key])
        return self.items[key]

    def call_method(self, tx, name, args, kwargs):
        if name == "__len__":
            return ConstantVariable(len(self.items))
        raise Unsupported(f"method {name} of a ModuleList slice", "not modelled")


def _recurse_argument(name: str, args: list[Variable], kwargs: dict[str, Variable]) -> bool | None:
    """``recurse`` of ``parameters(recurse=False)`` and the like (True with no arguments), or None when the
    call passes anything else."""
    if not args and not kwargs:
        return True
    if name not in ("parameters", "named_parameters", "buffers", "named_buffers") or len(args) + len(kwargs) > 1:
        return None
    if args and name.startswith("named"):  # named_parameters(prefix, recurse, ...): a prefix
        return None
    given = args[0] if args else kwargs.get("recurse")
    if given is None or not given.is_python_constant() or not isinstance(given.as_python_constant(), bool):
        return None
    return given.as_python_constant()


def _iter_of(kind: str):
    def method(module_var: NNModuleVariable, tx: InstructionTranslator, recurse: bool = True) -> Variable:
        items: list[Variable] = []
        seen: set[int] = set()  # torch yields a member shared by several modules once (remove_duplicate)
        # Which members are the same object decides what is yielded: the aliasing guards must hold.
        tx.output.aliases.relied_on_distinct()
        for prefix_path, owner in _walk(module_var, tx, recurse=recurse and kind in ("parameters", "named_parameters",
                                                                         "buffers", "named_buffers", "modules",
                                                                         "named_modules")):
            if kind in ("parameters", "named_parameters", "buffers", "named_buffers"):
                table = "_parameters" if "parameters" in kind else "_buffers"
                for name, var, value in owner.members(tx, table):
                    if value is None or id(value) in seen:
                        continue  # skipped as torch does (None: guarded to stay None)
                    seen.add(id(value))
                    items.append(_containers.TupleVariable([ConstantVariable(prefix_path + name), var]) if kind.startswith("named") else var)
            elif kind in ("modules", "named_modules"):
                path = prefix_path[:-1]
                items.append(_containers.TupleVariable([ConstantVariable(path), owner]) if kind == "named_modules" else owner)
        if kind in ("children", "named_children"):
            for key, child in module_var._submodules(tx):
                if id(child.value) in seen:
                    continue
                seen.add(id(child.value))
                items.append(_containers.TupleVariable([ConstantVariable(key), child]) if kind == "named_children" else child)
        return SnapshotIterator(items)

    return method


def _walk(root: NNModuleVariable, tx: InstructionTranslator, recurse: bool) -> list[tuple[str, NNModuleVariable]]:
    """(prefix, module) pairs in the order ``nn.Module.named_modules`` gives: depth first, pre-order."""
    found: list[tuple[str, NNModuleVariable]] = []
    seen: set[int] = set()

    def visit(prefix: str, owner: NNModuleVariable) -> None:
        if id(owner.value) in seen:
            return
        seen.add(id(owner.value))
        found.append((prefix, owner))
        if not recurse:
            return
        for key, child in owner._submodules(tx):
            visit(f"{prefix}{key}.", child)

    visit("", root)
    return found


_TABLES = ("_parameters", "_buffers", "_modules")
_MODULE_METHODS = {
    kind: _iter_of(kind)
    for kind in ("parameters", "named_parameters", "buffers", "named_buffers", "children", "named_children",
                 "modules", "named_modules")
}
