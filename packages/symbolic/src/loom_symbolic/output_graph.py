"""The FX graph being recorded: its inputs, its nodes with FakeTensor metadata, and its outputs."""

from __future__ import annotations

import contextlib
import logging
import operator
import random
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch
from torch import fx
from torch._dispatch.python import enable_python_dispatcher
from torch._subclasses.fake_tensor import (
    UnsupportedFakeTensorException,
    UnsupportedOperatorException,
)

from . import entry_layouts
from . import grad_switches as _grad_switches
from . import keyword_calls as _keyword_calls
from . import storage_guards as _storage_guards
from .aliasing import AliasTracker
from .errors import Unsupported, UserError, shape_error
from .fake_mode import FakeMismatch, LoomFakeTensorMode, data_dependent_failures
from .guard_collector import GuardCollector
from .node_effects import STATE_SWITCHES, checks_values, has_side_effect, is_mutating
from .provenance import Provenance
from .shapes import NO_DYNAMIC, DynamicSpec, ShapeContext, is_symbolic, raise_for_loop_ints, unknown_symbols
from .side_effects import SideEffects
from .variables import cells as _cells
from .variables import containers as _containers
from .variables import default_dtype as _default_dtype
from .variables import device_ctx as _device_ctx
from .variables import function_modes as _function_modes
from .variables import generator_draws as _generator_draws
from .variables import inference_mode as _inference_mode
from .variables import new_parameters as _new_parameters
from .variables import random_draws as _random_draws
from .variables import saved_hooks as _saved_hooks
from .variables import sdpa_kernel as _sdpa_kernel
from .variables import symbolic_scalars as _symbolic
from .variables import tensor_subclasses as _subclasses
from .variables import torch_function_state as _torch_function_state
from .variables import torch_rng_calls as _torch_rng_calls
from .variables.base import Variable
from .variables.constant import ConstantVariable, is_constant_value
from .variables.tensor import TensorVariable

if TYPE_CHECKING:
    from .translator import InstructionTranslator

_FAKE_LOG = logging.getLogger("torch._subclasses.fake_tensor")
_FAKE_LIMITS = (UnsupportedOperatorException, UnsupportedFakeTensorException)


@dataclass
class GraphInput:
    """One placeholder: where its value comes from, and the value seen when tracing."""

    source: Any
    node: fx.Node
    example: Any
    #: What turns the value at ``source`` into ``example``'s kind before the graph is called (an
    #: ndarray argument becomes a tensor with ``torch.from_numpy``), or None.
    convert: Any = None
    #: New memory at every call (a tensor made before the call, a NumPy scalar's tensor): shares none.
    fresh: bool = False


def _placeholder_name(source: Any) -> str:
    name = re.sub(r"\W+", "_", str(source)).strip("_").lower()
    return name or "input"


