"""``compile(guards) -> GuardFn``: simplify a guard list, order it, and build one fast check.

Two interchangeable back ends build the check from the same plan:

* the C++ accelerator (``loom_guards._accel``), which reads sources with the CPython C API and tensor
  metadata and torch's thread-local state straight from torch's C++ objects;
* a pure-Python fallback: generated straight-line Python, one local variable per source.

``compile(..., accelerate=False)`` or the environment variable ``LOOM_GUARDS_PURE=1`` selects the
fallback; ``accelerate=None`` (the default) uses the accelerator when it is available.
"""

from __future__ import annotations

import abc
import builtins
import keyword
import os
import types
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import torch

from . import _state
from .kinds import (
    ConstantMatch,
    DictKeys,
    GlobalState,
    Guard,
    GuardFailure,
    Identity,
    IsNone,
    Length,
    NoAliasing,
    NotNone,
    Relation,
    TensorMatch,
    TypeMatch,
    const_eq,
    dict_keys_of,
    float_eq,
    short_repr,
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
    Source,
    TensorSize,
    TypeOf,
    _closure_mapping,
    _ModuleMember,
    closure_value,
    get_item,
)

__all__ = ["GuardFn", "accelerator_available", "accelerator_error", "compile", "simplify"]


# -- the accelerator ----------------------------------------------------------------------------------

_accel: Any = None
_accel_error: str | None = None


def _load_accel() -> None:
    global _accel, _accel_error
    try:
        from . import _accel as module  # type: ignore[attr-defined]
    except ImportError as exc:
        _accel_error = f"the C++ accelerator is not built or failed to load: {exc}"
        return
    built_for = getattr(module, "TORCH_VERSION", None)
    if built_for != torch.__version__:
        # Built against another torch: its view of torch's C++ objects would be wrong. Never use it.
        _accel_error = f"the C++ accelerator was built for torch {built_for}, this is torch {torch.__version__}"
        warnings.warn(
            f"loom_guards: {_accel_error}; using the slower pure-Python guards. Rebuild loom-guards "
            "against this torch (pip install --no-build-isolation loom-guards, or tools/dev.py build).",
            RuntimeWarning,
            stacklevel=2,
        )
        return
    _accel = module


_load_accel()


def accelerator_available() -> bool:
    """Whether the C++ accelerator is built and matches the running torch."""
    return _accel is not None


def accelerator_error() -> str | None:
    """Why the accelerator is not available (None when it is)."""
    return _accel_error


def _want_accel(accelerate: bool | None) -> bool:
    if accelerate is None:
        if os.environ.get("LOOM_GUARDS_PURE", "") not in ("", "0"):
            return False
        return _accel is not None
    if accelerate and _accel is None:
        raise RuntimeError(f"accelerate=True but {_accel_error}")
    return bool(accelerate)


# -- simplification -----------------------------------------------------------------------------------


def _implied_closure(g: Guard) -> set[Guard]:
    out: set[Guard] = set()
    todo = list(g.implies())
    while todo:
        h = todo.pop()
        if h in out:
            continue
        out.add(h)
        todo.extend(h.implies())
    return out


def simplify(guards: Iterable[Guard]) -> list[Guard]:
    """Merge duplicates, drop guards implied by others, and reject contradictions (``ValueError``).

    Keeps the first-seen order of what remains.
    """
    if isinstance(guards, Guard):
        raise TypeError("compile() takes an iterable of guards, not a single guard")
    unique: dict[Guard, None] = {}
    for g in guards:
        if not isinstance(g, Guard):
            raise TypeError(f"not a loom_guards Guard: {type(g).__name__} {g!r}")
        unique[g] = None
    out: list[Guard] = []
    tensors: dict[Source, int] = {}
    state_at: int | None = None
    for g in unique:
        if isinstance(g, TensorMatch):
            at = tensors.get(g.source)
            if at is not None:
                merged = out[at].merged_with(g)
                if merged is None:
                    raise ValueError(f"contradictory guards: {out[at].describe()} / {g.describe()}")
                out[at] = merged
                continue
            tensors[g.source] = len(out)
        elif isinstance(g, GlobalState):
            if state_at is not None:
                merged = out[state_at].merged_with(g)
                if merged is None:
                    raise ValueError(f"contradictory guards: {out[state_at].describe()} / {g.describe()}")
                out[state_at] = merged
                continue
            state_at = len(out)
        out.append(g)
    implied: set[Guard] = set()
    for g in out:
        implied |= _implied_closure(g)
    kept = [g for g in out if g not in implied]
    _check_contradictions(kept, implied)
    return kept


