"""The rules :func:`.registry.wrap` follows: which variable a real value becomes, and the guards that
reading it implies (its type, its identity, its tensor metadata).

:func:`.registry.wrap` is the single door through which values from the frame (arguments, globals,
attributes, closure cells) enter the trace. This module knows every variable class a value may become,
so it sits above them all; it adds its rules to the registry's tables once, when the catalogue
(:mod:`.catalogue`) imports it, and nothing imports it to wrap a value.
"""

from __future__ import annotations

import collections
import functools
import inspect
import types
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch

from loom_guards import Attr, Const, Item, IteratorState, constant_by_value, insertion_order
from loom_guards.object_state import DICT_ITERATORS, POSITIONED_ITERATORS, RANGE_ITERATORS

from .. import polyfills
from ..errors import Unsupported
from ..policy import allowed_in_graph
from . import autograd_function as _autograd_function
from . import exception_values as _exceptions
from . import func_transforms as _func_transforms
from . import numpy as _numpy
from . import registry
from . import tensor_keyed as _tensor_keyed
from . import weak_keyed as _weak_keyed
from .autocast import CLASSES as AUTOCAST_CLASSES
from .base import Variable
from .builtins import BUILTIN_FUNCTIONS, FOLDED_LIBRARY_FUNCTIONS, HANDLERS, PURE, BuiltinVariable
from .code_matched_functions import wrap_user_function
from .constant import (
    CONSTANT_TYPES,
    ConstantVariable,
    FrozenObjectVariable,
    ObjectConstantVariable,
    is_constant_value,
)
from .container_methods import bound_container_method, unbound_method
from .containers import (
    DictVariable,
    ListVariable,
    NamedTupleVariable,
    SetVariable,
    SizeVariable,
    TupleVariable,
)
from .ctx import GRAD_MODE_CLASSES, GradModeClassVariable
from .device_ctx import CLASSES as DEVICE_CLASSES
from .disable_calls import FUNCTIONS as DISABLE_FUNCTIONS
from .distributed import FUNCTIONS as DISTRIBUTED_FUNCTIONS
from .dual_level import CLASSES as DUAL_LEVEL_CLASSES
from .dual_level import FUNCTIONS as DUAL_LEVEL_FUNCTIONS
from .foreach_groups import FUNCTIONS as FOREACH_GROUP_FUNCTIONS
from .function_modes import FUNCTIONS as MODE_STACK_FUNCTIONS
from .function_modes import ModeStackFunctionVariable
from .globals_dict import GlobalsDictVariable
from .higher_order import HANDLERS as HIGHER_ORDER
from .higher_order import HigherOrderFunctionVariable
from .inference_mode import CLASSES as INFERENCE_MODE_CLASSES
from .item_sources import item_source
from .lazy_dict import LazyDictVariable, MappingProxyVariable, keys_modelled
from .lazy_list import LazyListVariable, wrap_plain_list
from .list_protocol import plain_list_subclass
from .methods import BoundMethodVariable
from .nn_module import NNModuleVariable
from .outside_iterators import PositionedDictIterator, PositionedIterator, PositionedRangeIterator
from .partial import wrap_partial
from .polyfilled import CachedFunctionVariable, PolyfilledVariable, real_deque, wrap_real_deque
from .profiler import CLASSES as PROFILER_CLASSES
from .random_draws import RandomDrawVariable, is_module_draw
from .real_objects import ClassVariable, OpaqueCallableVariable, PythonModuleVariable, UserObjectVariable
from .saved_hooks import FUNCTIONS as SAVED_HOOKS_FUNCTIONS
from .sdpa_kernel import FUNCTIONS as SDPA_FUNCTIONS
from .sequences import plain_structseq
from .sets import identity_members_modelled, wrap_identity_set
from .tensor_subclasses import runs_python_torch_function, wrap_subclass_input
from .torch import (
    TRACE_TIME_CONSTANTS,
    DynamoDisabledFunctionVariable,
    NotInGraphFunctionVariable,
    TorchFunctionVariable,
    TracedDisabledFunctionVariable,
    is_dynamo_disabled,
    is_graph_op,
    not_in_graph_reason,
    traced_original,
    wrap_bound_tensor_method,
)
from .torch_function_state import CLASSES as TORCH_FUNCTION_STATE_CLASSES
from .weakrefs import wrap_weakref

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

