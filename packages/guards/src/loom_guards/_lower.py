"""Lowering a plan to the C++ accelerator's instructions (``loom_guards._accel.GuardProgram``).

An instruction is ``(op, dst, src, obj, obj2, n, weak, ext)``; ``_accel.OPS`` maps op names to numbers.
Guard kinds and sources the accelerator has no instruction for are lowered to calls of their own Python
``check`` / ``read_from`` / ``get``, so a new kind works on both back ends before it gets a fast path.

Guards that read only constants (``Length(Const(d), n)``, ``DictContains(Const(d), k)``,
``DictContains(Attr(Const(cls), "__dict__"), k)``) are fused into one ``C_CONSTS`` instruction, placed
where the first of them was, and the fetches only they used are left out (``_fuse_consts``). The plan is
unchanged, so ``why_failed`` still walks every guard and names the one that failed. Likewise the
``Length(DictAttr(m, name), 0)`` checks of one object (a module's hook dicts, guarded empty) become one
``C_EMPTYATTRS`` instruction that reads its instance dict once (``_fuse_empty_attrs``).
"""

from __future__ import annotations

import builtins
import collections.abc
import enum
import types
from typing import TYPE_CHECKING, Any

import torch

from . import _state
from ._plan import Plan, _Check, _Fetch
from .kinds import (
    ConstantMatch,
    DictContains,
    DictKeys,
    GlobalState,
    IsNone,
    Length,
    NoAliasing,
    NotNone,
    Relation,
    SameObject,
    TensorMatch,
    TypeMatch,
    _Ref,
    dict_keys_of,
    holds_set,
)
from .kinds import Identity as IdentityGuard
from .sources import (
    Attr,
    Builtin,
    Closure,
    Const,
    DictAttr,
    Global,
    Item,
    Local,
    TensorSize,
    TypeOf,
    _ModuleMember,
)

if TYPE_CHECKING:
    from .compiler import GuardFn

_initialised: set[int] = set()


class _PlainClass:
    """An ordinary class: the accelerator learns the generic ``__dict__`` getter from it."""


class _GetattrClass:
    """A class with a ``__getattr__`` (as ``nn.Module`` has): the accelerator learns CPython's hook from it."""

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(name)


def _init(accel: Any) -> None:
    if id(accel) in _initialised:
        return
    accel._init(
        torch.Tensor,
        torch.dtype,
        torch.device,
        enum.Enum,
        # builtin functions too: DictKeys compares them by identity (kinds.constant._BY_IDENTITY)
        (torch.layout, torch.memory_format, types.BuiltinFunctionType),
        collections.abc.Mapping,
        _PlainClass,
        _GetattrClass,
    )
    _initialised.add(id(accel))


def _ref_fields(ref: _Ref) -> tuple[Any, bool]:
    if ref.weak is None:
        return ref.strong, False
    return ref.weak, True


def _state_spec(g: GlobalState) -> tuple:
    v = g.values
    autocast = None
    if "autocast" in v:
        autocast = (tuple(_state.AUTOCAST_DEVICES), tuple(v["autocast"]))
    tf = v.get("torch_function")
    return (
        v.get("grad_mode"),
        v.get("inference_mode"),
        v.get("default_dtype"),
        v.get("deterministic_algorithms"),
        v.get("deterministic_warn_only"),
        autocast,
        v.get("autocast_cache"),
        None if tf is None else ("enabled", "subclasses_disabled", "all_disabled").index(tf),
        v.get("torch_function_modes"),
        v.get("dispatch_modes"),
        v.get("functorch"),
        _code(v.get("float32_matmul_precision"), _state.MATMUL_PRECISIONS),
        _code(v.get("cuda_matmul_allow_tf32"), _TF32),
        _code(v.get("cudnn_allow_tf32"), _TF32),
        _code(v.get("cuda_matmul_fp16_reduction"), _REDUCTIONS),
        _code(v.get("cuda_matmul_bf16_reduction"), _REDUCTIONS),
        v.get("num_threads"),
    )


