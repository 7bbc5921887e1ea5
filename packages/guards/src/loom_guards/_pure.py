"""The pure-Python back end: a plan generated into one straight-line Python function.

One local per source; a prologue unpacks the argument (dict fast path, frame view, fallbacks), then one
line per step inside a single ``try: ... except Exception: return False``. The common kinds get inlined
fast paths; any other kind calls its own ``check``, any other source its own ``read_from`` / ``get``.
"""

from __future__ import annotations

import builtins
import keyword
import types
from collections.abc import Mapping
from typing import Any

import torch

from . import _state
from ._plan import Plan, _Fetch
from .kinds import (
    ConstantMatch,
    DictContains,
    DictKeys,
    GlobalState,
    Identity,
    IsNone,
    Length,
    NoAliasing,
    NotNone,
    Relation,
    SameObject,
    TensorMatch,
    TypeMatch,
    const_eq,
    dict_keys_of,
    float_eq,
)
from .sources import (
    Attr,
    Builtin,
    Closure,
    Const,
    DictAttr,
    FrameContext,
    Global,
    Item,
    Local,
    TensorSize,
    TypeOf,
    _closure_mapping,
    _ModuleMember,
    closure_value,
    get_item,
)

__all__ = ["generate"]


def _make_unpack(plan: Plan):
    g_fb, b_fb, cl_fb = plan.f_globals, plan.f_builtins, plan.closure_map
    need_closure = Closure in plan.roots
    default_builtins = FrameContext({}).builtins

    def unpack(frame: Any) -> tuple:
        if isinstance(frame, dict):
            return frame, g_fb, b_fb if b_fb is not None else default_builtins, cl_fb
        try:
            f_locals = frame.f_locals  # a frame view (tried first: isinstance(x, Mapping) is slow)
        except AttributeError:
            if isinstance(frame, Mapping):
                return frame, g_fb, b_fb if b_fb is not None else default_builtins, cl_fb
            raise TypeError(
                f"a guard needs a frame view (with f_locals) or a mapping of locals, got {type(frame).__name__}"
            ) from None
        g = getattr(frame, "f_globals", None)
        if g is None:
            g = g_fb
        b = getattr(frame, "f_builtins", None)
        if b is None:
            b = b_fb if b_fb is not None else default_builtins
        elif isinstance(b, types.ModuleType):
            b = b.__dict__
        cl = cl_fb
        if need_closure:
            cells = getattr(frame, "closure", None)
            if cells is not None:
                cl = _closure_mapping(cells, getattr(frame, "f_code", None))
        return f_locals, g, b, cl

    return unpack


def _tensor_is_plain(g: TensorMatch) -> bool:
    return g.tensor_type in (torch.Tensor, torch.nn.Parameter)


def _torch_function_quiet(plan: Plan) -> bool:
    """Whether a GlobalState guard checked earlier proves no torch-function handler can run."""
    for g in plan.guards:
        if isinstance(g, GlobalState):
            v = g.values
            return v.get("torch_function") == "enabled" and v.get("torch_function_modes") == 0
    return False


def generate(plan: Plan):
    ns: dict[str, Any] = {
        "_unpack": _make_unpack(plan),
        "_closure_value": closure_value,
        "_ceq": const_eq,
        "_feq": float_eq,
        "_dkeys": dict_keys_of,
        "_dispatch_keys": torch._C._dispatch_keys,
        "FrameContext": FrameContext,
        "_PLAIN": frozenset({dict, list, tuple}),
        "_Mapping": Mapping,
        "_get_item": get_item,
    }
    counter = [0]

    def bind(value: Any, hint: str = "k") -> str:
        counter[0] += 1
        name = f"_{hint}{counter[0]}"
        ns[name] = value
        return name

    body: list[str] = []
    quiet = _torch_function_quiet(plan)

    def fail_if(cond: str) -> None:
        body.append(f"if {cond}: return False")

    def ref_expr(ref: Any) -> str:
        if ref.weak is None:
            return bind(ref.strong, "o")
        return bind(ref.weak, "w") + "()"

    for step in plan.steps:
        if isinstance(step, _Fetch):
            body.append(f"v{step.slot} = {_fetch_expr(step, bind)}")
            continue
        g = step.guard
        vs = [f"v{i}" for i in step.slots]
        v = vs[0] if vs else ""
        if isinstance(g, IsNone):
            fail_if(f"{v} is not None")
        elif isinstance(g, NotNone):
            fail_if(f"{v} is None")
        elif isinstance(g, TypeMatch):
            fail_if(f"type({v}) is not {ref_expr(g._ref)}")
        elif isinstance(g, Identity):
            fail_if(f"{v} is None or {v} is not {ref_expr(g._ref)}")
        elif isinstance(g, ConstantMatch):
            c = g.value
            tp = type(c)
            if tp is bool:
                fail_if(f"{v} is not {c!r}")
            elif tp in (int, str, bytes):
                fail_if(f"type({v}) is not {tp.__name__} or {v} != {c!r}")
            elif tp is float:
                fail_if(f"type({v}) is not float or not _feq({v}, {bind(c)})")
            elif tp is set:  # compared with the order the set had, which its snapshot may not keep
                fail_if(f"not {bind(g.check)}({v})")
            else:
                fail_if(f"not _ceq({v}, {bind(c)})")
        elif isinstance(g, Length):
            fail_if(f"len({v}) != {g.n}")
        elif isinstance(g, DictKeys):
            fail_if(f"not _ceq(_dkeys({v}), {bind(g.keys)})")
        elif isinstance(g, DictContains):
            # kinds.dict_contains.is_mapping, then Python's `in`; an exact dict never reaches isinstance
            key = repr(g.key) if type(g.key) in (int, str) else bind(g.key)
            op = "not in" if g.present else "in"
            fail_if(f"type({v}) is not dict and not isinstance({v}, _Mapping) or {key} {op} {v}")
        elif isinstance(g, TensorMatch):
            if quiet and _tensor_is_plain(g):
                _emit_tensor(g, v, body, bind, ref_expr)
            else:
                fail_if(f"not {bind(g.check, 'chk')}({v})")
        elif isinstance(g, GlobalState):
            _emit_state(g, body, bind)
        elif isinstance(g, NoAliasing):
            ids = ", ".join(f"id({x})" for x in vs)
            fail_if(f"len({{{ids}}}) != {len(vs)}")
        elif isinstance(g, SameObject):
            fail_if(f"{vs[0]} is not {vs[1]}")
        elif isinstance(g, Relation):
            fail_if(f"not {bind(g.evaluate, 'rel')}({', '.join(vs)})")
        else:  # a guard kind this back end does not know: use its own check
            fail_if(f"not {bind(g.check, 'chk')}({', '.join(vs)})")

    lines = [
        "def _loom_guard(frame):",
        "    if type(frame) is dict:",
        "        L = frame",
    ]
    fb = _make_unpack(plan)({})  # the fallbacks a plain mapping gets
    ns["_G_fb"], ns["_B_fb"], ns["_CL_fb"] = fb[1], fb[2], fb[3]
    lines += ["        G = _G_fb", "        B = _B_fb", "        CL = _CL_fb"]
    lines += ["    else:", "        L, G, B, CL = _unpack(frame)", "    try:"]
    lines += [f"        {line}" for line in body] or ["        pass"]
    lines += ["    except Exception:", "        return False", "    return True"]
    source = "\n".join(lines) + "\n"
    exec(builtins.compile(source, "<loom_guards generated check>", "exec"), ns)
    return ns["_loom_guard"], source