wrap = registry.wrap


def _guards(tx: InstructionTranslator | None, source: Any):
    if tx is None or source is None:
        return None
    return tx.output.guards


def _remember(
    tx: InstructionTranslator | None, value: Any, source: Any, make: Callable[[], Variable], *, fixed: bool = False,
    module: bool = False, fill: Callable[[Variable], None] | None = None,
) -> Variable:
    """One variable per mutable object, so aliases stay aliases in the trace (``fixed``: the object
    is guarded by identity; ``module``: an ``nn.Module``, see :class:`..aliasing.AliasTracker`).

    ``fill`` (optional) completes the variable ``make`` built after it is remembered: a container's
    items are wrapped there, so one that holds itself (``L.append(L)``) finds its own variable."""
    if tx is None:
        variable = make()
        if fill is not None:
            fill(variable)
        return variable
    tx.output.note_alias(value, source, fixed=fixed, module=module)
    known = tx.output.known_objects
    entry = known.get(id(value))
    if entry is not None and entry[0] is value:
        return entry[1]
    variable = make()
    known[id(value)] = (value, variable)
    if fill is not None:
        try:
            fill(variable)
        except BaseException:
            del known[id(value)]  # a half-built variable is never found again
            raise
    if isinstance(value, (dict, types.MappingProxyType)):  # maybe an object's __dict__: kept in step with its
        tx.output.side_effects.dicts.made(value, variable)  # attribute stores (object_dicts)
    return variable


# -- rules, tried in order -------------------------------------------------------------------------
def _wrap_tensor(tx, value, source):
    if tx is None or source is None:
        raise Unsupported("a tensor the translator cannot reach from the frame", "it cannot become a graph input")
    if isinstance(value, torch.nn.parameter.UninitializedTensorMixin):  # a lazy module's, before its first call
        raise Unsupported("an uninitialized parameter or buffer", "it has no shape until its lazy module is called")
    if runs_python_torch_function(type(value)):
        return wrap_subclass_input(tx, value, source)
    return tx.output.add_tensor_input(value, source)


def _wrap_size(tx, value, source):
    if (guards := _guards(tx, source)) is not None:
        guards.add("constant", source, value)
    variable = SizeVariable.of(value)
    variable.source = source
    return variable


def _wrap_constant(tx, value, source):
    if type(value) in (int, float) and tx is not None and source is not None \
            and tx.output.shapes.spec.is_dynamic_number(source, value):  # a number that changed between compiles
        return tx.output.add_symint_input(value, source)
    if type(value) is tuple and tx is not None and source is not None and _holds_dynamic_ints(tx, source):
        return _wrap_tuple(tx, value, source)  # a loop item ``(n, v)`` of enumerate or zip: its ints are symbols
    if (guards := _guards(tx, source)) is not None:
        guards.add("constant", source, value)
    return ConstantVariable(value, source)


def _holds_dynamic_ints(tx, source) -> bool:
    """Whether an int inside the tuple reached as ``source`` is to be a symbol (``DynamicSpec.ints``)."""
    ints = tx.output.shapes.spec.ints
    if not ints:  # the usual case: no text of the source is made for every constant tuple wrapped
        return False
    prefix = f"{source}["
    return any(name.startswith(prefix) for name in ints)


_TUPLE_GETTER = type(collections.namedtuple("_Probe", "x").x)


def _field_getters_intact(cls: type, fields: tuple[str, ...]) -> bool:
    """Whether every field of a named tuple class is still read by namedtuple's own slot getter."""
    return all(isinstance(inspect.getattr_static(cls, name, None), _TUPLE_GETTER) for name in fields)


def _wrap_tuple(tx, value, source):
    if (guards := _guards(tx, source)) is not None:
        guards.add("type", source, value)
        guards.add("length", source, value)
    cls = type(value)
    fields = getattr(cls, "_fields", None) if not getattr(value, "__dict__", None) else None  # own attributes: an object
    if fields is not None and cls.__getitem__ is not tuple.__getitem__:
        # A named tuple overriding __getitem__: t[i] is not its item, t.field is (namedtuple's field
        # getters read the tuple's slots), so the items are reached by field name.
        if not _field_getters_intact(cls, fields) or len(fields) != tuple.__len__(value):
            return _wrap_object(tx, value, source)
        # its slots, not what a Python __iter__ of the class gives
        items = [wrap(tx, item, Attr(source, name) if source is not None else None)
                 for name, item in zip(fields, tuple.__iter__(value))]
        return NamedTupleVariable(items, cls, source)
    if fields is None and type(value) is not tuple and not plain_structseq(value):
        return _wrap_object(tx, value, source)  # before its items: its own __iter__ need not give them (t[i] does)
    items = [wrap(tx, item, Item(source, i) if source is not None else None) for i, item in enumerate(tuple.__iter__(value))]
    if fields is not None or plain_structseq(value):
        return NamedTupleVariable(items, cls, source, real=value if fields is None else None)
    return TupleVariable(items, source)