# The accelerator's codes for these fields (csrc/state.h reads torch's state into the same codes).
_TF32 = (False, True, _state.MIXED)
# torch's CuBLASReductionOption: AllowReducedPrecisionWithSplitK, DisallowReducedPrecisionAllowSplitK,
# DisallowReducedPrecisionDisallowSplitK
_REDUCTIONS = ((True, True), (False, True), (False, False))


def _code(value: Any, codes: tuple) -> int | None:
    if value is None:
        return None
    for i, known in enumerate(codes):
        if type(known) is type(value) and known == value:
            return i
    raise ValueError(f"no accelerator code for global state value {value!r}")


def _const_entry(g: Any) -> tuple | None:
    """The ``C_CONSTS`` entry ``(kind, obj, key, n)`` of a guard that reads only a constant, else None."""
    if isinstance(g, Length) and isinstance(g.source, Const):
        return (0, g.source.value, None, g.n)
    if isinstance(g, DictContains):
        src = g.source
        if isinstance(src, Const):
            return (1, src.value, g.key, int(g.present))
        if isinstance(src, Attr) and src.name == "__dict__" and isinstance(src.base, Const):
            return (2, src.base.value, g.key, int(g.present))
    return None


def _fuse_consts(plan: Plan) -> tuple[list[tuple], set[int]]:
    """The ``C_CONSTS`` entries (in plan order) and the indices of the steps they replace."""
    entries: list[tuple] = []
    fused: set[int] = set()
    for i, step in enumerate(plan.steps):
        if isinstance(step, _Check):
            entry = _const_entry(step.guard)
            if entry is not None:
                entries.append(entry)
                fused.add(i)
    return entries, fused


def _fuse_empty_attrs(plan: Plan) -> tuple[dict[int, tuple[int, tuple[str, ...]]], set[int]]:
    """``Length(DictAttr(base, name), 0)`` checks (a module's hook dicts, guarded empty), fused into one
    ``C_EMPTYATTRS`` per base slot, placed where its first check was: ``{index: (base slot, names)}``
    and the indices of the checks they replace."""
    fetched_from = {step.slot: step for step in plan.steps if isinstance(step, _Fetch)}
    groups: dict[int, tuple[int, list[str]]] = {}
    fused: set[int] = set()
    for i, step in enumerate(plan.steps):
        if not isinstance(step, _Check) or type(step.guard) is not Length or step.guard.n != 0:
            continue
        fetch = fetched_from.get(step.slots[0])
        if fetch is None or type(fetch.source) is not DictAttr or fetch.base_slot is None or fetch.from_table:
            continue
        at = next((j for j, (base, _) in groups.items() if base == fetch.base_slot), i)
        groups.setdefault(at, (fetch.base_slot, []))[1].append(fetch.source.name)
        fused.add(i)
    return {i: (base, tuple(names)) for i, (base, names) in groups.items()}, fused


def _needed_slots(plan: Plan, fused: set[int], extra: set[int]) -> set[int]:
    """The slots the steps left after fusion still read (``extra``: what fused instructions read); a
    fetch of any other slot is left out, as only fused checks used it."""
    needed = set(extra)
    for i in reversed(range(len(plan.steps))):
        step = plan.steps[i]
        if isinstance(step, _Check):
            if i not in fused:
                needed.update(step.slots)
        elif step.slot in needed and step.base_slot is not None:
            needed.add(step.base_slot)
    return needed


class _Program:
    """The instructions being emitted for one plan, and which frame namespaces they read."""

    def __init__(self, ops: Any, plan: Plan) -> None:
        self.ops = ops
        self.plan = plan
        self.instrs: list[tuple] = []
        self.needs_globals = self.needs_builtins = self.needs_closure = False

    def add(self, op: str, dst: int = -1, src: int = -1, obj: Any = None, obj2: Any = None, n: int = 0,
            weak: bool = False, ext: Any = None) -> None:
        self.instrs.append((self.ops[op], dst, src, obj, obj2, n, weak, ext))


# -- fetches: (program, step, source) per source class ---------------------------------------------


