"""Lowering a plan to the C++ accelerator's instructions (``loom_guards._accel.GuardProgram``).

An instruction is ``(op, dst, src, obj, obj2, n, weak, ext)``; ``_accel.OPS`` maps op names to numbers.
Guard kinds and sources the accelerator has no instruction for are lowered to calls of their own Python
``check`` / ``read_from`` / ``get``, so a new kind works on both back ends before it gets a fast path.

Guards that read only constants (``Length(Const(d), n)``, ``DictContains(Const(d), k)``,
``DictContains(Attr(Const(cls), "__dict__"), k)``) are fused into one ``C_CONSTS`` instruction, placed
where the first of them was, and the fetches only they used are left out (``_fuse_consts``). The plan is
unchanged, so ``why_failed`` still walks every guard and names the one that failed.
"""

from __future__ import annotations

import builtins
import collections.abc
import enum
import types
from typing import Any

import torch

from . import _state
from ._plan import Plan, _Check, _Fetch
from .compiler import GuardFn
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
        (torch.layout, torch.memory_format),
        collections.abc.Mapping,
        _PlainClass,
        _GetattrClass,
    )
    GuardFn.register(accel.GuardProgram)
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


def _fuse_consts(plan: Plan) -> tuple[list[tuple], set[int], set[int]]:
    """The ``C_CONSTS`` entries (in plan order), the indices of the steps they replace, and the slots the
    remaining steps still read (a fetch of any other slot is left out: only fused checks used it)."""
    entries: list[tuple] = []
    fused: set[int] = set()
    for i, step in enumerate(plan.steps):
        if isinstance(step, _Check):
            entry = _const_entry(step.guard)
            if entry is not None:
                entries.append(entry)
                fused.add(i)
    needed: set[int] = set()
    for i in reversed(range(len(plan.steps))):
        step = plan.steps[i]
        if isinstance(step, _Check):
            if i not in fused:
                needed.update(step.slots)
        elif step.slot in needed and step.base_slot is not None:
            needed.add(step.base_slot)
    return entries, fused, needed


def build_program(accel: Any, plan: Plan) -> GuardFn:
    _init(accel)
    ops = accel.OPS
    instrs: list[tuple] = []

    def add(op: str, dst: int = -1, src: int = -1, obj: Any = None, obj2: Any = None, n: int = 0,
            weak: bool = False, ext: Any = None) -> None:
        instrs.append((ops[op], dst, src, obj, obj2, n, weak, ext))

    needs_globals = needs_builtins = needs_closure = False
    consts, fused, needed = _fuse_consts(plan)
    for index, step in enumerate(plan.steps):
        if index in fused:
            if consts:  # the first fused check: all of them, once
                add("C_CONSTS", ext=tuple(consts))
                consts = []
            continue
        if isinstance(step, _Fetch):
            src, dst, base = step.source, step.slot, step.base_slot
            if dst not in needed:
                continue
            if isinstance(src, Local):
                add("F_LOCAL", dst, obj=src.name)
            elif isinstance(src, Global):
                needs_globals = True
                add("F_GLOBAL", dst, obj=src.name)
            elif isinstance(src, Builtin):
                needs_builtins = True
                add("F_BUILTIN", dst, obj=src.name)
            elif isinstance(src, Closure):
                needs_closure = True
                add("F_CLOSURE", dst, obj=src.name, n=-1)
            elif isinstance(src, Const):
                add("F_CONST", dst, obj=src.value)
            elif isinstance(src, Attr):
                # n=1: a module's attribute may be read from its dict (the name is no ModuleType attribute);
                # n=2: `__dict__`, the instance dict read directly when getattr would find the generic one
                n = 2 if src.name == "__dict__" else int(not hasattr(types.ModuleType, src.name))
                add("F_ATTR", dst, base, obj=src.name, n=n)
            elif isinstance(src, Item):
                add("F_ITEM", dst, base, obj=src.key)
            elif isinstance(src, TypeOf):
                add("F_TYPE", dst, base)
            elif isinstance(src, _ModuleMember):
                if step.from_table:
                    add("F_ITEM", dst, base, obj=src.name)
                else:
                    add("F_MODMEMBER", dst, base, obj=src.table, obj2=src.name)
            elif isinstance(src, DictAttr):
                add("F_DICTATTR", dst, base, obj=src.name)
            elif isinstance(src, TensorSize):
                add("F_TSIZE", dst, base, n=src.dim)
            elif base is None:
                root_get = src.get

                def read_root(frame: Any, _get=root_get, _plan=plan) -> Any:
                    return _get(_plan.context(frame))

                add("F_PYROOT", dst, obj=read_root)
            else:
                add("F_PYREAD", dst, base, obj=src.read_from)
            continue
        assert isinstance(step, _Check)
        g, slots = step.guard, step.slots
        s = slots[0] if slots else -1
        if isinstance(g, IsNone):
            add("C_NONE", src=s)
        elif isinstance(g, NotNone):
            add("C_NOTNONE", src=s)
        elif isinstance(g, TypeMatch):
            obj, weak = _ref_fields(g._ref)
            add("C_TYPE", src=s, obj=obj, weak=weak)
        elif isinstance(g, IdentityGuard):
            obj, weak = _ref_fields(g._ref)
            add("C_ID", src=s, obj=obj, weak=weak)
        elif isinstance(g, ConstantMatch):
            add("C_CONST", src=s, obj=g.value)
        elif isinstance(g, Length):
            add("C_LEN", src=s, n=g.n)
        elif isinstance(g, DictKeys):
            add("C_DICTKEYS", src=s, obj=g.keys, obj2=dict_keys_of)
        elif isinstance(g, DictContains):
            add("C_DICTCONTAINS", src=s, obj=g.key, n=int(g.present))
        elif isinstance(g, TensorMatch):
            obj, weak = _ref_fields(g._type_ref)
            spec = (g.dispatch_keys, g.dtype, g.device, g.requires_grad, g.sizes, g.strides)
            add("C_TENSOR", src=s, obj=obj, weak=weak, ext=spec)
        elif isinstance(g, GlobalState):
            add("C_STATE", ext=_state_spec(g))
        elif isinstance(g, NoAliasing):
            add("C_NOALIAS", ext=slots)
        elif isinstance(g, SameObject):
            add("C_SAME", ext=slots)
        elif isinstance(g, Relation):
            add("C_PY", obj=g.evaluate, ext=slots)
        else:
            add("C_PY", obj=g.check, ext=slots)
    b_fb = plan.f_builtins
    if b_fb is None:
        b_fb = builtins.__dict__
    cl_fb = plan.closure_map
    if cl_fb is not None and not isinstance(cl_fb, dict):
        cl_fb = dict(cl_fb)
    return accel.GuardProgram(
        instrs,
        len(plan.slots),
        plan,
        plan.f_globals,
        b_fb if isinstance(b_fb, dict) else dict(b_fb),
        cl_fb,
        (needs_globals, needs_builtins, needs_closure),
    )

