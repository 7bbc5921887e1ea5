"""The translator's public entry points: usable without the hook, by loom and by other tools."""

from __future__ import annotations

import builtins
import copy
import dataclasses
import inspect
import itertools
import types
from typing import Any

from bytecode import CellVar, FreeVar

from loom_guards import Item, Local

from . import breaks as _breaks
from . import entry_layouts, side_effects
from . import translator as _translator
from .codegen import OUTPUTS_LOCAL, PARAMETERS_LOCAL, RANDOM_LOCAL, PyCodegen, build_code
from .errors import Location, Reason, Unsupported
from .policy import run_rest_as_is, runs_as_is
from .results import CapturedGraph, GraphBreak, Translation
from .resume import handed_on, in_prologue, is_loop_item, is_resume_code
from .shapes import DynamicSpec, is_symbolic
from .variables import class_lookups as _class_lookups
from .variables import dual_level as _dual_level
from .variables import lazy_modules as _lazy_modules
from .variables import warnings_blocks as _warnings_blocks
from .variables.default_dtype import replay_default_dtype
from .variables.frame_locals import reads_frame_locals
from .variables.passed_on import passed_on_operands
from .variables.resumed_loops import idle_loop_head
from .versions import SUPPORTED, is_supported
from .versions import current as version

CO_OPTIMIZED = 0x01
CO_NEWLOCALS = 0x02
CO_GENERATOR_LIKE = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator

_graph_ids = itertools.count()
#: How many earlier break points are tried when the first one cannot be split.
_MAX_BREAK_RETRIES = 4


def translate(
    code: types.CodeType,
    f_locals: dict[str, Any],
    f_globals: dict[str, Any],
    f_builtins: dict[str, Any] | None = None,
    closure: tuple | None = None,
    *,
    dynamic: DynamicSpec | None = None,
) -> Translation:
    """Translate ``code`` as it would run with arguments ``f_locals``.

    ``dynamic`` says which tensor dimensions and int arguments to treat as symbols (dynamic shapes);
    by default every size is static.

    Returns a :class:`Translation`. When something cannot be modelled, ``translation.code`` is None
    and ``translation.breaks`` holds the structured reason; the frame should then run as it is.
    """
    _check_arguments(code, f_locals, f_globals, f_builtins, closure)
    if f_builtins is None:
        f_builtins = _builtins_of(f_globals)
    refusal = _refusal(code)
    if refusal is not None:
        return Translation(code, refused=refusal)

    dynamic = _loop_items_dynamic(code, DynamicSpec.for_arguments(dynamic, f_locals), f_locals)
    if not is_resume_code(code):  # only a loop's resume functions hand values on
        if dynamic.varying:
            dynamic = dataclasses.replace(dynamic, varying=frozenset())
    elif unread := handed_on(code)[1] - dynamic.varying:
        dynamic = dataclasses.replace(dynamic, varying=dynamic.varying | unread)
    while True:
        try:
            with _class_lookups.translation():  # its class lookups are guarded (variables/class_lookups.py)
                return _translate(code, f_locals, f_globals, f_builtins, closure, dynamic)
        except _ReadPassedOn as read:  # start over with those locals modelled item by item
            dynamic = dataclasses.replace(dynamic, varying=dynamic.varying - read.names)


class _ReadPassedOn(Exception):
    """The trace needed to read locals it held unread (``variables/passed_on.py``): translate again."""

    def __init__(self, names: set[str]) -> None:
        super().__init__(sorted(names))
        self.names = frozenset(names)


def _check_passed_on(tx: Any, spec: DynamicSpec, operands: list[Any] = ()) -> None:
    """Raise :class:`_ReadPassedOn` when the trace read a local it held unread, or when a graph break's
    operands include one (the break may be the translator's, not the program's)."""
    names = (tx.output.passed_on_reads | passed_on_operands(operands)) & spec.varying
    if names:
        raise _ReadPassedOn(names)


