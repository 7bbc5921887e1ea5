"""AOTAutograd glue shared by ``aot_eager`` and ``triton``, and the ``aot_eager`` backend itself.

AOTAutograd traces the graph's forward and backward into ATen graphs (functionalised, optionally
decomposed) and partitions them; each partitioned graph goes to a *graph compiler*, here
``compile_graph(gm, example_inputs, kind) -> callable``. ``torch._functorch`` is imported only when a
backend runs, never when ``loom_backends`` is imported.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .compiled import CompiledFunction, GraphArtifact
from .graphs import (
    check_backend_args,
    frees_history_it_returns,
    replaces_a_storage_it_handed_on,
    replaces_storage,
    resizes_an_input,
    returns_view_of_replaced_input,
    with_flat_tuple_output,
)
from .inference import run_without_grad, trace_inference

if TYPE_CHECKING:  # pragma: no cover - typing only: aot_cache imports torch
    from .aot_cache import AotCache

log = logging.getLogger("loom_backends.aot")

GraphCompiler = Callable[[Any, list[Any], str], Callable[..., Any]]


def aot_compile(
    gm: Any,
    example_inputs: list[Any],
    *,
    backend: str,
    compile_graph: GraphCompiler,
    decompositions: Mapping[Any, Callable[..., Any]] | None = None,
    partition_fn: Callable[..., Any] | None = None,
    keep_input_mutations: bool = False,
    cache: AotCache | None = None,
) -> CompiledFunction:
    """Run ``gm`` through AOTAutograd, compiling forward, backward and inference graphs with ``compile_graph``.

    ``keep_input_mutations``: writes to graph inputs stay in the graphs (AOTAutograd's
    ``keep_inference_input_mutations``, as torch's ``aot_eager`` sets it). A graph that replaces an
    input's data (``set_``, which ``param.data = t`` records) or resizes it always keeps them: AOTAutograd
    refuses it otherwise. Such a graph bypasses ``cache``, as does one whose aliased inputs have symbolic
    sizes: those sizes become SymInt inputs first (:mod:`loom_backends.aot_symbols`).

    ``cache``: AOTAutograd's result for a training graph, and the one trace's graph for an inference
    graph, are kept on disk and, in another process, replayed without tracing or partitioning
    (:mod:`loom_backends.aot_cache`, :mod:`loom_backends.aot_inference_cache`; ``compile_graph`` must
    put its graphs in the graph cache). The result's ``cache_key`` then names the entry
    (:func:`loom_backends.reload`); it is None when the cache bypasses the graph, or when the graph's
    output had to be flattened for AOTAutograd."""
    check_backend_args(gm, example_inputs)
    from .aot_symbols import lift_aliased_view_symbols

    lifted = lift_aliased_view_symbols(gm, list(example_inputs))
    if lifted is not None:  # aliased inputs of symbolic size: AOTAutograd's synthetic base needs the symbols
        inner = aot_compile(lifted.graph_module, lifted.example_inputs, backend=backend, compile_graph=compile_graph,
                            decompositions=decompositions, partition_fn=partition_fn,
                            keep_input_mutations=keep_input_mutations, cache=None)
        result = CompiledFunction(backend, lifted.wrap(inner.fn))
        result.graphs = inner.graphs
        return result
    flat_gm, unflatten = with_flat_tuple_output(gm)
    if frees_history_it_returns(flat_gm):
        log.debug("%s: a graph returning a tensor whose autograd graph its backward frees runs as captured", backend)
        return _with_unflatten(backend, flat_gm.forward, unflatten, [])
    if replaces_storage(flat_gm):
        if (returns_view_of_replaced_input(flat_gm, list(example_inputs)) or replaces_a_storage_it_handed_on(flat_gm)
                or resizes_an_input(flat_gm)):
            log.debug("%s: a graph whose set_/resize_ AOTAutograd would replay out of order runs as captured", backend)
            return _with_unflatten(backend, flat_gm.forward, unflatten, [])
        keep_input_mutations, cache = True, None
    artifacts: list[GraphArtifact] = []
    inference_key = None
    if cache is not None:  # before the one trace: a warm process fakes and traces nothing
        from . import aot_inference_cache

        inference_key, hit = aot_inference_cache.lookup(flat_gm, list(example_inputs), cache)
        if hit is not None:
            return _with_unflatten(backend, hit.fn, unflatten, hit.artifacts, inference_key)
    # A graph that needs no autograd and mutates no input: its inference graph in one trace, not two.
    one_trace = trace_inference(flat_gm, list(example_inputs), decompositions)
    if one_trace is not None:
        compiled = compile_graph(one_trace.graph_module, list(one_trace.example_inputs), "inference")
        artifacts.append(GraphArtifact("inference", one_trace.graph_module, compiled))
        if inference_key is not None and not aot_inference_cache.store(inference_key, one_trace, cache):
            inference_key = None  # nothing a reload could find
        return _with_unflatten(backend, run_without_grad(compiled), unflatten, artifacts, inference_key)

    recorder = None
    training_key = None
    if cache is not None:
        from . import aot_cache

        found = aot_cache.start(flat_gm, list(example_inputs), cache)
        if isinstance(found, aot_cache.Replayed):
            return _with_unflatten(backend, found.fn, unflatten, found.artifacts, found.key)
        recorder = found
        training_key = None if recorder is None else recorder.key

    from torch._functorch.aot_autograd import aot_module_simplified, make_boxed_func

    example_inputs = _with_shape_env_if_needed(gm, list(example_inputs))

    def compiler_for(kind: str) -> Callable[[Any, list[Any]], Callable[..., Any]]:
        def compiler(graph_module: Any, inputs: list[Any]) -> Callable[..., Any]:
            compiled = compile_graph(graph_module, list(inputs), kind)
            artifacts.append(GraphArtifact(kind, graph_module, compiled))
            if recorder is not None:
                recorder.compiled(kind, graph_module, list(inputs))
            boxed = getattr(compiled, "boxed", None)  # a kernel compiler's graph frees its inputs as it goes
            return boxed() if boxed is not None else make_boxed_func(compiled)

        return compiler

    kwargs: dict[str, Any] = {}
    if partition_fn is not None:
        kwargs["partition_fn"] = (
            recorder.watch_partition(partition_fn) if recorder is not None else partition_fn
        )
    import torch._functorch.config as functorch_config

    # an ordered effect (a print node) threads a token: made and sunk inside the graph, as inductor has it,
    # so the compiled graph's inputs and outputs stay tensors
    with functorch_config.patch(unlift_effect_tokens=True):
        fn = aot_module_simplified(
            flat_gm,
            list(example_inputs),
            fw_compiler=compiler_for("forward"),
            bw_compiler=compiler_for("backward"),
            inference_compiler=compiler_for("inference"),
            decompositions=dict(decompositions or {}),
            keep_inference_input_mutations=keep_input_mutations,
            **kwargs,
        )
    return _with_unflatten(backend, fn, unflatten, artifacts, training_key)


def _with_unflatten(
    backend: str,
    fn: Callable[..., Any],
    unflatten: Callable[[Any], Any] | None,
    artifacts: list[GraphArtifact],
    cache_key: str | None = None,
) -> CompiledFunction:
    """The compiled function, its flat outputs put back into the graph's structure; ``cache_key`` is kept
    only when there is nothing to put back (a reload rebuilds the flat function alone)."""
    if unflatten is not None:
        inner = fn

        def fn(*args: Any) -> Any:
            return unflatten(inner(*args))

        cache_key = None
    result = CompiledFunction(backend, fn, cache_key=cache_key)
    result.graphs = artifacts  # shared list: fills in as AOTAutograd compiles
    return result


#: Higher-order ops whose tracing makes fresh symbols (a loop's iteration count): AOTAutograd needs a
#: ShapeEnv for them, which it makes only when the example inputs are fakes carrying one.
_NEEDS_SHAPE_ENV = ("while_loop",)


def _needs_shape_env(node: Any) -> bool:
    """Whether ``node`` calls one of :data:`_NEEDS_SHAPE_ENV`, or a ``cond`` whose branches' results differ in size
    (its results have unbacked sizes, which torch's ``cond`` makes again as AOTAutograd traces it)."""
    import torch
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols

    if not isinstance(node.target, torch._ops.HigherOrderOperator):
        return False
    name = getattr(node.target, "__name__", None)
    return name in _NEEDS_SHAPE_ENV or (name == "cond" and bool(free_unbacked_symbols(node.meta.get("val"))))


def has_unbound_sizes(gm: Any, example_inputs: list[Any]) -> bool:
    """Whether ``gm`` (or a sub-graph) makes sizes only the run fixes, which the kernel compilers cannot bind (they
    run the ATen graphs as they are instead): a ``cond`` whose results have unbacked sizes (its branches' results
    differ in size), or a ``while_loop`` differentiated (its backward stacks the iterations, an unbacked count)."""
    import torch

    if not isinstance(gm, torch.fx.GraphModule) or not isinstance(example_inputs, (list, tuple)):
        return False  # the backend's own checks refuse such arguments
    training = torch.is_grad_enabled() and any(getattr(x, "requires_grad", False) for x in example_inputs)
    for module in gm.modules():
        if not isinstance(module, torch.fx.GraphModule):
            continue
        for node in module.graph.nodes:
            if node.op != "call_function" or not _needs_shape_env(node):
                continue
            name = getattr(node.target, "__name__", None)
            if name == "cond" or (name == "while_loop" and (training or _params_require_grad(gm))):
                return True
    return False


def _params_require_grad(gm: Any) -> bool:
    return any(p.requires_grad for p in gm.parameters()) or any(
        getattr(v, "requires_grad", False) for v in vars(gm).values())


def _with_shape_env_if_needed(gm: Any, example_inputs: list[Any]) -> list[Any]:
    """The example inputs as static-shaped fakes of a mode with a ShapeEnv when ``gm`` (or a sub-graph of
    it) calls one of :data:`_NEEDS_SHAPE_ENV`; unchanged otherwise."""
    import torch

    needs = any(_needs_shape_env(node) for module in gm.modules() if isinstance(module, torch.fx.GraphModule)
                for node in module.graph.nodes if node.op == "call_function")
    if not needs or any(isinstance(x, torch._subclasses.FakeTensor) for x in example_inputs):
        return example_inputs
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    mode = FakeTensorMode(shape_env=ShapeEnv())
    return [mode.from_tensor(x, static_shapes=True) if isinstance(x, torch.Tensor) else x for x in example_inputs]


def _run_as_is(gm: Any, example_inputs: list[Any], kind: str) -> Callable[..., Any]:
    return gm.forward


def aot_eager(gm: Any, example_inputs: list[Any]) -> CompiledFunction:
    """Forward and backward ATen graphs from AOTAutograd, each run as it is (no decompositions).

    Partitioned by min-cut, as torch's own ``aot_eager`` and ``triton`` are: the default partitioner
    leaves a dead copy of a forward's random op (the ``native_dropout`` inside attention) in the
    backward graph, which draws from the generator there and shifts every later dropout mask.
    """
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    return aot_compile(
        gm,
        example_inputs,
        backend="aot_eager",
        compile_graph=_run_as_is,
        partition_fn=min_cut_rematerialization_partition,
        keep_input_mutations=True,
    )