def _fetch_expr(step: _Fetch, bind) -> str:
    src = step.source
    base = f"v{step.base_slot}" if step.base_slot is not None else ""
    if isinstance(src, Local):
        return f"L[{src.name!r}]"
    if isinstance(src, Global):
        return f"G[{src.name!r}]"
    if isinstance(src, Builtin):
        return f"B[{src.name!r}]"
    if isinstance(src, Closure):
        return f"_closure_value(CL, {src.name!r})"
    if isinstance(src, Const):
        return bind(src.value, "c")
    if isinstance(src, Attr):
        if src.name.isidentifier() and not keyword.iskeyword(src.name):
            return f"{base}.{src.name}"
        return f"getattr({base}, {src.name!r})"
    if isinstance(src, Item):
        key = src.key
        key_text = repr(key) if type(key) in (int, str) else bind(key)
        # plain containers directly; anything else through get_item (no __missing__ on dicts)
        return f"({base}[{key_text}] if type({base}) in _PLAIN else _get_item({base}, {key_text}))"
    if isinstance(src, TypeOf):
        return f"type({base})"
    if isinstance(src, _ModuleMember):
        if step.from_table:
            return f"{base}[{src.name!r}]"
        return f"{base}.__dict__[{src.table!r}][{src.name!r}]"
    if isinstance(src, DictAttr):
        return f"{base}.__dict__[{src.name!r}]"
    if isinstance(src, TensorSize):
        return f"{bind(src.read_from, 'tsize')}({base})"
    if src.base is None:  # a root kind this back end does not know
        return f"{bind(src.get, 'get')}(FrameContext(L, G, B, CL))"
    return f"{bind(src.read_from, 'read')}({base})"


def _emit_tensor(g: TensorMatch, v: str, body: list[str], bind, ref_expr) -> None:
    def fail_if(cond: str) -> None:
        body.append(f"if {cond}: return False")

    fail_if(f"type({v}) is not {ref_expr(g._type_ref)}")
    fail_if(
        f"{v}.dtype is not {bind(g.dtype, 'dt')} or {v}.requires_grad is not {g.requires_grad} "
        f"or {v}.device != {bind(g.device, 'dev')}"
    )
    sizes = g.sizes
    if all(s is not None for s in sizes):
        fail_if(f"{v}.shape != {bind(torch.Size(sizes), 'shape')}")
    else:
        body.append(f"s = {v}.shape")
        conds = [f"len(s) != {len(sizes)}"] + [f"s[{i}] != {s}" for i, s in enumerate(sizes) if s is not None]
        fail_if(" or ".join(conds))
    if g.strides is not None:
        if all(s is not None for s in g.strides):
            fail_if(f"{v}.stride() != {bind(tuple(g.strides), 'strides')}")
        else:
            body.append(f"s = {v}.stride()")
            conds = [f"s[{i}] != {s}" for i, s in enumerate(g.strides) if s is not None]
            if conds:
                fail_if(" or ".join(conds))
    fail_if(f"_dispatch_keys({v}).raw_repr() != {g.dispatch_keys}")


def _emit_state(g: GlobalState, body: list[str], bind) -> None:
    for name, want in g.values.items():
        reader = _state.FIELDS[name][0]
        if name == "autocast" and not want:
            any_enabled = getattr(torch._C, "_is_any_autocast_enabled", None)
            if any_enabled is not None:
                body.append(f"if {bind(any_enabled, 'st')}(): return False")
                continue
        if type(want) is bool:
            body.append(f"if {bind(reader, 'st')}() is not {want}: return False")
        elif type(want) is int:
            body.append(f"if {bind(reader, 'st')}() != {want}: return False")
        else:
            body.append(f"if {bind(reader, 'st')}() != {bind(want, 'want')}: return False")