class OutputGraph:
    """Records tensor work into one ``torch.fx.Graph`` while the translator walks bytecode."""

    def __init__(self, dynamic: DynamicSpec = NO_DYNAMIC) -> None:
        self.graph = fx.Graph()
        #: Symbols only where ``dynamic`` asks: a ShapeEnv slows every FakeTensor op, so static traces have none.
        self.shapes = ShapeContext(dynamic)
        self.fake_mode = LoomFakeTensorMode(shape_env=self.shapes.shape_env if dynamic else None)
        self.inputs: list[GraphInput] = []
        self._number_inputs: dict[str, Variable] = {}  # source text -> its input (add_symint_input)
        self._tensor_inputs: dict[int, TensorVariable] = {}
        #: id → (object, variable) for mutable objects read from the frame: aliases stay aliases.
        self.known_objects: dict[int, tuple[Any, Variable]] = {}
        #: Locals a resume function handed on unread that the trace needed to read (api.translate).
        self.passed_on_reads: set[str] = set()
        self.cell_boxes = _cells.CellBoxes()  # every way of reaching a closure cell shares one view of it
        self.guards = GuardCollector()
        self.provenance = Provenance()  # what a result kept for another process depends on
        self.aliases = AliasTracker()
        self.side_effects = SideEffects()
        #: The calls to Python's RNG the rewritten code makes before the graph (``random.random()``).
        self.random_draws = _random_draws.RandomDraws()
        #: How many bodies of plain-call higher-order ops (``wrap``) are being traced: prints are deferred there.
        self.plain_call_bodies = 0
        self.paused_generators: list[Any] = []  # made in the trace, paused in a try block (generator_drops)
        self._rng_copy: random.Random | None = None
        #: The parameters the program creates (``nn.Parameter(t)``), made empty before the graph call.
        self.new_parameters = _new_parameters.NewParameters()
        #: Grad mode as the program sees it at this point of the trace.
        self.grad_enabled = torch.is_grad_enabled()
        self.initial_grad_enabled = self.grad_enabled
        #: The default dtype as the program sees it (``torch.set_default_dtype`` in the trace), and the one
        #: the frame was entered with, which the graph runs under (:mod:`.variables.default_dtype`).
        self.default_dtype = self.initial_default_dtype = torch.get_default_dtype()
        #: Inference mode as the program sees it, and the inference-mode regions open at this point of the
        #: trace: (enter node, mode, grad mode and inference mode before it), innermost last.
        self.inference_mode = torch.is_inference_mode_enabled()
        self.inference_regions: list[tuple[fx.Node, bool, bool, bool]] = []
        #: The default-device regions (``with torch.device(d):``) open at this point: (enter node, device).
        self.device_regions: list[tuple[fx.Node, torch.device]] = []
        #: The sdpa_kernel regions open at this point: (enter node, (backends, set_priority)).
        self.sdpa_regions: list[tuple[fx.Node, tuple]] = []
        #: The disable_saved_tensors_hooks regions open at this point: (enter node, message).
        self.saved_hooks_regions: list[tuple[fx.Node, str]] = []
        #: Whether subclasses' __torch_function__ runs, whether modes are off too (DisableTorchFunction), and the
        #: regions switching them open here: (enter node, both states before it, the modes it set aside).
        self.torch_function_enabled = torch._C._is_torch_function_enabled()
        self.torch_function_all_disabled = torch._C._is_torch_function_all_disabled()
        self.torch_function_regions: list[tuple[fx.Node, bool, bool, list]] = []
        #: How many tensors of subclasses running a Python ``__torch_function__`` the trace holds (:mod:`.variables.tensor_subclasses`).
        self.subclass_tensors = 0
        #: The autocast regions open at this point of the trace: (enter node, its settings), innermost last.
        self.autocast_regions: list[tuple[fx.Node, tuple]] = []
        #: The TorchFunctionModes the trace pushed (``with MyMode():``), innermost last (:mod:`.variables.function_modes`).
        self.function_modes: list[_function_modes.PushedMode] = []
        #: Sub-graphs of higher-order operations, attributes of the final module read by ``get_attr`` nodes.
        self.submodules: dict[str, fx.GraphModule] = {}
        #: (id(module), attribute) → the variable read instead, inside ``torch.func.functional_call``.
        self.module_overrides: dict[tuple[int, str], Variable] = {}
        #: (id(lru_cache'd function from outside), its cache key) → the result a call in this trace gave
        #: (:mod:`.variables.polyfilled`): a repeated call is the cache's hit, the same object, as in eager.
        self.cached_call_results: dict[tuple[int, Any], Variable] = {}
        #: How many torch.func transforms' functions are being traced (a level each, in eager).
        self.transform_depth = 0
        #: How many higher-order ops' bodies (and transforms' functions) are being traced (``trace_body``).
        self.body_depth = 0

    # -- inputs ------------------------------------------------------------------------------------
    def add_tensor_input(self, value: torch.Tensor, source: Any, convert: Any = None,
                         make: type[TensorVariable] = TensorVariable) -> TensorVariable:
        """The graph input for a tensor read from ``source`` (one placeholder per tensor object; ``convert``: what
        the graph receives instead, ``convert(value)``; ``make``: the variable's kind)."""
        self.note_alias(value, source)
        existing = self._tensor_inputs.get(id(value))
        if existing is not None:
            return existing
        node = self._new_placeholder(_placeholder_name(source))
        example = value if convert is None else convert(value)
        dims = self.shapes.spec.tensor_dims(source, value)
        if dims:
            fake = self.shapes.fake_tensor(self.fake_mode, example, source, dims)
            # Sizes 0 and 1 stay static (specialised, as PyTorch does): those dims are still checked.
            symbolic = frozenset(d for d in dims if is_symbolic(fake.shape[d]))
            self.guards.add("dynamic_tensor" if symbolic else "tensor", source, (value, symbolic) if symbolic else value)
        else:
            fake = self.fake_mode.fake_input(example)
            self.guards.add("tensor", source, value)
        variable = make(node, fake, source=source, cls=type(value), real=value)
        entry_layouts.record(node, fake)
        self.inputs.append(GraphInput(source, node, example, convert))
        self._tensor_inputs[id(value)] = variable
        return variable

    def input_of_example(self, example: Any) -> TensorVariable | None:
        """The graph input whose fake tensor is ``example`` (an in-place op's result is its input's), if any."""
        return next((variable for variable in self._tensor_inputs.values() if variable.example is example), None)

    def add_converted_input(self, value: torch.Tensor, source: Any, convert: Any,
                            *, fresh: bool = False) -> TensorVariable:
        """A graph input for the tensor ``convert`` makes of the value at ``source`` (``torch.from_numpy``
        of an ndarray argument): its placeholder receives ``convert(value)`` at every call. Its static
        shape, dtype and strides are what the caller guards on the original value (``fresh``: see GraphInput)."""
        node = self._new_placeholder(_placeholder_name(source))
        fake = self.fake_mode.fake_input(value)
        variable = TensorVariable(node, fake, source=None, real=value)
        self.inputs.append(GraphInput(source, node, value, convert, fresh))
        return variable

    def note_alias(self, value: Any, source: Any, *, fixed: bool = False, module: bool = False) -> None:
        """Track ``value`` by identity: a second source of it is guarded to hold the same object."""
        why = self.aliases.withheld(value)
        if why is not None:
            raise Unsupported("a read of " + why, "the trace would not see what the rewritten code does to it",
                              hint="it is read by ordinary Python after the graph")
        first = self.aliases.seen(value, source, fixed=fixed, module=module)
        if first is not None:
            self.guards.add("same_object", source, first)

    def withhold(self, value: Any, source: Any, why: str) -> bool:
        """Keep the trace from reading ``value`` (see :meth:`.aliasing.AliasTracker.withhold`)."""
        return self.aliases.withhold(value, source, why)

    def add_symint_input(self, value: int | float, source: Any, *, read_again: bool = True) -> Variable:
        """A dynamic int or float argument: a SymInt/SymFloat graph input (its type is guarded, not its value), one
        per source. ``read_again=False``: an int that is always an int and changes as the graph runs (a tensor's
        ``_version``): no type guard, handed back as a graph output, never read from ``source`` again."""
        if read_again and str(source) in self._number_inputs:
            return self._number_inputs[str(source)]
        node = self._new_placeholder(_placeholder_name(source))
        shapes = self.shapes
        symbolic = shapes.symbolic_int(value, source) if type(value) is int else shapes.symbolic_float(value, source)
        self.fake_mode.shape_env = shapes.shape_env  # (made by symbolic_int in a static trace) ops on it need it
        variable = _symbolic.SymbolicVariable(node, symbolic)
        self.inputs.append(GraphInput(source, node, value))
        if read_again:
            variable.source = source  # handed back unchanged, it is read from the frame again
            self._number_inputs[str(source)] = variable
            self.guards.add("type", source, value)
        return variable

    def add_made_input(self, value: Any, source: Any) -> fx.Node:
        """The placeholder for a value the rewritten code makes before the graph call (a parameter the
        program creates, :mod:`.variables.new_parameters`): no guard, it is new on every call."""
        node = self._new_placeholder(_placeholder_name(source))
        self.inputs.append(GraphInput(source, node, value, fresh=True))
        return node

    def add_random_draw(self, fn: Any, args: tuple, kwargs: dict, what: str) -> Variable:
        """``fn(*args, **kwargs)``, a method of ``random``'s hidden instance: a graph input over a
        symbol of its own, whose value the rewritten code draws before the graph call (``random.seed``:
        made there too, between the draws before and after it, and None)."""
        try:
            value = getattr(self.rng_copy(), fn.__name__)(*args, **kwargs)
        except Exception as exc:  # eager raises here too: run it natively
            raise UserError(f"{what} raised {type(exc).__name__}", str(exc), exc_type=type(exc)) from exc
        if fn.__name__ in _random_draws.RESEEDING:  # random.seed(5): made in order with the draws
            self.random_draws.calls.append((fn, args, kwargs))
            return ConstantVariable(value)
        if type(value) not in (int, float):
            raise Unsupported(f"{what} returning {type(value).__name__}", "only numbers are drawn before the graph")
        source = _random_draws.RandomValue(len(self.random_draws), what)
        self.random_draws.calls.append((fn, args, kwargs))
        node = self._new_placeholder(_placeholder_name(source))
        symbolic = self.shapes.drawn_value(value, source)
        self.fake_mode.shape_env = self.shapes.shape_env  # ops on the symbol need it
        variable = _symbolic.SymbolicVariable(node, symbolic)
        variable.source = source  # handed back unchanged, it is read from the values drawn
        self.inputs.append(GraphInput(source, node, value))
        return variable

    def rng_copy(self) -> random.Random:
        """The trace's copy of Python's RNG, advanced by the calls made before the graph (the real one stays)."""
        if self._rng_copy is None:
            self._rng_copy = random.Random()
            self._rng_copy.setstate(random.getstate())
        return self._rng_copy

    def loop_int(self) -> torch.SymInt:
        """A fresh SymInt for an int a ``while_loop`` carries (:meth:`ShapeContext.loop_int`)."""
        symint = self.shapes.loop_int()
        self.fake_mode.shape_env = self.shapes.shape_env  # ops on the symbol need it
        return symint

    def size_of(self, tensor: TensorVariable, dim: int) -> Variable:
        """``tensor.size(dim)``: a constant, or (dynamic shapes) a symbolic int computed in the graph."""
        size = tensor.example.shape[dim]
        if not is_symbolic(size):
            return ConstantVariable(int(size))
        # keyed by the size too: an in-place op (as_strided_, unsqueeze_) changes the sizes of the same node
        cache = tensor.node.meta.setdefault("loom_sizes", {})
        key = (dim, size.node.expr)
        if key not in cache:
            node = self.graph.call_method("size", (tensor.node, dim))
            cache[key] = _symbolic.SymbolicVariable(node, size)
        return cache[key]

    def _new_placeholder(self, name: str) -> fx.Node:
        # Placeholders come first, in the order of ``inputs`` (every placeholder has its entry there).
        if self.inputs:
            with self.graph.inserting_after(self.inputs[-1].node):
                return self.graph.placeholder(name)
        first = next(iter(self.graph.nodes), None)
        if first is None:
            return self.graph.placeholder(name)
        with self.graph.inserting_before(first):
            return self.graph.placeholder(name)

    # -- recording ops -----------------------------------------------------------------------------
    def call_function(
        self, tx: InstructionTranslator | None, target: Any, args: list[Variable], kwargs: dict[str, Variable]
    ) -> Variable:
        """Record ``target(*args, **kwargs)`` as a ``call_function`` node and return its result (handed to
        the innermost TorchFunctionMode the trace pushed first, as eager would)."""
        if self.function_modes and (handled := _function_modes.dispatch(tx, self, target, args, kwargs)) is not None:
            return handled
        if (handled := _subclasses.dispatch(tx, self, target, args, kwargs)) is not None:
            return handled
        return self._record("call_function", target, target, args, kwargs, tx)

    def call_method(
        self, tx: InstructionTranslator | None, name: str, args: list[Variable], kwargs: dict[str, Variable]
    ) -> Variable:
        """Record ``args[0].name(*args[1:], **kwargs)`` as a ``call_method`` node."""
        run = _method_caller(name)
        if self.function_modes and (handled := _function_modes.dispatch(tx, self, run, args, kwargs)) is not None:
            return handled
        if (handled := _subclasses.dispatch(tx, self, run, args, kwargs)) is not None:
            return handled
        return self._record("call_method", name, run, args, kwargs, tx)

    def _record(
        self,
        kind: str,
        target: Any,
        run: Any,
        args: list[Variable],
        kwargs: dict[str, Variable],
        tx: InstructionTranslator | None,
    ) -> Variable:
        if "generator" in kwargs and (drawn := _generator_draws.draw_before_the_graph(self, run, args, kwargs)):
            return drawn  # graph code cannot hold a generator: its draw is made before the graph
        node_args = tuple(a.as_graph_arg() for a in args)
        node_kwargs = {k: v.as_graph_arg() for k, v in kwargs.items()}
        shapes = self.shapes
        mark = shapes.guard_count() if shapes.drawn else 0
        seeded, written = self.fake_mode.seeded_calls, len(self.fake_mode.written)
        examples, kwarg_examples = [a.as_example() for a in args], {k: v.as_example() for k, v in kwargs.items()}
        out_shape = _out_shape(kwarg_examples) if shapes.shape_env is not None else None
        example = self._run_fake(run, examples, kwarg_examples)
        if out_shape is not None and not entry_layouts.same_sizes(_out_shape(kwarg_examples), out_shape):
            # AOTAutograd's functional graph loses such a resize under symbolic sizes (numel() read 1)
            raise Unsupported(f"{_callable_name(run)}(out=...) resizing its out tensor",
                              "a resize by out= is not kept by functionalizing backends under symbolic sizes",
                              hint="it runs as the program runs")
        if shapes.drawn:
            shapes.check_no_drawn_guard(mark, _callable_name(run))
        if self.fake_mode.seeded_calls != seeded:  # after a state change made after the graph: a break
            _torch_rng_calls.check_draw(self, _callable_name(run))
        if _default_dtype.differs(self):
            node_kwargs = _default_dtype.typed_kwargs(self, target, run, examples, kwarg_examples, node_kwargs, example)
        node = self.graph.create_node(*_keyword_calls.spellable(kind, target, node_args, node_kwargs))
        if tx is not None:
            # The user's file, line and function; the source text is read only when someone asks.
            node.meta["loom_location"] = tx.location()
        node.meta["mutates"] = is_mutating(kind, target, node_kwargs) or self._wrote_an_argument(written, examples,
                                                                                                  kwarg_examples)
        node.meta["draws"] = self.fake_mode.seeded_calls != seeded
        node.meta["checks_values"] = checks_values(node)  # (a compiling backend keeps such a node: see there)
        return self.wrap_result(node, example)

    def _wrote_an_argument(self, mark: int, args: list[Any], kwargs: dict[str, Any]) -> bool:
        """Whether the ops of the call just run wrote (in place) the memory of one of its tensor arguments
        (the fake mode's ``written`` list from ``mark`` on; tensors the call made itself do not count)."""
        written = self.fake_mode.written[mark:]
        if not written:
            return False
        del self.fake_mode.written[mark:]
        from torch.utils._pytree import tree_leaves

        storages = {_storage_guards.storage_key(leaf) for leaf in tree_leaves((args, kwargs))} - {None}
        return any(_storage_guards.storage_key(tensor) in storages for tensor in written)

    def _run_fake(self, run: Any, args: list[Any], kwargs: dict[str, Any], dtype: torch.dtype | None = None) -> Any:
        if self.inference_mode == torch.is_inference_mode_enabled():
            return self._run_fake_in_mode(run, args, kwargs, dtype or self.default_dtype)
        # Inside the trace's inference mode (entered first: it sets grad mode too, which the run then sets).
        with torch._C._InferenceMode(self.inference_mode):
            return self._run_fake_in_mode(run, args, kwargs, dtype or self.default_dtype)

    def run_fake_again(self, run: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """The fake run of an op just recorded, again, under the default dtype the frame was entered with
        (to see whether its result depends on the default): its draws and writes are not counted twice."""
        seeded, written = self.fake_mode.seeded_calls, len(self.fake_mode.written)
        try:
            return self._run_fake(run, args, kwargs, self.initial_default_dtype)
        finally:
            self.fake_mode.seeded_calls = seeded
            del self.fake_mode.written[written:]

    def _run_fake_in_mode(self, run: Any, args: list[Any], kwargs: dict[str, Any], dtype: torch.dtype) -> Any:
        previous = torch.is_grad_enabled()
        torch._C._set_grad_enabled(self.grad_enabled)
        # A failing meta kernel is logged at ERROR by torch; here it only means "break the graph".
        _FAKE_LOG.disabled = True
        try:
            with (self._in_autocast_regions(), self._in_native_regions(), self._python_kernels(),
                  _default_dtype.real_default(dtype), self.fake_mode):
                result = run(*args, **kwargs)
            if self.fake_mode.shape_env is not None and _has_unbacked_symbols(result):
                # With a ShapeEnv, x[mask] or nonzero() do not fail: they give sizes no input determines.
                raise_for_loop_ints((args, kwargs), _callable_name(run))
                raise _data_dependent(run)
            return result
        except (Unsupported, FakeMismatch):
            raise
        except Exception as exc:
            # A fake op failing on a loop's symbolic int says nothing about the real program.
            raise_for_loop_ints((args, kwargs), _callable_name(run))
            if isinstance(exc, data_dependent_failures()):
                raise _data_dependent(run) from exc
            if isinstance(exc, _FAKE_LIMITS):
                raise Unsupported(f"{_callable_name(run)}", f"cannot be traced with FakeTensors: {exc}") from exc
            # the real program raises here too: run it natively (or, where eager's error is known, raise it in the
            # trace; not over symbolic sizes, where eager's message names the size the trace does not know)
            known = shape_error(exc) if self.fake_mode.shape_env is None else {}
            raise UserError(f"{_callable_name(run)} raised {type(exc).__name__}", str(exc), **known) from exc
        finally:
            _FAKE_LOG.disabled = False
            torch._C._set_grad_enabled(previous)

    def _in_native_regions(self) -> contextlib.AbstractContextManager:
        """The trace's open default-device and ``sdpa_kernel`` regions, entered for real around one fake run."""
        stack = contextlib.ExitStack()
        stack.enter_context(_device_ctx.in_regions(self))
        stack.enter_context(_sdpa_kernel.in_regions(self))
        return stack

    def _python_kernels(self) -> contextlib.AbstractContextManager:
        """With symbolic sizes, the Python dispatcher: ops whose C++ kernels take only concrete sizes
        (``constant_pad_nd``/``pad`` with pad amounts computed from sizes) run their SymInt-aware Python
        kernels and decompositions, as AOTAutograd later does. Static traces keep the faster C++ path."""
        if self.fake_mode.shape_env is None:
            return contextlib.nullcontext()
        return enable_python_dispatcher()

    def _in_autocast_regions(self) -> contextlib.AbstractContextManager:
        """The trace's open autocast regions, entered for real around one fake run (without autocast's
        cast cache, which must never keep a fake tensor), and left after it."""
        if not self.autocast_regions:
            return contextlib.nullcontext()
        stack = contextlib.ExitStack()
        for _, (device, dtype, enabled, _cache) in self.autocast_regions:
            stack.enter_context(torch.amp.autocast(device, dtype, enabled, cache_enabled=False))
        return stack

    def wrap_result(self, node: fx.Node, example: Any) -> Variable:
        """Turn an op's fake result into a variable; results without tensors fold to constants."""
        if isinstance(example, torch.Tensor):
            return TensorVariable(node, example)
        if is_symbolic(example):
            return _symbolic.SymbolicVariable(node, example)
        if isinstance(example, (torch.SymInt, torch.SymFloat, torch.SymBool)):  # a symbol folded to a number
            example = {torch.SymInt: int, torch.SymFloat: float, torch.SymBool: bool}[type(example)](example)
        if isinstance(example, torch.Size) or is_constant_value(example):
            if not node.users and not has_side_effect(node):
                self.graph.erase_node(node)
            if isinstance(example, torch.Size):
                return _containers.SizeVariable.of(example)
            return ConstantVariable(example)
        if isinstance(example, (tuple, list)):
            items: list[Variable] = []
            for i, item in enumerate(example):
                if isinstance(item, torch.Tensor) or is_symbolic(item):
                    getitem = self.graph.call_function(operator.getitem, (node, i))
                    items.append(self.wrap_result(getitem, item))
                elif is_constant_value(item):
                    items.append(ConstantVariable(item))
                else:
                    raise Unsupported(f"an op returning {type(item).__name__}", "the translator cannot model it")
            if isinstance(example, list):
                return _containers.ListVariable(items)
            if hasattr(type(example), "_fields") or type(example).__module__ == "torch.return_types":
                return _containers.NamedTupleVariable(items, type(example))
            return _containers.TupleVariable(items)
        raise Unsupported(f"an op returning {type(example).__name__}", "the translator cannot model it")

    def set_grad_enabled(self, tx: InstructionTranslator | None, enabled: bool) -> None:
        """Switch grad mode inside the graph (``torch.no_grad()`` blocks)."""
        if enabled == self.grad_enabled:
            return
        node = self.graph.call_function(torch._C._set_grad_enabled, (enabled,))
        node.meta["mutates"] = True
        self.grad_enabled = enabled

    def enter_autocast(self, tx: InstructionTranslator | None, settings: tuple) -> None:
        """Open an autocast region in the graph: ``_enter_autocast(device, dtype, enabled, cache_enabled)``."""
        node = self.graph.call_function(torch.amp.autocast_mode._enter_autocast, tuple(settings))
        node.meta["mutates"] = True
        node.meta["val"] = None
        if tx is not None:
            node.meta["loom_location"] = tx.location()
        self.autocast_regions.append((node, tuple(settings)))

    def exit_autocast(self, tx: InstructionTranslator | None) -> None:
        """Close the innermost autocast region: ``_exit_autocast(<its enter node>)``."""
        enter_node, _ = self.autocast_regions.pop()
        node = self.graph.call_function(torch.amp.autocast_mode._exit_autocast, (enter_node,))
        node.meta["mutates"] = True
        node.meta["val"] = None

    def add_submodule(self, module: fx.GraphModule, prefix: str) -> fx.Node:
        """Keep ``module`` as an attribute of the final graph module; returns the ``get_attr`` node reading it."""
        name = f"{prefix}_{len(self.submodules)}"
        self.submodules[name] = module
        return self.graph.get_attr(name)

    # -- finishing ---------------------------------------------------------------------------------
    def build_guards(self) -> list[Any]:
        """Every guard the trace needs: requests, symbolic-size relations, aliasing, global state."""
        mutated = len(self.side_effects) > 0 or any(
            n.meta.get("mutates") and n.target not in STATE_SWITCHES for n in self.graph.nodes
        )
        aliasing = self.aliases.guards(mutated=mutated, objects_mutated=len(self.side_effects) > 0)
        storage = _storage_guards.storage_guards(self.inputs, self.graph)
        return self.guards.build([*self.shapes.guards(), *aliasing, *storage])

    def drop_idle_grad_switches(self) -> None:
        """Before the graph is closed, with no region open: restore the grad mode it started in and drop
        the switches that change nothing (:mod:`.grad_switches`), so a block that broke at once costs no graph."""
        if not (self.autocast_regions or self.inference_regions or self.sdpa_regions or self.device_regions
                or self.torch_function_regions or self.saved_hooks_regions):
            if self.grad_enabled != self.initial_grad_enabled:
                self.set_grad_enabled(None, self.initial_grad_enabled)
            _grad_switches.drop_idle_switches(self.graph, self.initial_grad_enabled,
                                              set(STATE_SWITCHES) - {torch._C._set_grad_enabled})

    def has_side_effects(self) -> bool:
        """Whether the graph must run even when nothing uses its outputs (see :func:`has_side_effect`)."""
        return any(has_side_effect(n) for n in self.graph.nodes if n.op in ("call_function", "call_method"))

    def has_work(self) -> bool:
        """Whether the graph does anything beyond passing inputs through."""
        return any(n.op not in ("placeholder", "output") for n in self.graph.nodes)

    def finalize(self, outputs: list[fx.Node]) -> fx.GraphModule:
        """Close the graph with ``outputs`` (returned as a tuple), drop dead pure nodes, build a module."""
        # A break inside regions (the rest runs natively): closed innermost first across kinds, as eager leaves
        # them (an inference region's exit restores the dispatch keys it found, autocast's among them).
        closers = [(self.autocast_regions, lambda: self.exit_autocast(None)),
                   (self.inference_regions, lambda: _inference_mode.exit_region(self)),
                   (self.sdpa_regions, lambda: _sdpa_kernel.exit_region(self)),
                   (self.saved_hooks_regions, lambda: _saved_hooks.exit_region(self)),
                   (self.device_regions, lambda: _device_ctx.exit_region(self)),
                   (self.torch_function_regions, lambda: _torch_function_state.exit_region(self))]
        position = {node: i for i, node in enumerate(self.graph.nodes)}
        while open_regions := [(position[regions[-1][0]], close) for regions, close in closers if regions]:
            max(open_regions, key=lambda region: region[0])[1]()
        if self.grad_enabled != self.initial_grad_enabled:
            self.set_grad_enabled(None, self.initial_grad_enabled)
        self.graph.output(tuple(outputs))
        for node in reversed(list(self.graph.nodes)):
            if node.op in ("call_function", "call_method", "get_attr") and not node.users and not has_side_effect(node):
                self.graph.erase_node(node)
        if self.random_draws or self.shapes.float_values:
            # A value drawn or a float argument not used by the graph is no input of it (AOTAutograd would
            # fix an unused float input to its value); the rewritten code still draws (reads) it.
            unused = [i for i in self.inputs if not i.node.users and (isinstance(i.source, _random_draws.RandomValue)
                                                                      or type(i.example) is float)]
            for graph_input in unused:
                self.shapes.forget_drawn(graph_input.node.meta["val"])
                self.graph.erase_node(graph_input.node)
            dropped = {id(i) for i in unused}
            self.inputs = [i for i in self.inputs if id(i) not in dropped]
        self.graph.lint()
        root = torch.nn.Module()
        for name, module in self.submodules.items():
            root.add_module(name, module)
        return fx.GraphModule(root, self.graph)

    def op_count(self) -> int:
        """The number of operations (not inputs or outputs) in the graph."""
        return sum(1 for n in self.graph.nodes if n.op in ("call_function", "call_method"))


def _method_caller(name: str) -> Any:
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(self, name)(*args, **kwargs)

    call.__name__ = name
    return call


def _out_shape(kwargs: dict[str, Any]) -> tuple | None:
    """The sizes of the call's ``out=`` tensors, one after the other (``sort(out=(values, indices))``)."""
    out = kwargs.get("out")
    outs = out if isinstance(out, (tuple, list)) else (out,)
    tensors = [t for t in outs if isinstance(t, torch.Tensor)]
    return tuple(d for t in tensors for d in (t.dim(), *t.shape)) if tensors else None


def _data_dependent(run: Any) -> Unsupported:
    return Unsupported(
        f"{_callable_name(run)} with a data-dependent result",
        "the output depends on tensor values, which are unknown while tracing",
        hint="move this operation out of the compiled region, or avoid data-dependent shapes",
    )


def _has_unbacked_symbols(result: Any) -> bool:
    """Whether a fake result has a size (or is a number) that only the real data would fix (a number
    computed from an int a ``while_loop`` carries is fine: :func:`shapes.unknown_symbols`)."""
    from torch.utils._pytree import tree_leaves

    return any(unknown_symbols(leaf) for leaf in tree_leaves(result)
               if isinstance(leaf, (torch.Tensor, torch.SymInt, torch.SymFloat, torch.SymBool)))


def _callable_name(fn: Any) -> str:
    module = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    if module.startswith("torch") and not name.startswith("torch"):
        return f"{module}.{name}" if module != "torch._C._VariableFunctions" else f"torch.{name}"
    return name
