"""A disk cache of AOTAutograd's result for the kernel backends' training graphs, so that a second process
neither traces the joint forward-backward graph nor partitions it.

AOTAutograd turns a captured graph that needs a backward into a forward and a backward ATen graph and
wraps their compiled versions in a ``torch.autograd.Function``. Both graphs depend only on the captured
graph, its inputs' metadata and the settings below, so this cache keeps them on disk and, in another
process, rebuilds that autograd function from them and the graph cache's compiled graphs.

- **The key** (:func:`key_for`, through :func:`entry_key`, which inference entries share) hashes the
  entry's kind, the captured graph with the graph cache's pieces
  (:func:`loom_backends.graph_cache.graph_lines`: every node, its target by name, arguments by type and
  exact text), each input's dtype, device, sizes, strides, offset, ``requires_grad`` and ``is_leaf``, the
  generator, :data:`loom_backends.kernels.config.config`, functorch's config, the default dtype, the
  deterministic-algorithms flag and the versions of Python, torch, sympy and loom_backends.
- **Inference entries** (a graph that needs no autograd, compiled by the one-trace path of
  :mod:`loom_backends.inference`) live beside the training ones: :mod:`loom_backends.aot_inference_cache`.
  Every entry names its kind, its generator and a digest of its environment (:func:`environment`), so
  that :mod:`loom_backends.aot_reload` can rebuild it from its key alone, in another process.
- **The entry** (``<cache root>/aot/<key>.json``, tensor constants in ``<key>.pt``): the forward and
  backward graphs as node records (:mod:`loom_backends.fx_serial`, no pickle), each with its graph cache
  key; how many outputs the forward returns to the caller (the rest are saved for backward); which inputs
  it mutates (their new values come first) and which outputs AOTAutograd makes fresh with
  ``aten._unsafe_view``, both from AOTAutograd's own metadata (:mod:`loom_backends.aot_meta`); the size
  and stride each incoming gradient is given before the backward runs (AOTAutograd's tangent
  coercion); which inputs are detached first. It is stored when AOTAutograd compiles the backward (at
  the first backward call), and only when both compiled graphs are in the graph cache.
- **Served only when the rebuild is exact**: plain dense tensors in (no subclass, fake or symbolic size,
  no two sharing storage), grad mode on and some input requiring grad, no autocast, inference mode,
  saved-tensor hooks or functorch transform around it, no parameters, attributes, sub-graphs or
  state-changing calls (grad mode, autocast, RNG state, ``set_``) in the graph; and, as AOTAutograd
  compiled it (its ``ViewAndMutationMeta``): input mutations of data only, after the forward, of inputs
  that need no gradient (batch norm's running statistics: copied back with ``copy_`` after the forward,
  as AOTAutograd's runtime does); no intermediate base, effect token or RNG-state input; every output
  one AOTAutograd returns as it is (a fresh tensor, or a view it does not regenerate) or makes fresh
  with ``_unsafe_view``, and that gets a gradient; only tensors saved for backward. Anything else — a
  metadata mutation, a mutated input that needs a gradient, an output that is an input or a view
  AOTAutograd regenerates from its base — takes AOTAutograd's full path every time (``bypassed``, a
  DEBUG line on ``loom.aot_cache`` naming it). Random ops are served: the cached forward is the graph
  AOTAutograd would build, so it draws from the generators as that one does.
- **Safety** as in the graph cache: atomic writes; an entry that does not parse, does not rebuild, or
  whose compiled graphs are gone is ignored (``ignored``) and the graph compiled through AOTAutograd.
  ``LOOM_GRAPH_CACHE=0`` or ``LOOM_AOT_CACHE=0`` turns it off.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from . import aot_checks, aot_meta, c_toolchain, fx_serial, graph_cache
from .aot_replay import Plan, replayed_function
from .cache_counts import CacheCounts, switched_off
from .compiled import GraphArtifact

log = logging.getLogger("loom.aot_cache")

#: Bump when what an entry holds, or how it is replayed, changes.
FORMAT = 3

_counts = CacheCounts()

#: Calls that change state AOTAutograd restores or specialises on (their names contain one of these).
_STATEFUL = ("grad_enabled", "autocast", "inference_mode", "rng_state", "manual_seed", "seed", "set_")


@dataclass(frozen=True)
class AotCache:
    """What a kernel backend gives :func:`loom_backends.aot.aot_compile` to cache AOTAutograd's result:
    its generator's name in the graph cache, and ``load_graph(gm, key, kind)``, its compiled graph from
    the graph cache alone (None when the entry is missing or unusable)."""

    generator: str
    load_graph: Callable[[torch.fx.GraphModule, str, str], Any]


@dataclass
class Replayed:
    """A cache hit: the function to call with the graph's inputs, the graphs it runs, the entry's key."""

    fn: Callable[..., Any]
    artifacts: list[GraphArtifact]
    key: str | None = None


def enabled() -> bool:
    """Whether the cache is used: the graph cache is on and ``LOOM_AOT_CACHE`` is not ``0``/``false``/..."""
    return graph_cache.enabled() and not switched_off("LOOM_AOT_CACHE")


def cache_dir() -> Path:
    """``<cache root>/aot``; read at every call."""
    return c_toolchain.cache_root() / "aot"


def stats() -> dict[str, int]:
    """This process's counts: ``hits``, ``misses``, ``stored``, ``bypassed`` and ``ignored``."""
    return _counts.stats()