def _translate(
    code: types.CodeType,
    f_locals: dict[str, Any],
    f_globals: dict[str, Any],
    f_builtins: dict[str, Any],
    closure: tuple | None,
    dynamic: DynamicSpec,
) -> Translation:
    tx = _translator.RootTranslator(code, dict(f_locals), f_globals, f_builtins, closure, dynamic=dynamic)
    try:
        returned = tx.run()
        return _finish(tx, returned)
    except Unsupported as exc:
        if exc.reason.location is None:
            tx.annotate(exc)  # raised while rebuilding the return value: the return is where it broke
        reason = exc.reason
        point, here = tx.graph_break_point(), tx.break_point()
        advance = _lazy_modules.pending_advance(tx.output)
    finally:
        _dual_level.leave_real_levels(tx.output)  # a trace that stopped inside a dual_level block
        _warnings_blocks.leave_real_blocks(tx.output)  # or a warnings.catch_warnings block
    if dynamic.varying:
        _check_passed_on(tx, dynamic)
    if point is None or reason.frame_as_is or in_prologue(code, point[0]) or reads_frame_locals(code):
        # (a resume function's prologue: an iterator argument looped over itself that moved between calls;
        # a frame calling locals(), which its rewritten frame or a resume function would answer wrongly)
        return Translation(code, breaks=[GraphBreak(reason)])
    if point != here:  # moved to a resumed loop's FOR_ITER: where it was is the fallback
        moved_reason = copy.copy(reason)
        moved_reason.at_loop_head = True
        moved = _translate_with_break(code, f_locals, f_globals, f_builtins, closure, point, moved_reason, dynamic,
                                      advance)
        if moved.code is not None:
            return moved
        point = here
    try:
        return _translate_with_break(code, f_locals, f_globals, f_builtins, closure, point, reason, dynamic, advance,
                                     idle_head=True)
    except _IdleLoopHead as idle:  # a range loop at a symbolic position with no graph work from its item on
        moved_reason = copy.copy(reason)
        moved_reason.at_loop_head = True
        moved = _translate_with_break(code, f_locals, f_globals, f_builtins, closure, idle.point, moved_reason,
                                      dynamic, advance)
        if moved.code is not None:
            return moved
    return _translate_with_break(code, f_locals, f_globals, f_builtins, closure, point, reason, dynamic, advance)


class _IdleLoopHead(Exception):
    """The trace stopped before its break inside a range loop modelled at a symbolic position, with no op
    since the loop took its item (``resumed_loops.idle_loop_head``): break at the loop's ``FOR_ITER``."""

    def __init__(self, point: tuple[int, int]) -> None:
        super().__init__(point)
        self.point = point


def _loop_items_dynamic(code: types.CodeType, spec: DynamicSpec, f_locals: dict[str, Any]) -> DynamicSpec:
    """``spec`` with the int items of loops resumed per pass as symbols: the resume function of a loop
    body is entered once per pass, so its compiled entry must not hold one pass's item as a constant.
    So are the int locals that were symbols where a break called it (``resume.symbolic_locals``)."""
    symbolic = handed_on(code)[0]
    items = frozenset(
        str(source)
        for name, value in f_locals.items() if is_loop_item(name) or name in symbolic
        for source, inner in _int_parts(Local(name), value)
    )
    return dataclasses.replace(spec, ints=spec.ints | items) if items else spec


def _int_parts(source: Any, value: Any) -> list[tuple[Any, int]]:
    """The ints in a loop item: the item itself, or the members of a tuple (``enumerate``, ``zip``)."""
    if type(value) is int:
        return [(source, value)]
    if type(value) is tuple:
        return [part for k, inner in enumerate(value) for part in _int_parts(Item(source, k), inner)]
    return []