def _wrap_list(tx, value, source):
    def items() -> list[Variable]:
        return [wrap(tx, item, Item(source, i) if source is not None else None) for i, item in enumerate(value)]

    def make() -> Variable:
        guards = _guards(tx, source)
        if type(value) is list:  # from a source: its length guarded and its items wrapped when first read
            return ListVariable([], source) if guards is None else wrap_plain_list(tx, value, source, items)
        if guards is not None:
            guards.add("type", source, value)
            guards.add("length", source, value)
        # A subclass: its Python methods are inlined with the list as ``self``, its attributes read
        # from the real object, its items as a list's.
        return ListVariable([], source, cls=type(value), real=value)

    def fill(variable: Variable) -> None:  # after remembering: an item that is the list finds it
        if not isinstance(variable, LazyListVariable):
            variable.items = items()

    return _remember(tx, value, source, make, fill=fill)


def _wrap_dict(tx, value, source):
    if tx is None and source is None and not keys_modelled(value):
        return ObjectConstantVariable(value)
    if source is not None and tx is not None and value is tx.f_globals:
        # the running code's globals (``g = globals()`` held across a break): loom adds its own names to that
        # dict, so its keys are not guarded; reads by name are guarded as global reads are
        tx.output.guards.add("identity", source, value)
        return GlobalsDictVariable(tx)

    def make() -> Variable:
        # Checked once per dict, not on every read (a config's __dict__ is read dozens of times).
        if source is not None and _tensor_keyed.is_tensor_keyed(value, source):  # optimizer.state
            if (guards := _guards(tx, source)) is not None:
                guards.add("type", source, value)
            return _tensor_keyed.TensorKeyedDictVariable(value, source)
        if source is not None and _weak_keyed.is_weak_keyed(value):  # a WeakKeyDictionary's data
            if (guards := _guards(tx, source)) is not None:
                guards.add("type", source, value)
            return _weak_keyed.WeakKeyedDictVariable(value, source)
        if not keys_modelled(value):
            return _object_variable(tx, value, source)
        if (guards := _guards(tx, source)) is not None:
            guards.add("type", source, value)
            guards.add("dict_keys", source, value)
            return LazyDictVariable(tx, value, source, lambda tx, v, k: wrap(tx, v, item_source(source, value, k)))
        items = {k: wrap(tx, v, item_source(source, value, k)) for k, v in value.items()}
        real = value if type(value) is not dict else None
        return DictVariable(items, source, cls=type(value), real=real)

    return _remember(tx, value, source, make)


def _wrap_mappingproxy(tx, value, source):
    """A ``mappingproxy`` read from the frame: its keys guarded through it, values read when used."""
    if source is None or tx is None or not keys_modelled(value):
        return _wrap_object(tx, value, source)

    def make() -> Variable:
        guards = tx.output.guards
        guards.add("type", source, value)
        guards.add("dict_keys", source, value)
        return MappingProxyVariable(tx, value, source, lambda tx, v, k: wrap(tx, v, item_source(source, value, k)))

    return _remember(tx, value, source, make)


def _wrap_positioned_iterator(tx, value, source):
    """A list or tuple iterator from the frame: the sequence it walks and its position, each guarded
    through its ``__reduce__``, as an iterator the trace advances (and the rewritten code moves)."""
    def make() -> Variable:
        tx.output.guards.add("type", source, value)
        reduced = value.__reduce__()
        index = reduced[2] if len(reduced) > 2 else 0
        tx.output.guards.add("constant", IteratorState(source, "index"), index)
        sequence = wrap(tx, reduced[1][0], IteratorState(source, "sequence"))
        if isinstance(sequence, ConstantVariable):  # a tuple of constants, guarded as one value
            sequence = TupleVariable([ConstantVariable(v) for v in reduced[1][0]], sequence.source)
        if not isinstance(sequence, (ListVariable, TupleVariable)):  # a list subclass overriding its protocol
            raise Unsupported(f"an iterator over a {type(reduced[1][0]).__name__} from the frame",
                              "the sequence overrides list's special methods, so its items are not modelled")
        return PositionedIterator(sequence, index, type(value), source)

    return _iterator_from_frame(tx, value, source, make)