def _check_contradictions(kept: list[Guard], implied: set[Guard]) -> None:
    by_source: dict[Source, dict[str, Guard]] = {}
    for g in [*kept, *implied]:
        src = g.source
        if src is None or isinstance(g, (NoAliasing, Relation)):
            continue
        seen = by_source.setdefault(src, {})
        if isinstance(g, TypeMatch):
            slot = "type"
        elif isinstance(g, (IsNone, NotNone)):
            slot = "none"
        elif isinstance(g, (ConstantMatch, Identity)):
            slot = "value"
        elif isinstance(g, Length):
            slot = "len"
        elif isinstance(g, DictKeys):
            slot = "keys"
        else:
            continue
        other = seen.get(slot)
        if other is not None and other != g:
            raise ValueError(f"contradictory guards: {other.describe()} / {g.describe()}")
        seen[slot] = g
    for seen in by_source.values():
        t, n = seen.get("type"), seen.get("none")
        if isinstance(n, IsNone) and t is not None and t.expected_type is not type(None):
            raise ValueError(f"contradictory guards: {n.describe()} / {t.describe()}")


# -- ordering and the plan ----------------------------------------------------------------------------

_CHEAP = 2  # guards this cheap on a source run before anything is read through it


def _chain_cost(src: Source) -> int:
    return sum(s.fetch_cost for s in src.chain())


def _order_key(item: tuple[int, Guard]) -> tuple:
    index, g = item
    srcs = g.sources
    depth = max((s.depth for s in srcs), default=0)
    fetch = sum(_chain_cost(s) for s in srcs)
    return (g.cost, depth, fetch, index)


class _Fetch:
    """Read ``source`` into ``slot`` from ``base_slot`` (None for a root).

    ``from_table``: a module member read as ``table[name]`` from its (shared) table slot.
    """

    __slots__ = ("base_slot", "for_guard", "from_table", "slot", "source")

    def __init__(
        self, slot: int, source: Source, base_slot: int | None, for_guard: Guard, from_table: bool = False
    ) -> None:
        self.slot, self.source, self.base_slot, self.for_guard = slot, source, base_slot, for_guard
        self.from_table = from_table

    def read(self, base_value: Any) -> Any:
        if self.from_table:
            return base_value[self.source.name]
        return self.source.read_from(base_value)


class _Check:
    __slots__ = ("guard", "slots")

    def __init__(self, guard: Guard, slots: tuple[int, ...]) -> None:
        self.guard, self.slots = guard, slots