def _translate_with_break(
    code: types.CodeType,
    f_locals: dict[str, Any],
    f_globals: dict[str, Any],
    f_builtins: dict[str, Any],
    closure: tuple | None,
    point: tuple[int, int],
    reason: Reason,
    dynamic: DynamicSpec,
    advance: Any = None,
    idle_head: bool = False,
) -> Translation:
    """Translate again, stopping just before ``point``, and break the graph there (``idle_head``: or raise
    :class:`_IdleLoopHead` where ``resumed_loops.idle_loop_head`` finds a better point).

    Translation restarts from the frame's entry (rather than rolling back) so the graph, the side
    effects and the stack are exactly those of the instructions before the break. What the abandoned
    trace did to the program cannot be undone: a lazy module it materialized stays so, and ``advance``
    moves torch's RNG past the values it drew, as the abandoned trace's code would have
    (:func:`.variables.lazy_modules.pending_advance`).
    """
    for _ in range(_MAX_BREAK_RETRIES):
        tx = _translator.RootTranslator(code, dict(f_locals), f_globals, f_builtins, closure, stop_at=point, dynamic=dynamic)
        tx.break_reason = reason  # a generator the break was met in is not made again there (translator)
        _lazy_modules.carry_advance(tx.output, advance)
        try:
            tx.run()
        except _translator.StopBeforeBreak:
            if dynamic.varying:
                _check_passed_on(tx, dynamic, _breaks.operands(tx, tx.current))
            if idle_head and (head := idle_loop_head(tx.stack, tx.output)) is not None and head != point:
                raise _IdleLoopHead(head) from None
            for kind, source, value in reason.guards:
                tx.output.guards.add(kind, source, value)
        except Unsupported as exc:
            return Translation(code, breaks=[GraphBreak(exc.reason)])
        else:
            return Translation(code, breaks=[GraphBreak(reason)])  # the second run did not reach the point
        finally:
            _dual_level.leave_real_levels(tx.output)
            _warnings_blocks.leave_real_blocks(tx.output)
        try:
            broken = _breaks.emit_break(tx, tx.current)
            break
        except Unsupported as exc:
            earlier = getattr(exc, "retry_at", None)
            if earlier is not None and earlier < point:
                # Break where a generator that cannot be rebuilt was made (or where the exception whose
                # traceback is rebuilt was raised). That object is then ordinary Python's, and so is every
                # use of it after: the rest of the function runs as it is (one break, as torch.compile's
                # one, not one per next() or loop pass).
                point = earlier
                if not reason.rest_as_is:
                    reason.rest_as_is = True
                    reason.hint = exc.reason.hint or "the generator and the rest of the function run as ordinary Python"
                continue
            if exc.reason.what != reason.what:  # splitting failed for another reason: say both
                reason.why += f" (and the graph cannot be split there: {exc.reason.what}: {exc.reason.why})"
            return Translation(code, breaks=[GraphBreak(reason)])
    else:
        return Translation(code, breaks=[GraphBreak(reason)])
    if reason.rest_as_is:
        for resume in broken.resume_codes:
            run_rest_as_is(resume)
    prefix, graphs = _graph_call(tx.output, broken.graph_outputs, code.co_cellvars)
    try:
        guards = tx.output.build_guards()
    except Unsupported as exc:  # the graph before the break cannot be compiled exactly: the frame runs as is
        exc.reason.location = exc.reason.location or reason.location
        return Translation(code, breaks=[GraphBreak(exc.reason)])
    return Translation(
        code,
        code=build_code(code, prefix + broken.body, keep_cells=True),
        graphs=graphs,
        resume_functions=broken.resume_codes,
        guards=guards,
        rebuild_guards=_guard_rebuilder(tx.output),
        provenance=tx.output.provenance,
        breaks=[GraphBreak(reason)],
        side_effects=tx.output.side_effects.describe(),
    )


def translate_function(fn: Any, *args: Any, dynamic: DynamicSpec | None = None, **kwargs: Any) -> Translation:
    """Translate Python function ``fn`` as it would run for ``fn(*args, **kwargs)``."""
    if isinstance(fn, types.MethodType):
        args = (fn.__self__, *args)
        fn = fn.__func__
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"translate_function() expects a Python function, got {type(fn).__name__}")
    bound = inspect.signature(fn, follow_wrapped=False).bind(*args, **kwargs)
    bound.apply_defaults()
    f_locals = dict(bound.arguments)
    return translate(fn.__code__, f_locals, fn.__globals__, _builtins_of(fn.__globals__), fn.__closure__,
                     dynamic=dynamic)