def _wrap_range_iterator(tx, value, source):
    """A range iterator from the frame (``iter(range(10))`` passed in): the range it has left, guarded through
    its ``__reduce__``, as an iterator the trace advances (and the rewritten code steps)."""
    def make() -> Variable:
        tx.output.guards.add("type", source, value)
        left = IteratorState(source, "range").read_from(value)
        tx.output.guards.add("constant", IteratorState(source, "range"), left)
        return PositionedRangeIterator(left, type(value), source)

    return _iterator_from_frame(tx, value, source, make)


def _iterator_from_frame(tx, value, source, make):
    """An iterator from the frame as ``make()`` models it, once per source; one a loop's resume function
    moves between calls is a moving iterator instead, and one with no source an opaque object."""
    if source is None or tx is None:
        return _wrap_object(tx, value, source)
    if tx.output.shapes.spec.is_moving_iterator(source):
        return _moving_iterator(tx, value, source)
    return _remember(tx, value, source, make)


def _wrap_dict_iterator(tx, value, source):
    """A dict's keys or items iterator from the frame: the dict it walks and the keys it will yield,
    each guarded through the iterator, as an iterator the trace advances over the dict from there."""
    if source is None or tx is None:
        return _wrap_object(tx, value, source)
    if tx.output.shapes.spec.is_moving_iterator(source):
        return _moving_iterator(tx, value, source)
    keys = IteratorState(source, "keys").read_from(value)
    walked = IteratorState(source, "dict").read_from(value)
    start = len(walked) - len(keys)
    if not all(is_constant_value(k) for k in keys) or list(walked)[start:] != list(keys):
        return _wrap_object(tx, value, source)  # changed while it was walked: CPython's answer depends on memory

    def make() -> Variable:
        tx.output.guards.add("type", source, value)
        tx.output.guards.add("constant", IteratorState(source, "keys"), keys)
        target = wrap(tx, walked, IteratorState(source, "dict"))
        if not isinstance(target, DictVariable):
            return _object_variable(tx, value, source)
        kind = "keys" if type(value) is DICT_ITERATORS[0] else "items"
        return PositionedDictIterator(target, kind, start, type(value), source)

    return _remember(tx, value, source, make)


class MovingIteratorVariable(UserObjectVariable):
    """An iterator argument that stood at another position on an earlier call of the frame: modelling
    it would guard its position, one compile per position, so ``next()`` on it breaks the graph once."""

    def unmodelled_reason(self) -> str:
        return (f"this {type(self.value).__name__} argument stands at another position on each call "
                "(a graph per position would never end)")


def _moving_iterator(tx, value, source):
    def make() -> Variable:
        tx.output.guards.add("type", source, value)
        return MovingIteratorVariable(value, source)

    return _remember(tx, value, source, make)


def _wrap_set(tx, value, source):
    # every member compared by value (not a frozenset holding a function: an identity guard on the set,
    # ConstantMatch's fallback, would miss the caller changing it), else sets.wrap_identity_set or an object
    if isinstance(value, frozenset) and all(is_constant_value(k) and constant_by_value(k) for k in value):
        return _wrap_constant(tx, value, source)
    order = None if isinstance(value, frozenset) else insertion_order(list(value))
    if order is None:  # (a set whose iteration order the model cannot give again is an object too)
        return _wrap_object(tx, value, source)
    if not all(is_constant_value(k) and constant_by_value(k) for k in value):
        if type(value) is set and identity_members_modelled(value):
            return _remember(tx, value, source, lambda: wrap_identity_set(tx, value, source, order))
        return _wrap_object(tx, value, source)

    def make() -> Variable:
        if (guards := _guards(tx, source)) is not None:
            guards.add("constant", source, value)
        return SetVariable([ConstantVariable(v) for v in order], source)

    return _remember(tx, value, source, make)


