"""Emitting the rewritten bytecode: call the compiled graph, replay side effects, rebuild the result.

:class:`PyCodegen` collects ``bytecode.Instr`` objects. Variables rebuild themselves through
:meth:`PyCodegen.reconstruct`; tensors come from the graph's output tuple, which grows as the
reconstruction asks for them, so the graph returns exactly the tensors the Python side needs.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bytecode import Bytecode, CellVar, FreeVar, Instr

from .bytecode_helpers import made_function
from .errors import Unsupported
from .made_once import watch as watch_made
from .per_call_loads import load_made_per_call
from .variables import containers as _containers
from .variables.cells import CellBox
from .variables.container_tables import IdentityKey
from .variables.cycle_shells import shell_for
from .variables.lazy_list import LazyListVariable
from .variables.overriding_containers import refill_through_base
from .variables.tensor_keyed import load_item_of_key
from .versions import current as version

if TYPE_CHECKING:
    from torch import fx

    from .variables.base import Variable
    from .variables.nested_functions import NestedFunctionVariable
    from .variables.tensor import TensorVariable


_NO_ARG = object()
#: opname → the instructions this CPython writes for it instead (3.12: LOAD_METHOD is LOAD_ATTR's
#: method form); empty where the code generator's own forms are the interpreter's.
_REWRITES = version.EMIT_REWRITES
#: The local the rewritten code keeps the graph's output tuple in.
OUTPUTS_LOCAL = "___loom_graph_out"
#: The local the rewritten code keeps the values it drew from Python's RNG in (``random.random()``).
RANDOM_LOCAL = "___loom_random"
#: The local the rewritten code keeps the parameters the program creates in (``nn.Parameter(t)``).
PARAMETERS_LOCAL = "___loom_parameters"


def _load_local(cg: PyCodegen, source: Any) -> None:
    if source.name in cg.cellvars:
        cg.emit("LOAD_DEREF", CellVar(source.name))  # an argument the rewritten code keeps in a cell
    else:
        cg.emit("LOAD_FAST", source.name)


def _load_global(cg: PyCodegen, source: Any) -> None:
    cg.emit("LOAD_GLOBAL", (False, source.name))


def _load_closure(cg: PyCodegen, source: Any) -> None:
    cg.emit("LOAD_DEREF", FreeVar(source.name))


def _load_attr(cg: PyCodegen, source: Any) -> None:
    cg.load_source(source.base)
    cg.emit("LOAD_ATTR", source.name)


def _load_item(cg: PyCodegen, source: Any) -> None:
    cg.load_source(source.base)
    cg.load_const(source.key)
    cg.emit("BINARY_SUBSCR")


def _load_type_of(cg: PyCodegen, source: Any) -> None:
    cg.load_callable(type)
    cg.load_source(source.base)
    cg.call(1)


def _load_module_member(cg: PyCodegen, source: Any) -> None:
    cg.load_source(source.base)
    cg.emit("LOAD_ATTR", source.table)  # an instance attribute: found without nn.Module.__getattr__
    cg.load_const(source.name)
    cg.emit("BINARY_SUBSCR")


def _load_tensor_size(cg: PyCodegen, source: Any) -> None:
    cg.load_source(source.base)
    cg.emit("LOAD_METHOD", "size")
    cg.load_const(source.dim)
    cg.call(1)


def _load_const(cg: PyCodegen, source: Any) -> None:
    cg.load_const(source.value)


def _load_read_from(cg: PyCodegen, source: Any) -> None:
    """A source whose read is a call of its own (a weak reference's referent): ``read_from(base)``."""
    cg.load_callable(source.read_from)
    cg.load_source(source.base)
    cg.call(1)


def _load_random_value(cg: PyCodegen, source: Any) -> None:
    cg.emit("LOAD_FAST", RANDOM_LOCAL)
    cg.load_const(source.index)
    cg.emit("BINARY_SUBSCR")


def _load_new_parameter(cg: PyCodegen, source: Any) -> None:
    cg.emit("LOAD_FAST", PARAMETERS_LOCAL)
    cg.load_const(source.index)
    cg.emit("BINARY_SUBSCR")


#: Source class name → how to push the value it reaches. One entry per loom_guards source kind.
SOURCE_LOADERS: dict[str, Callable[[PyCodegen, Any], None]] = {
    "Local": _load_local,
    "Global": _load_global,
    "Builtin": _load_global,
    "Closure": _load_closure,
    "Attr": _load_attr,
    "Item": _load_item,
    "TypeOf": _load_type_of,
    "Submodule": _load_module_member,
    "ModuleParam": _load_module_member,
    "ModuleBuffer": _load_module_member,
    "TensorSize": _load_tensor_size,
    "Const": _load_const,
    "ItemOfKey": load_item_of_key,
    "KeyOf": _load_read_from,
    "WeakReferent": _load_read_from,
    "IteratorState": _load_read_from,
    "ValuesIteratorState": _load_read_from,  # a dict values iterator's dict (variables.outside_values_iterators)
    "BuiltinContents": _load_read_from,
    "DictValueAt": _load_read_from,  # a dict's value by position (a class or function key)
    "TensorMeta": _load_read_from,
    "Called": _load_read_from,
    "DictAttr": _load_read_from,
    "GeneratorFunction": _load_read_from,
    "RandomValue": _load_random_value,  # drawn before the graph call (loom_symbolic.variables.random_draws)
    "NewParameterValue": _load_new_parameter,  # made before the graph call (loom_symbolic.variables.new_parameters)
}


class _OutputNode:
    """A graph node the Python side reads (no source: it is never an input handed back)."""

    source = None

    def __init__(self, node: fx.Node) -> None:
        self.node = node


class _SelfReference(Unsupported):
    """A value met again while its own rebuild is in progress (a cycle); caught by that rebuild."""

    def __init__(self, key: int, value: Variable) -> None:
        super().__init__(f"rebuilding {value.describe()} that refers to itself after a graph break",
                         "a self-referencing object made in the trace that cannot be created empty first")
        self.key = key


class PyCodegen:
    """Builds instruction lists for the rewritten code."""

    def __init__(self) -> None:
        self.instrs: list[Instr] = []
        #: Graph nodes the Python side needs, in output order.
        self.graph_outputs: list[fx.Node] = []
        self._output_index: dict[fx.Node, int] = {}
        self._temps: dict[int, str] = {}
        self._rebuilding: set[int] = set()  # ids of values whose rebuild is in progress (cycles)
        self._temp_count = 0
        #: id(cell box) → the real frame's CellVar/FreeVar holding it (set for graph breaks).
        self.cell_names: dict[int, Any] = {}
        #: Cell variables the rewritten code keeps (graph breaks): arguments among them are cells.
        self.cellvars: frozenset[str] = frozenset()
        #: id()s of the traced frame's own cell boxes: never made afresh (see :meth:`load_cell`).
        self.frame_cells: frozenset[int] = frozenset()
        #: The globals the rewritten code runs with (its frame's), where known: a function made by an
        #: inlined function of another module gets that module's globals, not these.
        self.frame_globals: dict[str, Any] | None = None
        #: The frame's own cells (CellVar) that functions rebuilt so far close over.
        self.closed_cells: dict[str, int] = {}
        #: Sources loaded more than once: source → (temporary, already stored).
        self._source_temps: dict[Any, tuple[str, bool]] = {}
        #: For a graph break's code: objects the trace made once for its compiled entry (``SideEffects.made_once``),
        #: which loading refuses (see :meth:`load_const`).
        self.made_once: dict[int, tuple[Any, Any]] = {}
        #: The guards those objects are watched by (the trace's).
        self.made_guards: Any = None
        #: id(class the compiled code made on a call) → (it, the source the trace matched it through), from the
        #: trace's guards (``per_call_classes``): that call's class is loaded from there, not as a constant
        self.made_sources: dict[int, tuple[type, Any]] = {}
        #: For a graph break's code: what is rebuilt is handed on to the rest of the same function (not returned)
        self.hands_on = False

    # -- primitives --------------------------------------------------------------------------------
    def emit(self, opname: str, arg: Any = _NO_ARG) -> None:
        """Append one instruction (``arg`` omitted for argument-less opcodes).

        The code generator writes 3.11's forms (``LOAD_ATTR name``, ``LOAD_METHOD name``); the version
        module rewrites those another CPython spells differently."""
        rewrite = _REWRITES.get(opname)
        if rewrite is not None:
            self.instrs.extend(rewrite(arg))
            return
        self.instrs.append(Instr(opname) if arg is _NO_ARG else Instr(opname, arg))

    def extend(self, instrs: list[Instr]) -> None:
        self.instrs.extend(instrs)

    def load_const(self, value: Any) -> None:
        """Push ``value``: any object can be a constant of a code object built at run time. A class the trace
        made once (and the functions it closes over), handed to the code after a graph break, which could change
        it, is watched by guards (:mod:`.made_once`); one that cannot be is refused: the break goes to where it
        was made instead, and the rest of the function runs as it is (``retry_at``)."""
        if load_made_per_call(self, value):  # a class made on each call, or a function of one
            return
        made = self.made_once.get(id(value)) if self.made_once else None
        if made is not None and made[0] is value and not watch_made(self.made_guards, value):
            error = Unsupported(f"{value.__qualname__}, made while tracing, handed on at a graph break",
                                "the code after the break could change it, and the compiled code keeps one")
            error.retry_at = made[1]
            raise error
        self.emit("LOAD_CONST", value)

    def load_key(self, key: Any) -> None:
        """Push a dict or set key: a constant, or the value an :class:`IdentityKey` stands for."""
        if isinstance(key, IdentityKey):
            self.reconstruct(key.variable)
        else:
            self.load_const(key)

    def call(self, argc: int) -> None:
        """Call the callable below ``argc`` arguments (NULL or self below it, as pushed before)."""
        self.extend(version.call(argc))

    def call_kw(self, argc: int, names: tuple[str, ...]) -> None:
        """:meth:`call` with the last ``len(names)`` arguments passed by keyword."""
        self.extend(version.call_kw(argc, names))

    def load_callable(self, fn: Any) -> None:
        """Push ``fn`` as a constant, ready for :meth:`call` (with the NULL the call protocol wants)."""
        start = len(self.instrs)
        if load_made_per_call(self, fn):  # made on each call (see load_const): the NULL goes with it
            loaded = self.instrs[start:]
            del self.instrs[start:]
            self.extend(version.push_null_then(loaded))
            return
        self.extend(version.push_null_then([Instr("LOAD_CONST", fn)]))

    def call_const(self, fn: Any, argc: int, load_args: Callable[[], None]) -> None:
        """Push ``fn(*args)`` where ``load_args`` pushes ``argc`` arguments."""
        self.load_callable(fn)
        load_args()
        self.call(argc)

    def load_source(self, source: Any) -> None:
        """Push the value ``source`` reaches from the frame (from a temporary if it was shared)."""
        cached = self._source_temps.get(source)
        if cached is not None:
            if cached[1]:
                self.emit("LOAD_FAST", cached[0])
                return
            loader = SOURCE_LOADERS.get(type(source).__name__)
            loader(self, source)
            self.emit("COPY", 1)
            self.emit("STORE_FAST", cached[0])
            self._source_temps[source] = (cached[0], True)
            return
        loader = SOURCE_LOADERS.get(type(source).__name__)
        if loader is None:
            raise Unsupported(f"rebuilding a value reached as {source}", f"no loader for {type(source).__name__} sources")
        loader(self, source)

    def share_sources(self, sources: list[Any]) -> None:
        """Load each prefix that several of ``sources`` go through only once (kept in a temporary):
        ``self._modules['blocks']`` is read once for all the parameters below it."""
        counts: dict[Any, int] = {}
        for source in sources:
            base = getattr(source, "base", None)
            while base is not None:
                counts[base] = counts.get(base, 0) + 1
                base = getattr(base, "base", None)
        for prefix, uses in counts.items():
            if uses > 1 and type(prefix).__name__ not in ("Local", "Global", "Closure", "Const"):
                self._source_temps[prefix] = (self.new_temp(), False)

    def new_temp(self) -> str:
        self._temp_count += 1
        return f"___loom_tmp_{self._temp_count}"

    # -- values ------------------------------------------------------------------------------------
    def reconstruct(self, value: Variable) -> None:
        """Push ``value``; a mutable value or a tuple made in the trace is built once and reused, so
        names that held one object still do (``t is u``)."""
        key = id(value)
        if key in self._temps:
            self.emit("LOAD_FAST", self._temps[key])
            return
        if key in self._rebuilding:
            # Only reached while ``value`` is still being built: a container or object that holds
            # itself (``d['self'] = d``). The rebuild of ``value`` further out starts again in two steps.
            raise _SelfReference(key, value)
        mark = (len(self.instrs), dict(self._temps), dict(self._source_temps))
        self._rebuilding.add(key)
        try:
            value.reconstruct(self)
        except _SelfReference as ref:
            steps = shell_for(value) if ref.key == key else None
            if steps is None:
                raise
            self._rebuild_in_two_steps(value, mark, *steps)
            return
        finally:
            self._rebuilding.discard(key)
        if (value.mutable or isinstance(value, _containers.TupleVariable)) and value.source is None:
            name = self.new_temp()
            self.emit("COPY", 1)
            self.emit("STORE_FAST", name)
            self._temps[key] = name

    def built(self, value: Variable) -> bool:
        """Whether ``value`` was rebuilt already and is kept for reuse (see :meth:`reconstruct`)."""
        return id(value) in self._temps

    def _rebuild_in_two_steps(self, value: Variable, mark: tuple, shell: Callable, fill: Callable) -> None:
        """Drop what the first try emitted, then create ``value`` empty (``shell``), keep it in a temporary
        every reference to it loads, and ``fill`` it: how a cycle is rebuilt (variables/cycle_shells.py)."""
        length, temps, source_temps = mark
        del self.instrs[length:]
        self._temps, self._source_temps = temps, source_temps
        shell(value, self)
        name = self.new_temp()
        self.emit("COPY", 1)
        self.emit("STORE_FAST", name)
        self._temps[id(value)] = name
        fill(value, self)

    def load_graph_output(self, tensor: TensorVariable) -> None:
        """Push a tensor the graph computed (it becomes one of the graph's outputs)."""
        node = tensor.node
        if tensor.source is not None and (node.op == "placeholder" or tensor.frozen_from is not None):
            self.load_source(tensor.source)  # an input handed back unchanged: read it again
            return
        index = self._output_index.get(node)
        if index is None:
            index = len(self.graph_outputs)
            self.graph_outputs.append(node)
            self._output_index[node] = index
        self.emit("LOAD_FAST", OUTPUTS_LOCAL)
        self.load_const(index)
        self.emit("BINARY_SUBSCR")

    def load_graph_output_item(self, node: fx.Node) -> None:
        """Push ``node``'s value, a 0-d tensor the graph returns, as a Python number (``.item()``)."""
        self.load_graph_output(_OutputNode(node))
        self.emit("LOAD_METHOD", "item")
        self.call(0)

    def store_free_var(self, name: str) -> None:
        self.emit("STORE_DEREF", FreeVar(name))

    def stash(self, value: Variable) -> str:
        """Rebuild ``value`` now and keep it in a new temporary (see ``side_effects.stage``)."""
        self.reconstruct(value)
        name = self.new_temp()
        self.emit("STORE_FAST", name)
        return name

    def load_temps(self, names: tuple[str, ...]) -> None:
        for name in names:
            self.emit("LOAD_FAST", name)

    def stage_contents(self, container: Variable) -> tuple[str, str]:
        """Stash a list, dict or set from outside the frame and the contents the trace ended with:
        a list of its items (a map for a dict), rebuilt before any mutation is replayed."""
        if isinstance(container, _containers.SetVariable) and not container.frozen:
            items = container.members()  # the real set orders them itself
        elif isinstance(container, _containers.ListVariable):
            tail = container.unread_tail() if isinstance(container, LazyListVariable) else None
            if tail is not None:  # never read: the real list is extended by what was appended
                return (*self._stage_items(container, tail), "extend")
            items = container.items
        elif isinstance(container, _containers.DictVariable):
            target = self.stash(container)
            for key, item in container.items.items():
                self.load_key(key)
                self.reconstruct(item)
            self.emit("BUILD_MAP", len(container.items))
            contents = self.new_temp()
            self.emit("STORE_FAST", contents)
            return target, contents
        else:
            raise Unsupported(f"replaying a mutation of {container.describe()}", "not modelled")
        return self._stage_items(container, items)

    def _stage_items(self, container: Variable, items: list[Variable]) -> tuple[str, str]:
        target = self.stash(container)
        for item in items:
            self.reconstruct(item)
        self.emit("BUILD_LIST", len(items))
        contents = self.new_temp()
        self.emit("STORE_FAST", contents)
        return target, contents

    def replace_contents(self, container: Variable, staged: tuple[str, ...]) -> None:
        """Give the real container the contents :meth:`stage_contents` rebuilt (a list never read: the
        items appended to it, by ``extend``)."""
        target, contents, *extend = staged
        if extend:
            self.emit("LOAD_FAST", target)
            self.emit("LOAD_METHOD", "extend")
            self.load_temps((contents,))
            self.call(1)
            self.emit("POP_TOP")
            return
        if isinstance(container, _containers.ListVariable):
            if getattr(container, "overrides_protocol", False):  # list's own slice assignment, no override
                self.call_const(list.__setitem__, 3, lambda: (self.load_temps((target,)),
                                                             self.load_const(slice(None, None)),
                                                             self.load_temps((contents,))))
                self.emit("POP_TOP")
                return
            self.load_temps((contents, target))
            self.load_const(slice(None, None))
            self.emit("STORE_SUBSCR")
            return
        if isinstance(container, _containers.DictVariable) and container.python_type() is not dict:
            # a subclass: its builtin base's own clear and __setitem__ (an override of update, clear or
            # __setitem__ already ran in the trace; the replay must not run it again)
            self.call_const(refill_through_base, 2, lambda: self.load_temps((target, contents)))
            self.emit("POP_TOP")
            return
        for method, args in (("clear", ()), ("update", (contents,))):  # a dict or a set
            self.emit("LOAD_FAST", target)
            self.emit("LOAD_METHOD", method)
            self.load_temps(args)
            self.call(len(args))
            self.emit("POP_TOP")

    def load_cell(self, box: Any, qualname: str) -> None:
        """Push the real cell a closure built here holds for ``box``: the frame's own (graph breaks), or, for
        a cell of an inlined function that is gone once the trace ends, a new cell holding the box's final
        contents, made once so that closures which shared the cell while tracing still share it."""
        cell = self.cell_names.get(id(box))
        if cell is not None:
            if isinstance(cell, CellVar):  # the frame's own cell: filled with the trace's contents at the end
                self.closed_cells.setdefault(cell.name, id(box))
            self.emit("LOAD_CLOSURE", cell)
            return
        if type(box) is not CellBox or id(box) in self.frame_cells:  # a real cell: no source here to load it from
            raise Unsupported(f"a closure ({qualname}) escaping the compiled function",
                              "it closes over a variable of the compiled frame or of a function outside it")
        key = id(box)  # boxes share the temporaries' table with values: a rollback forgets both alike
        if key in self._temps:
            self.emit("LOAD_FAST", self._temps[key])
            return
        if box.contents is None:
            self.call_const(types.CellType, 0, lambda: None)
        else:
            self.call_const(types.CellType, 1, lambda: self.reconstruct(box.contents))
        name = self.new_temp()
        self.emit("COPY", 1)
        self.emit("STORE_FAST", name)
        self._temps[key] = name

    def make_function(self, fn: NestedFunctionVariable) -> None:
        """Rebuild a function made in the trace (MAKE_FUNCTION, which takes the frame's globals; one made by
        an inlined function of another module is made with that module's, by ``bytecode_helpers``)."""
        f_globals = getattr(fn, "f_globals", None)
        if f_globals is not None and self.frame_globals is not None and f_globals is not self.frame_globals:
            self._make_foreign_function(fn, f_globals)
            return
        flags = 0
        if fn.defaults:
            for item in fn.defaults:
                self.reconstruct(item)
            self.emit("BUILD_TUPLE", len(fn.defaults))
            flags |= 0x01
        if fn.kwdefaults:
            for key, item in fn.kwdefaults.items():
                self.load_const(key)
                self.reconstruct(item)
            self.emit("BUILD_MAP", len(fn.kwdefaults))
            flags |= 0x02
        if fn.closure:
            for box in fn.closure:
                self.load_cell(box, fn.qualname)
            self.emit("BUILD_TUPLE", len(fn.closure))
            flags |= 0x08
        self.load_const(fn.code)
        self.extend(version.make_function(flags))

    def _make_foreign_function(self, fn: Any, f_globals: dict[str, Any]) -> None:
        """``made_function(code, globals, defaults, kwdefaults, closure)`` for a function whose globals are
        not the frame's."""
        self.load_callable(made_function)
        self.load_const(fn.code)
        self.load_const(f_globals)
        _load_tuple_or_none(self, fn.defaults, self.reconstruct)
        if fn.kwdefaults:
            for key, item in fn.kwdefaults.items():
                self.load_const(key)
                self.reconstruct(item)
            self.emit("BUILD_MAP", len(fn.kwdefaults))
        else:
            self.load_const(None)
        _load_tuple_or_none(self, fn.closure, lambda box: self.load_cell(box, fn.qualname))
        self.call(5)


def _load_tuple_or_none(codegen: PyCodegen, items: Any, load: Callable[[Any], None]) -> None:
    if not items:
        codegen.load_const(None)
        return
    for item in items:
        load(item)
    codegen.emit("BUILD_TUPLE", len(items))


def build_code(original: types.CodeType, body: list[Instr], keep_cells: bool = False) -> types.CodeType:
    """A code object with ``original``'s signature, free variables and name, running ``body``.

    Free variables are kept so the frame's closure still fits. Cell variables are kept only when
    ``keep_cells`` (a graph break hands the cells to resume functions); otherwise arguments that were
    cells are plain locals.
    """
    bytecode = Bytecode.from_code(original)
    bytecode.clear()
    prologue = []
    if keep_cells:
        prologue += [Instr("MAKE_CELL", CellVar(name)) for name in original.co_cellvars]
    else:
        bytecode.cellvars = []
    if original.co_freevars:
        prologue.append(Instr("COPY_FREE_VARS", len(original.co_freevars)))
    prologue.append(Instr("RESUME", 0))
    line = original.co_firstlineno
    for instr in [*prologue, *body]:
        if isinstance(instr, Instr) and (instr.location is None or instr.location.lineno is None):
            instr.lineno = line
    bytecode.extend([*prologue, *body])
    # Try blocks in the body (around an instruction run natively at a graph break) carry the depth
    # they need: the stack is empty below the instruction's own operands.
    return bytecode.to_code(stacksize=straight_line_stacksize(bytecode), compute_exception_stack_depths=False)


def straight_line_stacksize(instrs: list[Any]) -> int | None:
    """The deepest stack of code without jumps or try blocks, in one pass; None for any other code
    (the ``bytecode`` library then builds a control-flow graph to find it, ~60% of assembling)."""
    depth = peak = 0
    for instr in instrs:
        if type(instr) is not Instr or instr.has_jump():
            return None
        pops, pushes = instr.pre_and_post_stack_effect(jump=False)
        if depth + pops < 0:
            return None  # an underflow: the library's check reports it
        depth += pops + pushes
        if depth > peak:
            peak = depth
    return peak