class Plan:
    """The ordered steps of a guard check: each source read once, right before its first use."""

    def __init__(
        self,
        guards: list[Guard],
        f_globals: Mapping[str, Any] | None,
        f_builtins: Any,
        closure: Any,
    ) -> None:
        self.f_globals = f_globals
        if isinstance(f_builtins, types.ModuleType):
            f_builtins = f_builtins.__dict__
        self.f_builtins = f_builtins
        self.closure = closure
        self.closure_map = _closure_mapping(closure, None) if closure is not None else None
        ordered = [g for _, g in sorted(enumerate(guards), key=_order_key)]
        cheap: dict[Source, list[Guard]] = {}
        for g in ordered:
            if g.cost <= _CHEAP and g.source is not None:
                cheap.setdefault(g.source, []).append(g)
        self.steps: list[_Fetch | _Check] = []
        self.slots: dict[Source, int] = {}
        done: set[int] = set()

        def need(src: Source, for_guard: Guard) -> int:
            slot = self.slots.get(src)
            if slot is not None:
                return slot
            base_slot = None
            from_table = False
            if src.base is not None:
                base_slot = need(src.base, for_guard)
                for g in cheap.get(src.base, ()):
                    emit(g)
                if isinstance(src, _ModuleMember):
                    # members of one module share the read of its table
                    base_slot = need(src.table_source(), for_guard)
                    from_table = True
            slot = len(self.slots)
            self.slots[src] = slot
            self.steps.append(_Fetch(slot, src, base_slot, for_guard, from_table))
            return slot

        def emit(g: Guard) -> None:
            if id(g) in done:
                return
            done.add(id(g))
            slots = tuple(need(s, g) for s in g.sources)
            self.steps.append(_Check(g, slots))

        for g in ordered:
            emit(g)
        self.guards: tuple[Guard, ...] = tuple(s.guard for s in self.steps if isinstance(s, _Check))
        self.roots = {type(s) for s in self.slots if s.base is None}

    # -- slow paths shared by both back ends ------------------------------------------------------
    def context(self, frame: Any) -> FrameContext:
        if not hasattr(frame, "f_locals") and not isinstance(frame, Mapping):
            raise TypeError(
                f"a guard needs a frame view (with f_locals) or a mapping of locals, got {type(frame).__name__}"
            )
        return FrameContext(frame, self.f_globals, self.f_builtins, self.closure)

    def why_failed(self, frame: Any) -> GuardFailure | None:
        ctx = self.context(frame)
        values: list[Any] = [None] * len(self.slots)
        for step in self.steps:
            if isinstance(step, _Fetch):
                src = step.source
                try:
                    if step.base_slot is None:
                        values[step.slot] = src.get(ctx)
                    else:
                        values[step.slot] = step.read(values[step.base_slot])
                except Exception as exc:
                    return GuardFailure(
                        step.for_guard,
                        step.for_guard.describe(),
                        f"nothing: {src} raised {type(exc).__name__}: {_exc_text(exc)}",
                    )
                continue
            g = step.guard
            args = [values[i] for i in step.slots]
            try:
                res = g.explain(*args)
            except Exception as exc:
                what = ", ".join(short_repr(a) for a in args) or "the check"
                return GuardFailure(g, g.describe(), f"{what} (checking raised {type(exc).__name__}: {_exc_text(exc)})")
            if res is not None:
                return GuardFailure(g, res[0], res[1])
        return None

    @property
    def alive(self) -> bool:
        return _alive(self.guards)

    def describe(self, header: str) -> str:
        lines = [header]
        lines += [f"  {i}. {g.describe()}" for i, g in enumerate(self.guards, 1)]
        return "\n".join(lines)