def _fetch_local(p: _Program, step: _Fetch, src: Local) -> None:
    p.add("F_LOCAL", step.slot, obj=src.name)


def _fetch_global(p: _Program, step: _Fetch, src: Global) -> None:
    p.needs_globals = True
    p.add("F_GLOBAL", step.slot, obj=src.name)


def _fetch_builtin(p: _Program, step: _Fetch, src: Builtin) -> None:
    p.needs_builtins = True
    p.add("F_BUILTIN", step.slot, obj=src.name)


def _fetch_closure(p: _Program, step: _Fetch, src: Closure) -> None:
    p.needs_closure = True
    p.add("F_CLOSURE", step.slot, obj=src.name, n=-1)


def _fetch_const(p: _Program, step: _Fetch, src: Const) -> None:
    p.add("F_CONST", step.slot, obj=src.value)


def _fetch_attr(p: _Program, step: _Fetch, src: Attr) -> None:
    # n=1: a module's attribute may be read from its dict (the name is no ModuleType attribute);
    # n=2: `__dict__`, the instance dict read directly when getattr would find the generic one
    n = 2 if src.name == "__dict__" else int(not hasattr(types.ModuleType, src.name))
    p.add("F_ATTR", step.slot, step.base_slot, obj=src.name, n=n)


def _fetch_item(p: _Program, step: _Fetch, src: Item) -> None:
    p.add("F_ITEM", step.slot, step.base_slot, obj=src.key)


def _fetch_type(p: _Program, step: _Fetch, src: TypeOf) -> None:
    p.add("F_TYPE", step.slot, step.base_slot)


def _fetch_module_member(p: _Program, step: _Fetch, src: _ModuleMember) -> None:
    if step.from_table:
        p.add("F_ITEM", step.slot, step.base_slot, obj=src.name)
    else:
        p.add("F_MODMEMBER", step.slot, step.base_slot, obj=src.table, obj2=src.name)


def _fetch_dict_attr(p: _Program, step: _Fetch, src: DictAttr) -> None:
    p.add("F_DICTATTR", step.slot, step.base_slot, obj=src.name)


def _fetch_tensor_size(p: _Program, step: _Fetch, src: TensorSize) -> None:
    p.add("F_TSIZE", step.slot, step.base_slot, n=src.dim)


def _fetch_in_python(p: _Program, step: _Fetch, src: Any) -> None:
    """A source the accelerator has no instruction for: its own Python read."""
    if step.base_slot is None:
        root_get, plan = src.get, p.plan

        def read_root(frame: Any, _get=root_get, _plan=plan) -> Any:
            return _get(_plan.context(frame))

        p.add("F_PYROOT", step.slot, obj=read_root)
    else:
        p.add("F_PYREAD", step.slot, step.base_slot, obj=src.read_from)


_FETCHES: dict[type, Any] = {
    Local: _fetch_local,
    Global: _fetch_global,
    Builtin: _fetch_builtin,
    Closure: _fetch_closure,
    Const: _fetch_const,
    Attr: _fetch_attr,
    Item: _fetch_item,
    TypeOf: _fetch_type,
    _ModuleMember: _fetch_module_member,
    DictAttr: _fetch_dict_attr,
    TensorSize: _fetch_tensor_size,
}


# -- checks: (program, guard, first slot, slots) per guard class ----------------------------------


def _check_ref(op: str, ref_of: Any) -> Any:
    def lower(p: _Program, g: Any, s: int, slots: tuple[int, ...]) -> None:
        obj, weak = _ref_fields(ref_of(g))
        p.add(op, src=s, obj=obj, weak=weak)

    return lower


def _check_tensor(p: _Program, g: TensorMatch, s: int, slots: tuple[int, ...]) -> None:
    obj, weak = _ref_fields(g._type_ref)
    spec = (g.dispatch_keys, g.dtype, g.device, g.requires_grad, g.sizes, g.strides)
    p.add("C_TENSOR", src=s, obj=obj, weak=weak, ext=spec)