def _identity(cls: type[Variable]) -> Callable[..., Variable]:
    def build(tx, value, source):
        if (guards := _guards(tx, source)) is not None:
            guards.add("identity", source, value)
        return cls(value, source)

    return build


def _wrap_module(tx, value, source):
    """A module is guarded by its type, not its identity: every instance of a class with the structure
    the trace read shares one compiled entry (see :mod:`.nn_module`)."""
    def make() -> Variable:
        guards = _guards(tx, source)
        if guards is not None:
            guards.add("type", source, value)
        return NNModuleVariable(value, source, guards)

    return _remember(tx, value, source, make, module=True)


def _wrap_function(tx, value, source):
    if value.__module__ and value.__module__.startswith("numpy") and _numpy.is_numpy_object(value):
        return _numpy.wrap(tx, value, source)
    if value in SDPA_FUNCTIONS:  # sdpa_kernel(backends): a region of the graph
        return _identity(SDPA_FUNCTIONS[value])(tx, value, source)
    if value in SAVED_HOOKS_FUNCTIONS:  # disable_saved_tensors_hooks(message): likewise
        return _identity(SAVED_HOOKS_FUNCTIONS[value])(tx, value, source)
    if value in DISABLE_FUNCTIONS:  # torch._dynamo.disable(fn) in the frame: a wrapper whose calls break
        return _identity(DISABLE_FUNCTIONS[value])(tx, value, source)
    if value in DISTRIBUTED_FUNCTIONS:  # dist.all_reduce & co: functional collectives in the graph
        return _identity(DISTRIBUTED_FUNCTIONS[value])(tx, value, source)
    if value in DUAL_LEVEL_FUNCTIONS:  # forward_ad.make_dual / unpack_dual: graph nodes in a dual_level block
        return _identity(DUAL_LEVEL_FUNCTIONS[value])(tx, value, source)
    if polyfills.replacement_for(value) is not None:  # a Python function of the standard library (copy.deepcopy, heapq.nlargest)
        return _identity(PolyfilledVariable)(tx, value, source)
    if value in FOLDED_LIBRARY_FUNCTIONS:
        return _identity(BuiltinVariable)(tx, value, source)
    if value in HIGHER_ORDER:  # checkpoint, cond...: the function traced into a sub-graph
        return _identity(HigherOrderFunctionVariable)(tx, value, source)
    if _func_transforms.is_transformed_function(value):  # torch.func.grad(f) made before the call
        if (guards := _guards(tx, source)) is not None:
            guards.add("identity", source, value)
        return _func_transforms.wrap_transformed_function(tx, value, source)
    if not_in_graph_reason(value) is not None:
        return _identity(NotInGraphFunctionVariable)(tx, value, source)
    if is_dynamo_disabled(value):
        traced = traced_original(value) is not None
        return _identity(TracedDisabledFunctionVariable if traced else DynamoDisabledFunctionVariable)(tx, value, source)
    if allowed_in_graph(value) or is_graph_op(value) or value in TRACE_TIME_CONSTANTS:
        return _identity(TorchFunctionVariable)(tx, value, source)
    return wrap_user_function(tx, value, source)  # guarded by identity, or by code where it is a nested def


def _wrap_method(tx, value, source):
    if is_module_draw(value):  # random.randint: drawn before the graph
        return _identity(RandomDrawVariable)(tx, value, source)
    if _autograd_function.is_bound_apply(value):
        cls_source = Attr(source, "__self__") if source is not None else None
        wrap(tx, value.__self__, cls_source)  # guards the class
        return _autograd_function.AutogradFunctionApplyVariable(value.__self__, source, cls_source)
    receiver = wrap(tx, value.__self__, Attr(source, "__self__") if source is not None else None)
    function = wrap(tx, value.__func__, Attr(source, "__func__") if source is not None else None)
    return BoundMethodVariable(function, receiver, source)