def _check_arguments(code: Any, f_locals: Any, f_globals: Any, f_builtins: Any, closure: Any) -> None:
    if not isinstance(code, types.CodeType):
        raise TypeError(f"translate() expects a code object, got {type(code).__name__}")
    if not hasattr(f_locals, "keys") or not hasattr(f_locals, "__getitem__"):
        raise TypeError(f"translate() expects f_locals to be a mapping, got {type(f_locals).__name__}")
    if not isinstance(f_globals, dict):
        raise TypeError(f"translate() expects f_globals to be a dict, got {type(f_globals).__name__}")
    if f_builtins is not None and not isinstance(f_builtins, dict):
        raise TypeError(f"translate() expects f_builtins to be a dict or None, got {type(f_builtins).__name__}")
    if closure is not None and not isinstance(closure, tuple):
        raise TypeError(f"translate() expects closure to be a tuple of cells or None, got {type(closure).__name__}")
    if len(closure or ()) != len(code.co_freevars):
        raise ValueError(
            f"translate(): {code.co_name} has {len(code.co_freevars)} free variables but the closure has "
            f"{len(closure or ())} cells"
        )


def _builtins_of(f_globals: dict[str, Any]) -> dict[str, Any]:
    found = f_globals.get("__builtins__", builtins)
    return found.__dict__ if isinstance(found, types.ModuleType) else found


def _refusal(code: types.CodeType) -> Reason | None:
    where = Location(code.co_filename, code.co_firstlineno, code.co_qualname)
    if not is_supported():
        import sys

        versions = ", ".join(f"{a}.{b}" for a, b in SUPPORTED)
        return Reason("this Python version", f"the translator models CPython {versions} bytecode, not "
                      f"{sys.version_info.major}.{sys.version_info.minor}", location=where)
    if not (code.co_flags & CO_OPTIMIZED and code.co_flags & CO_NEWLOCALS):
        return Reason("a module or class body", "only function frames are translated", location=where)
    if code.co_flags & CO_GENERATOR_LIKE:
        return Reason("a generator or coroutine function", "generator frames run as they are", location=where)
    if runs_as_is(code):
        return Reason("the rest of a function after a construct it runs as it is",
                      "its state is process state the translator cannot follow", location=where)
    if code.co_name in _ATTRIBUTE_HOOKS:
        # The rewritten code rebuilds values by reading and storing attributes of `self`, which
        # would call this very method again (endless recursion). Inlined into a caller it is fine.
        return Reason(f"the code of a {code.co_name} method", "attribute access would re-enter it; it runs as it is",
                      location=where)
    return None


#: Methods Python calls for attribute access on their instances.
_ATTRIBUTE_HOOKS = frozenset({"__getattribute__", "__getattr__", "__setattr__", "__delattr__"})


def _graph_call(output: Any, graph_outputs: list, cellvars: tuple[str, ...] = ()) -> tuple[list, list[CapturedGraph]]:
    """The instructions that call the captured graph (none if it has nothing to do), and the graph."""
    call = PyCodegen()
    if output.random_draws:  # Python's RNG advances as in eager, whether or not a graph runs
        call.call_const(output.random_draws, 0, lambda: None)
        call.emit("STORE_FAST", RANDOM_LOCAL)
    if output.new_parameters:  # made empty here; the graph gives each its data (variables.new_parameters)
        call.call_const(output.new_parameters, 0, lambda: None)
        call.emit("STORE_FAST", PARAMETERS_LOCAL)
    output.drop_idle_grad_switches()
    needs_graph = graph_outputs or output.has_side_effects()
    if not needs_graph:
        return call.instrs, []
    name = new_graph_name()
    graph_module = output.finalize(graph_outputs)
    real = [i.example for i in output.inputs]
    fakes = [entry_layouts.example_at_entry(i.node) for i in output.inputs]
    # A graph over symbolic sizes is handed to backends with its symbolic (fake) inputs, so that
    # they compile for every size rather than for the sizes of this call.
    dynamic = any(_has_symbols(v) for v in fakes)
    graph = CapturedGraph(name, graph_module, fakes if dynamic else real, [i.source for i in output.inputs], real)
    call.cellvars = frozenset(cellvars)
    call.share_sources([i.source for i in output.inputs])
    call.extend(version.load_global_callable(name))
    for graph_input in output.inputs:
        if graph_input.convert is not None:
            call.call_const(graph_input.convert, 1, lambda source=graph_input.source: call.load_source(source))
        else:
            call.load_source(graph_input.source)
    call.call(len(output.inputs))
    call.emit("STORE_FAST", OUTPUTS_LOCAL)
    return call.instrs, [graph]