def count(name: str) -> None:
    """Add one to a count of :func:`stats`."""
    _counts.count(name)


def _bypass(why: str) -> None:
    count("bypassed")
    log.debug("training graph not cached: %s", why)


# --- the key -----------------------------------------------------------------------------------------


def key_for(gm: torch.fx.GraphModule, example_inputs: list[Any], generator: str) -> str | None:
    """The key of AOTAutograd's result for ``gm`` at ``example_inputs``; None (counted as ``bypassed``
    unless the cache is off) when the graph is not one this cache serves."""
    if not enabled():
        return None
    try:
        why = _why_not_served(gm, example_inputs)
        if why is None:
            return entry_key("training", gm, example_inputs, generator)
    except Exception as exc:  # Uncacheable, or a graph this walk did not expect
        why = f"{type(exc).__name__}: {exc}"
    _bypass(why)
    return None


def entry_key(
    kind: str, gm: torch.fx.GraphModule, example_inputs: list[Any], generator: str, context: tuple[str, ...] = ()
) -> str:
    """The key of a ``kind`` entry (``"training"``, ``"inference"``) for ``gm`` at ``example_inputs``:
    the entry's kind, the generator, :func:`environment_parts`, what else the entry depends on
    (``context``), each input with its ``requires_grad`` and ``is_leaf``, every node of the graph.
    :class:`~loom_backends.graph_cache.Uncacheable` when the graph or an input cannot be described."""
    parts = [
        f"aot format {FORMAT}", f"entry {kind}", f"generator {generator}", *environment_parts(), *context,
        *(f"input {graph_cache.input_text(x)} {x.requires_grad} {x.is_leaf}" for x in example_inputs),
        *graph_cache.graph_lines(gm, named_callables=True),
    ]  # fmt: skip
    return graph_cache.digest(parts)


def environment_parts() -> list[str]:
    """What every entry depends on besides its graph and inputs: the versions of Python, torch, sympy and
    loom_backends, :data:`loom_backends.kernels.config.config`, functorch's config, the default dtype and
    the deterministic-algorithms flag."""
    import torch._functorch.config as functorch_config

    return [
        graph_cache.versions(), graph_cache.config_text(),
        f"functorch {sorted((k, repr(v)) for k, v in functorch_config.get_config_copy().items())}",
        f"default dtype {torch.get_default_dtype()}",
        f"deterministic {torch.are_deterministic_algorithms_enabled()}",
    ]  # fmt: skip


def environment() -> str:
    """A digest of :func:`environment_parts`: stored in every entry, so that one reloaded by its key
    alone (:mod:`loom_backends.aot_reload`) in a process whose versions or config differ is ignored."""
    return graph_cache.digest(environment_parts())