_CHECKS: dict[type, Any] = {
    IsNone: lambda p, g, s, slots: p.add("C_NONE", src=s),
    NotNone: lambda p, g, s, slots: p.add("C_NOTNONE", src=s),
    TypeMatch: _check_ref("C_TYPE", lambda g: g._ref),
    IdentityGuard: _check_ref("C_ID", lambda g: g._ref),
    ConstantMatch: lambda p, g, s, slots: _check_constant(p, g, s, slots, "C_CONST", g.value),
    Length: lambda p, g, s, slots: p.add("C_LEN", src=s, n=g.n),
    DictKeys: lambda p, g, s, slots: _check_constant(p, g, s, slots, "C_DICTKEYS", g.keys, obj2=dict_keys_of),
    DictContains: lambda p, g, s, slots: p.add("C_DICTCONTAINS", src=s, obj=g.key, n=int(g.present)),
    TensorMatch: _check_tensor,
    GlobalState: lambda p, g, s, slots: p.add("C_STATE", ext=_state_spec(g)),
    NoAliasing: lambda p, g, s, slots: p.add("C_NOALIAS", ext=slots),
    SameObject: lambda p, g, s, slots: p.add("C_SAME", ext=slots),
    Relation: lambda p, g, s, slots: p.add("C_PY", obj=g.evaluate, ext=slots),
}


def _check_in_python(p: _Program, g: Any, s: int, slots: tuple[int, ...]) -> None:
    """A guard kind the accelerator has no instruction for: its own Python check."""
    p.add("C_PY", obj=g.check, ext=slots)


def _check_constant(p: _Program, g: Any, s: int, slots: tuple[int, ...], op: str, value: Any, **fields: Any) -> None:
    """``op`` on a constant, or the guard's Python check where the constant holds a set: the accelerator
    compares sets with ``==`` (``{1} == {True}``), and their type-strict compare lives in ``const_eq``."""
    if holds_set(value):
        _check_in_python(p, g, s, slots)
    else:
        p.add(op, src=s, obj=value, **fields)


def _rule_for(table: dict[type, Any], cls: type, fallback: Any) -> Any:
    """The rule for ``cls``: its own, else its nearest base class's (cached in the table), else ``fallback``."""
    rule = table.get(cls)
    if rule is None:
        rule = next((table[base] for base in cls.__mro__ if base in table), fallback)
        table[cls] = rule
    return rule


def build_program(accel: Any, plan: Plan) -> GuardFn:
    _init(accel)
    program = _Program(accel.OPS, plan)
    consts, const_steps = _fuse_consts(plan)
    # (an accelerator built before C_EMPTYATTRS existed runs the checks one by one)
    empties, empty_steps = _fuse_empty_attrs(plan) if "C_EMPTYATTRS" in accel.OPS else ({}, set())
    needed = _needed_slots(plan, const_steps | empty_steps, {base for base, _ in empties.values()})
    for index, step in enumerate(plan.steps):
        if index in const_steps:
            if consts:  # the first fused check: all of them, once
                program.add("C_CONSTS", ext=tuple(consts))
                consts = []
            continue
        if index in empty_steps:
            if index in empties:
                base, names = empties[index]
                program.add("C_EMPTYATTRS", src=base, obj=names)
            continue
        if type(step) is _Fetch:
            if step.slot in needed:
                src = step.source
                _rule_for(_FETCHES, type(src), _fetch_in_python)(program, step, src)
            continue
        g, slots = step.guard, step.slots
        _rule_for(_CHECKS, type(g), _check_in_python)(program, g, slots[0] if slots else -1, slots)
    b_fb = plan.f_builtins
    if b_fb is None:
        b_fb = builtins.__dict__
    cl_fb = plan.closure_map
    if cl_fb is not None and not isinstance(cl_fb, dict):
        cl_fb = dict(cl_fb)
    return accel.GuardProgram(
        program.instrs,
        len(plan.slots),
        plan,
        plan.f_globals,
        b_fb if isinstance(b_fb, dict) else dict(b_fb),
        cl_fb,
        (program.needs_globals, program.needs_builtins, program.needs_closure),
    )