def _exc_text(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:
        text = "?"
    return text if len(text) <= 120 else text[:117] + "..."


# -- the public callable ------------------------------------------------------------------------------


class GuardFn(abc.ABC):
    """A compiled guard check: ``fn(frame_view_or_locals) -> bool``.

    ``guards`` holds the (simplified) guards in check order; ``describe()`` lists them;
    ``why_failed(frame)`` names the first failing one with the value seen, or returns None.
    Both back ends (accelerated and pure Python) are GuardFns.
    """

    __slots__ = ()

    @abc.abstractmethod
    def __call__(self, frame: Any) -> bool: ...

    @property
    @abc.abstractmethod
    def guards(self) -> tuple[Guard, ...]: ...

    @property
    @abc.abstractmethod
    def accelerated(self) -> bool: ...

    @abc.abstractmethod
    def describe(self) -> str: ...

    @abc.abstractmethod
    def why_failed(self, frame: Any) -> GuardFailure | None: ...

    @abc.abstractmethod
    def explain(self, frame: Any) -> GuardFailure | None:
        """Same as ``why_failed``."""


def _alive(guards: tuple[Guard, ...]) -> bool:
    return all(g.alive for g in guards)


class PyGuardFn(GuardFn):
    """The pure-Python back end: a generated function over the plan."""

    __slots__ = ("_check", "_plan", "source_code")

    def __init__(self, plan: Plan) -> None:
        self._plan = plan
        self._check, self.source_code = _generate(plan)

    def __call__(self, frame: Any) -> bool:
        return self._check(frame)

    @property
    def guards(self) -> tuple[Guard, ...]:
        return self._plan.guards

    @property
    def accelerated(self) -> bool:
        return False

    @property
    def alive(self) -> bool:
        """False once a guard compares against an object that died: it can never pass again."""
        return _alive(self._plan.guards)

    def describe(self) -> str:
        return self._plan.describe(f"GuardFn (pure Python, {len(self._plan.guards)} guards):")

    def why_failed(self, frame: Any) -> GuardFailure | None:
        return self._plan.why_failed(frame)

    explain = why_failed

    def __repr__(self) -> str:
        return f"<GuardFn pure Python, {len(self._plan.guards)} guards>"


def compile(
    guards: Iterable[Guard],
    *,
    f_globals: Mapping[str, Any] | None = None,
    f_builtins: Any = None,
    closure: Any = None,
    accelerate: bool | None = None,
) -> GuardFn:
    """Build one fast check from ``guards``.

    The returned :class:`GuardFn` takes the frame view ``loom_framehook`` passes (``f_locals``,
    ``f_globals``, ``f_builtins``, ``closure``, ``f_code``) or any mapping of locals. ``f_globals``,
    ``f_builtins`` (a dict or a module) and ``closure`` (a function, or a mapping of free-variable names
    to cells or values) are used when the argument does not carry them. Builtins default to the
    ``builtins`` module.

    Duplicates are merged, implied guards dropped and contradictions rejected (``ValueError``); checks
    run cheapest and most selective first, each source read once. ``accelerate``: ``None`` uses the C++
    accelerator when available (and ``LOOM_GUARDS_PURE`` is unset), ``True`` requires it, ``False`` uses
    the pure-Python back end.
    """
    if f_globals is not None and not isinstance(f_globals, Mapping):
        raise TypeError(f"f_globals must be a mapping, got {type(f_globals).__name__}")
    if f_builtins is not None and not isinstance(f_builtins, (Mapping, types.ModuleType)):
        raise TypeError(f"f_builtins must be a mapping or a module, got {type(f_builtins).__name__}")
    if closure is not None and not isinstance(closure, (Mapping, types.FunctionType)):
        raise TypeError(f"closure must be a function or a mapping of names, got {type(closure).__name__}")
    plan = Plan(simplify(guards), f_globals, f_builtins, closure)
    if _want_accel(accelerate):
        from ._lower import build_program

        return build_program(_accel, plan)
    return PyGuardFn(plan)


# -- the pure-Python back end -------------------------------------------------------------------------


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


def _generate(plan: Plan):
    ns: dict[str, Any] = {
        "_unpack": _make_unpack(plan),
        "_closure_value": closure_value,
        "_ceq": const_eq,
        "_feq": float_eq,
        "_dkeys": dict_keys_of,
        "_dispatch_keys": torch._C._dispatch_keys,
        "FrameContext": FrameContext,
        "_PLAIN": frozenset({dict, list, tuple}),
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
            else:
                fail_if(f"not _ceq({v}, {bind(c)})")
        elif isinstance(g, Length):
            fail_if(f"len({v}) != {g.n}")
        elif isinstance(g, DictKeys):
            fail_if(f"not _ceq(_dkeys({v}), {bind(g.keys)})")
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