def _why_not_served(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> str | None:
    from torch.multiprocessing.reductions import StorageWeakRef

    storages = set()
    for x in example_inputs:
        if type(x) is not torch.Tensor and type(x) is not torch.nn.Parameter:
            return f"an input of type {type(x).__name__}"
        if x.layout is not torch.strided or x.is_quantized or x.is_nested:
            return "an input that is not a dense tensor"
        storage = StorageWeakRef(x.untyped_storage())
        if storage in storages:
            return "two inputs share storage"
        storages.add(storage)
    if not torch.is_grad_enabled() or not any(x.requires_grad for x in example_inputs):
        return "no input needs a gradient"
    if torch.is_inference_mode_enabled() or torch._C._is_any_autocast_enabled():
        return "inference mode or autocast is on"
    if torch._C._autograd._top_saved_tensors_default_hooks(False) is not None:
        return "saved-tensor hooks are active"
    if torch._C._functorch.peek_interpreter_stack() is not None:
        return "inside a functorch transform"
    if any(True for _ in gm.parameters()) or any(True for _ in gm.buffers()):
        return "the graph holds parameters or buffers"
    for node in gm.graph.nodes:
        if node.op in ("get_attr", "call_module"):
            return f"a {node.op} node"
        if isinstance(node.target, torch._ops.HigherOrderOperator):
            return f"a call to {node.target.name()}"
        name = node.target if isinstance(node.target, str) else getattr(node.target, "__name__", "")
        if node.op != "placeholder" and any(word in str(name) for word in _STATEFUL):
            return f"a state-changing call {name}"
    return None


# --- a hit -------------------------------------------------------------------------------------------


def load(key: str, cache: AotCache) -> Replayed | None:
    """The autograd function rebuilt from the entry under ``key``; None on a miss or an entry that cannot
    be used (counted as ``misses`` / ``ignored``)."""
    with graph_cache.real_tensors():
        found = read_entry(key, "training")
        return None if found is None else replay(key, *found, cache)


def read_entry(key: str, kind: str | None = None) -> tuple[dict[str, Any], list[torch.Tensor]] | None:
    """The entry under ``key`` and its tensors, when it is a ``kind`` entry (any kind when None); None on
    a miss or an entry that cannot be read or is of another kind (counted as ``misses`` / ``ignored``).
    Call it where no fake mode is active (:func:`loom_backends.graph_cache.real_tensors`)."""
    found = graph_cache.load(key, directory=cache_dir(), tally=count, fmt=FORMAT)
    if found is not None and kind is not None and found[0].get("kind") != kind:
        graph_cache.ignore(key, f"not a {kind} entry", count)
        return None
    return found


def replay(key: str, entry: dict[str, Any], tensors: list[torch.Tensor], cache: AotCache) -> Replayed | None:
    """The autograd function rebuilt from the training entry ``entry`` (read under ``key``); None (counted
    as ``ignored``) when it does not rebuild or a compiled graph it names is gone. Call it where no fake
    mode is active."""
    try:
        fw_gm = fx_serial.from_records(entry["forward"]["graph"], tensors)
        bw_gm = fx_serial.from_records(entry["backward"]["graph"], tensors)
        plan = Plan.from_json(entry["plan"])
        fw = cache.load_graph(fw_gm, entry["forward"]["key"], "forward")
        bw = cache.load_graph(bw_gm, entry["backward"]["key"], "backward") if fw is not None else None
    except Exception as exc:  # a damaged or stale entry: AOTAutograd's full path
        graph_cache.ignore(key, f"{type(exc).__name__}: {exc}", count)
        return None
    if fw is None or bw is None:
        graph_cache.ignore(key, "a compiled graph it names is not in the graph cache", count)
        return None
    count("hits")
    log.debug("training graph from the AOTAutograd cache (%s)", key)
    fn = replayed_function(_boxed(fw), _boxed(bw), plan)
    return Replayed(fn, [GraphArtifact("forward", fw_gm, fw), GraphArtifact("backward", bw_gm, bw)], key)


def _boxed(compiled: Any) -> Callable[[list[Any]], Any]:
    boxed = getattr(compiled, "boxed", None)
    if boxed is not None:
        return boxed()
    return lambda args: compiled(*args)


# --- a miss: what AOTAutograd did, recorded -------------------------------------------------------------


class Recorder:
    """Watches one AOTAutograd compile (its partitioner and graph compilers) and stores its result under
    ``key`` once the backward is compiled, when it is a case :func:`load` rebuilds exactly."""

    def __init__(
        self, key: str, cache: AotCache, gm: torch.fx.GraphModule, example_inputs: list[Any]
    ) -> None:
        self.key = key
        self.cache = cache
        output = next(n for n in reversed(gm.graph.nodes) if n.op == "output")
        self.num_outputs = len(output.args[0])
        self.inputs = [(x.requires_grad, x.is_leaf) for x in example_inputs]
        self.num_fwd_outputs: int | None = None
        self.forward: dict[str, Any] | None = None
        self.replayable: aot_meta.Replayable | None = None
        self.done = False

    def watch_partition(self, partition_fn: Callable[..., Any]) -> Callable[..., Any]:
        """``partition_fn``, noting how many forward outputs AOTAutograd asks it for."""

        def partition(joint_module: Any, joint_inputs: Any, **kwargs: Any) -> Any:
            self.num_fwd_outputs = kwargs.get("num_fwd_outputs")
            return partition_fn(joint_module, joint_inputs, **kwargs)

        return partition

    def compiled(self, kind: str, gm: torch.fx.GraphModule, inputs: list[Any]) -> None:
        """AOTAutograd compiled ``gm`` as a ``kind`` graph; never raises."""
        if self.done:
            return
        try:
            why = self._forward(gm, inputs) if kind == "forward" else self._backward(gm, inputs, kind)
        except Exception as exc:  # whatever this did not expect: not cached
            why = f"{type(exc).__name__}: {exc}"
        if why is not None:
            self.done = True
            _bypass(why)

    def _forward(self, gm: torch.fx.GraphModule, inputs: list[Any]) -> str | None:
        meta = aot_meta.compiling_metadata()
        replayable = aot_checks.forward_problem(gm, inputs, self.num_outputs, self.num_fwd_outputs, meta)
        if isinstance(replayable, str):
            return replayable
        self.replayable = replayable
        self.forward = self._graph(gm, inputs, "forward")
        return None

    def _backward(self, gm: torch.fx.GraphModule, inputs: list[Any], kind: str) -> str | None:
        self.done = True
        if kind != "backward" or self.forward is None or self.replayable is None:
            return f"AOTAutograd compiled a {kind} graph"
        checked = aot_checks.backward_plan(self.forward["module"], gm, inputs, self.num_outputs, self.inputs,
                                           self.replayable)  # fmt: skip
        if isinstance(checked, str):
            return checked
        backward = self._graph(gm, inputs, "backward")
        forward = self.forward
        if not all((graph_cache.cache_dir() / f"{g['key']}.json").exists() for g in (forward, backward)):
            return "a compiled graph is not in the graph cache"
        offset = len(forward["tensors"])
        for record in backward["graph"]:
            if "tensor" in record:
                record["tensor"] += offset
        entry = {
            "kind": "training",
            "generator": self.cache.generator,
            "environment": environment(),
            "forward": {"graph": forward["graph"], "key": forward["key"]},
            "backward": {"graph": backward["graph"], "key": backward["key"]},
            "plan": checked.to_json(),
        }
        with graph_cache.real_tensors():
            graph_cache.store(self.key, entry, forward["tensors"] + backward["tensors"], directory=cache_dir(),
                              tally=count, fmt=FORMAT)  # fmt: skip
        return None

    def _graph(self, gm: torch.fx.GraphModule, inputs: list[Any], kind: str) -> dict[str, Any]:
        with graph_cache.real_tensors():
            key = graph_cache.key_for(gm, inputs, kind, self.cache.generator)
            if key is None:
                raise graph_cache.Uncacheable(f"the {kind} graph has no graph cache key")
            records, tensors = fx_serial.to_records(gm)
        return {"graph": records, "tensors": tensors, "key": key, "module": gm}


def start(gm: torch.fx.GraphModule, example_inputs: list[Any], cache: AotCache) -> Replayed | Recorder | None:
    """For :func:`loom_backends.aot.aot_compile`: the cached result (a hit), a :class:`Recorder` to store
    what AOTAutograd makes (a miss), or None (the cache is off or does not serve this graph)."""
    with graph_cache.real_tensors():
        key = key_for(gm, example_inputs, cache.generator)
    if key is None:
        return None
    found = load(key, cache)
    return found if found is not None else Recorder(key, cache, gm, example_inputs)