def _has_symbols(value: Any) -> bool:
    import torch

    if isinstance(value, torch.Tensor):
        return any(is_symbolic(d) for d in value.shape)
    return is_symbolic(value)


def _finish(tx: Any, returned: Any) -> Translation:
    output = tx.output
    body = PyCodegen()
    body.frame_cells = frozenset(id(box) for box in tx.cells.values())
    body.frame_globals = tx.f_globals
    body.cell_names = _own_cells(tx)
    body.made_sources = output.guards.made_sources
    effects = output.side_effects.replayed
    if effects:
        staged = side_effects.stage(effects, body)
        result = body.stash(returned)  # read before the mutations, like everything they store
        side_effects.apply(effects, staged, body)
    if output.grad_enabled != output.initial_grad_enabled:
        # torch.set_grad_enabled(mode) called without `with`: the mode outlives the frame.
        import torch

        body.call_const(torch._C._set_grad_enabled, 1, lambda: body.load_const(output.grad_enabled))
        body.emit("POP_TOP")
    replay_default_dtype(output, body)
    if effects:
        body.emit("LOAD_FAST", result)
    else:
        body.reconstruct(returned)
    _fill_closed_cells(tx, body)
    body.emit("RETURN_VALUE")

    prefix, graphs = _graph_call(output, body.graph_outputs)
    code = build_code(tx.code, prefix + body.instrs, keep_cells=bool(body.closed_cells))
    return Translation(
        tx.code,
        code=code,
        graphs=graphs,
        guards=output.build_guards(),
        rebuild_guards=_guard_rebuilder(output),
        provenance=output.provenance,
        side_effects=output.side_effects.describe(),
    )


def _own_cells(tx: Any) -> dict[int, Any]:
    """The frame's cell variables, for functions made in the trace that leave it closing over them (a hook
    appending to a local list): none when an argument is a cell, since the code loads arguments plainly; and
    its free variables (an enclosing function's cells, a resume function's handed-in ones), which it keeps."""
    code = tx.code
    arguments = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 0x04)
                                 + bool(code.co_flags & 0x08)]
    free = {id(tx.cells[name]): FreeVar(name) for name in code.co_freevars if name in tx.cells}  # (kept as they are)
    if not code.co_cellvars or any(name in arguments for name in code.co_cellvars):
        return free
    return {**free, **{id(tx.cells[name]): CellVar(name) for name in code.co_cellvars if name in tx.cells}}


def _fill_closed_cells(tx: Any, body: PyCodegen) -> None:
    """Store the trace's final contents in each cell a rebuilt function closes over (the rewritten code keeps
    the frame's cells then); a content rebuilt here may close over further cells."""
    filled: set[str] = set()
    while pending := [name for name in body.closed_cells if name not in filled]:
        for name in pending:
            filled.add(name)
            contents = tx.cells[name].contents
            if contents is not None:
                body.reconstruct(contents)
                body.emit("STORE_DEREF", CellVar(name))


def new_graph_name() -> str:
    """A global name for a graph no earlier translation of this process used (rewritten code loads its graph
    by this name from the frame's globals)."""
    return f"__loom_graph_{next(_graph_ids)}"


def _guard_rebuilder(output: Any) -> Any:
    """``output.build_guards`` when the translation has symbolic sizes (see ``Translation.rebuild_guards``)."""
    return output.build_guards if output.shapes.shape_env is not None else None