def _wrap_builtin(tx, value, source):
    if is_module_draw(value):  # random.random: drawn before the graph
        return _identity(RandomDrawVariable)(tx, value, source)
    if polyfills.replacement_for(value) is not None:
        return _identity(PolyfilledVariable)(tx, value, source)
    if value in SAVED_HOOKS_FUNCTIONS:  # the disabled-hooks message: answered from the trace's regions
        return _identity(SAVED_HOOKS_FUNCTIONS[value])(tx, value, source)
    if value in MODE_STACK_FUNCTIONS:  # torch._C._push_on_torch_function_stack & co: the trace's own stack
        return _identity(ModeStackFunctionVariable)(tx, value, source)
    if value in FOREACH_GROUP_FUNCTIONS:  # torch._C._group_tensors_by_device_and_dtype: answered while tracing
        return _identity(FOREACH_GROUP_FUNCTIONS[value])(tx, value, source)
    if not_in_graph_reason(value) is not None:
        return _identity(NotInGraphFunctionVariable)(tx, value, source)
    if is_graph_op(value):
        return _identity(TorchFunctionVariable)(tx, value, source)
    owner = getattr(value, "__objclass__", None)  # dict.get read elsewhere: a class's `__getattr__ = dict.get`
    if owner is not None and (unbound := unbound_method(owner, value.__name__)) is not None:
        if (guards := _guards(tx, source)) is not None:
            guards.add("identity", source, value)
        return unbound
    if value in HANDLERS:  # modelled although it is a method of a C object (tuple.__new__)
        return _identity(BuiltinVariable)(tx, value, source)
    if (method := wrap_bound_tensor_method(tx, value, source)) is not None:  # y.add handed in
        return method
    if (method := bound_container_method(tx, value, source, wrap)) is not None:  # log.append kept in a closure
        return method
    if isinstance(value, types.BuiltinMethodType) and not isinstance(getattr(value, "__self__", None), (types.ModuleType, type(None))):
        return OpaqueCallableVariable(value, source)  # a method of a C object: calling it breaks the graph
    return _identity(BuiltinVariable)(tx, value, source)


def _wrap_class(tx, value, source):
    if polyfills.replacement_for(value) is not None:
        return _identity(PolyfilledVariable)(tx, value, source)
    if value in GRAD_MODE_CLASSES:
        return _identity(GradModeClassVariable)(tx, value, source)
    if value in AUTOCAST_CLASSES:  # torch.autocast: enter and exit recorded in the graph
        return _identity(AUTOCAST_CLASSES[value])(tx, value, source)
    if value in INFERENCE_MODE_CLASSES:  # torch.inference_mode: likewise
        return _identity(INFERENCE_MODE_CLASSES[value])(tx, value, source)
    if value in DEVICE_CLASSES:  # torch.device(...): a constant, entered as a region by `with`
        return _identity(DEVICE_CLASSES[value])(tx, value, source)
    if value in TORCH_FUNCTION_STATE_CLASSES:  # DisableTorchFunctionSubclass: likewise
        return _identity(TORCH_FUNCTION_STATE_CLASSES[value])(tx, value, source)
    if value in PROFILER_CLASSES:  # record_function: a region that never breaks the graph
        return _identity(PROFILER_CLASSES[value])(tx, value, source)
    if value in DUAL_LEVEL_CLASSES:  # forward_ad.dual_level: a level entered and left in the graph
        return _identity(DUAL_LEVEL_CLASSES[value])(tx, value, source)
    return _identity(ClassVariable)(tx, value, source)


def _wrap_exception(tx, value, source):
    """An exception object from the frame (a resume function's handler receives one): its type is
    known (and guarded), its message is read at run time."""
    def make() -> Variable:
        if (guards := _guards(tx, source)) is not None:
            guards.add("type", source, value)
        special = _exceptions.kind_of(type(value))
        variable = (special[0] if special is not None else _exceptions.ExceptionVariable)(type(value), None)
        variable.source = source
        variable.real = value
        return variable

    return _remember(tx, value, source, make)  # one variable per exception: aliases stay aliases


#: Immutable library objects: made while tracing (inside a folded ``inspect.signature``'s result, a
#: ``parameters.items()`` pair), their attributes and pure methods are folded on the real object.
FROZEN_LIBRARY_TYPES = (inspect.Signature, inspect.Parameter)


def _wrap_object(tx, value, source):
    if source is None and tx is None:
        return FrozenObjectVariable(value) if isinstance(value, FROZEN_LIBRARY_TYPES) else ObjectConstantVariable(value)
    return _remember(tx, value, source, lambda: _object_variable(tx, value, source))


def _object_variable(tx, value, source):
    """A Python object modelled attribute by attribute (its type guarded); one reached without a source (a
    library's ``PRINT_OPTS``) gets a ``Const`` source, so what the trace reads of it is guarded."""
    if (guards := _guards(tx, source)) is not None:
        guards.add("type", source, value)
    return UserObjectVariable(value, Const(value) if source is None else source)


def _is_builtin_callable(value: Any) -> bool:
    if isinstance(value, (types.BuiltinFunctionType, types.MethodDescriptorType, types.WrapperDescriptorType)):
        return True
    if isinstance(type(value).__hash__, types.FunctionType):
        return False  # no builtin hashes in Python, and the user's __hash__ must not run while tracing
    try:
        return value in HANDLERS or value in PURE or value in BUILTIN_FUNCTIONS
    except TypeError:
        return False


_RULES: list[tuple[Callable[[Any], bool], Callable[..., Variable]]] = [
    (lambda v: isinstance(v, torch.Tensor), _wrap_tensor),
    (lambda v: isinstance(v, torch.Size), _wrap_size),
    (is_constant_value, _wrap_constant),
    (lambda v: isinstance(v, tuple), _wrap_tuple),
    (lambda v: type(v) is list or plain_list_subclass(v), _wrap_list),
    (lambda v: isinstance(v, dict) and type(v).__getitem__ is dict.__getitem__, _wrap_dict),
    (lambda v: type(v) in (set, frozenset), _wrap_set),
    (lambda v: type(v) is types.MappingProxyType, _wrap_mappingproxy),
    (lambda v: type(v) in POSITIONED_ITERATORS, _wrap_positioned_iterator),
    (lambda v: type(v) in DICT_ITERATORS, _wrap_dict_iterator),
    (lambda v: type(v) in RANGE_ITERATORS, _wrap_range_iterator),
    (lambda v: type(v) is weakref.ref, lambda tx, v, s: _remember(tx, v, s, lambda: wrap_weakref(tx, v, s))),
    (real_deque, lambda tx, v, s: _remember(tx, v, s, lambda: wrap_real_deque(tx, v, s))),
    (lambda v: isinstance(v, torch.nn.Module), _wrap_module),
    (lambda v: isinstance(v, BaseException), _wrap_exception),
    (lambda v: isinstance(v, types.FunctionType), _wrap_function),
    (lambda v: isinstance(v, types.MethodType), _wrap_method),
    (lambda v: type(v) is functools.partial, wrap_partial),
    (lambda v: type(v) is functools._lru_cache_wrapper, _identity(CachedFunctionVariable)),
    (lambda v: isinstance(v, (torch._ops.OpOverloadPacket, torch._ops.OpOverload)), _identity(TorchFunctionVariable)),
    # wrap & co: higher-order operator objects whose calls are traced into sub-graphs
    (lambda v: isinstance(v, torch._ops.HigherOrderOperator) and v in HIGHER_ORDER, _identity(HigherOrderFunctionVariable)),
    (lambda v: _numpy.is_numpy_object(v), lambda tx, v, s: _numpy.wrap(tx, v, s)),  # arrays, ufuncs, dtypes
    (_is_builtin_callable, _wrap_builtin),
    (lambda v: isinstance(v, types.ModuleType), _identity(PythonModuleVariable)),
    (lambda v: isinstance(v, type), _wrap_class),
    (lambda v: isinstance(v, types.CodeType), lambda tx, v, s: ObjectConstantVariable(v, s)),
]

#: The rule ``_RULES`` picks for values of exactly these types (their first matching predicate looks
#: at the type alone), found in one dict lookup: most values wrapped are functions, methods, numbers,
#: strings, tensors and parameters.
_RULE_FOR_EXACT_TYPE: dict[type, Callable[..., Variable]] = {
    **{t: _wrap_constant for t in CONSTANT_TYPES if t is not tuple},
    torch.Tensor: _wrap_tensor,
    torch.nn.Parameter: _wrap_tensor,
    list: _wrap_list,
    dict: _wrap_dict,
    set: _wrap_set,
    types.FunctionType: _wrap_function,
    types.MethodType: _wrap_method,
}


# In today's order (a value may match several predicates: the first one decides), ten apart so that a
# rule added later can go between two.
for _priority, (_predicate, _build) in enumerate(_RULES, start=1):
    registry.add_rule(10 * _priority, _predicate, _build)
for _cls, _build in _RULE_FOR_EXACT_TYPE.items():
    registry.add_exact_type(_cls, _build)
registry.set_fallback(_wrap_object)
