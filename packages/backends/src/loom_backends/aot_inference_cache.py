"""Inference entries of the AOTAutograd cache: the one-trace path's ATen graph kept on disk, so that a second
process compiling the same graph neither fakes its inputs nor traces it (no ``FakeTensorMode``, no
``make_fx``), and another process can rebuild the compiled function from its key alone
(:mod:`loom_backends.aot_reload`).

A graph that needs no autograd is traced once by :func:`loom_backends.inference.trace_inference` and its
ATen graph compiled as an ``"inference"`` graph. That graph depends only on the captured graph, its
inputs' metadata and the state the one trace reads, so an entry keyed by them serves it:

- **The key** (:func:`key_for`) is :func:`loom_backends.aot_cache.entry_key` of kind ``"inference"``
  (the captured graph, each input's metadata with ``requires_grad`` and ``is_leaf``, the generator, the
  versions and configs) with grad mode, inference mode and which inputs are inference tensors. It is
  asked for only when :func:`loom_backends.inference.may_skip_metadata` holds (grad mode off or no input
  requiring grad, autocast off, plain dense tensors in, no parameters, attributes or sub-graphs), so a key
  never names an inference entry where a training graph is needed: grad mode and every input's
  ``requires_grad`` are in it, and a training key is of another kind. Two inputs sharing storage, or a
  call inside a functorch transform, are not served (``bypassed``).
- **The entry** (``<cache root>/aot/<key>.json``, tensor constants in ``<key>.pt``, as training entries):
  the inference graph as node records (:mod:`loom_backends.fx_serial`) and its graph cache key. It is
  stored right after the graph is compiled, and only when the one trace succeeded (so whatever the trace
  checks — no input mutated, only plain ATen ops — held for this key) and the compiled graph is in the
  graph cache.
- **A hit** rebuilds the graph from its records, takes its compiled version from the graph cache alone
  (``AotCache.load_graph``) and runs it with grad mode off, as the one-trace path does.
"""

from __future__ import annotations

import logging
from typing import Any

import torch

from . import aot_cache, fx_serial, graph_cache
from .aot_cache import AotCache, Replayed
from .compiled import GraphArtifact
from .inference import InferenceTrace, may_skip_metadata, run_without_grad

log = logging.getLogger("loom.aot_cache")


def key_for(gm: torch.fx.GraphModule, example_inputs: list[Any], generator: str) -> str | None:
    """The key of the inference entry for ``gm`` at ``example_inputs``; None when the cache is off or the
    graph needs more than the one trace (silently: AOTAutograd's path then counts it), or when it is not
    one this cache serves (counted as ``bypassed``)."""
    if not aot_cache.enabled() or not may_skip_metadata(gm, example_inputs):
        return None
    try:
        why = _why_not_served(example_inputs)
        if why is None:
            return aot_cache.entry_key("inference", gm, example_inputs, generator, _context(example_inputs))
    except Exception as exc:  # Uncacheable, or a graph this walk did not expect
        why = f"{type(exc).__name__}: {exc}"
    _bypass(why)
    return None


def _why_not_served(example_inputs: list[Any]) -> str | None:
    from torch.multiprocessing.reductions import StorageWeakRef

    storages = {StorageWeakRef(x.untyped_storage()) for x in example_inputs}
    if len(storages) != len(example_inputs):
        return "two inputs share storage"
    if torch._C._functorch.peek_interpreter_stack() is not None:
        return "inside a functorch transform"
    return None


def _context(example_inputs: list[Any]) -> tuple[str, ...]:
    """The state the one trace reads besides the graph and its inputs' metadata."""
    return (
        f"grad mode {torch.is_grad_enabled()}",
        f"inference mode {torch.is_inference_mode_enabled()}",
        f"inference tensors {[x.is_inference() for x in example_inputs]}",
    )


def _bypass(why: str) -> None:
    aot_cache.count("bypassed")
    log.debug("inference graph not cached: %s", why)


def lookup(gm: torch.fx.GraphModule, example_inputs: list[Any], cache: AotCache) -> tuple[str | None, Replayed | None]:
    """For :func:`loom_backends.aot.aot_compile`, before the one trace: the inference entry's key (None
    when the cache does not serve the graph) and the compiled function it holds (None on a miss)."""
    with graph_cache.real_tensors():
        key = key_for(gm, example_inputs, cache.generator)
        if key is None:
            return None, None
        found = aot_cache.read_entry(key, "inference")
        return key, (None if found is None else rebuild(key, *found, cache))


def rebuild(key: str, entry: dict[str, Any], tensors: list[torch.Tensor], cache: AotCache) -> Replayed | None:
    """The compiled function of the inference entry ``entry`` (read under ``key``), run with grad mode off;
    None (counted as ``ignored``) when it does not rebuild or its compiled graph is gone. Call it where no
    fake mode is active."""
    try:
        gm = fx_serial.from_records(entry["inference"]["graph"], tensors)
        compiled = cache.load_graph(gm, entry["inference"]["key"], "inference")
    except Exception as exc:  # a damaged or stale entry: the one trace again
        graph_cache.ignore(key, f"{type(exc).__name__}: {exc}", aot_cache.count)
        return None
    if compiled is None:
        graph_cache.ignore(key, "its compiled graph is not in the graph cache", aot_cache.count)
        return None
    aot_cache.count("hits")
    log.debug("inference graph from the AOTAutograd cache (%s)", key)
    return Replayed(run_without_grad(compiled), [GraphArtifact("inference", gm, compiled)], key)


def store(key: str, trace: InferenceTrace, cache: AotCache) -> bool:
    """Store the one trace's graph under ``key`` once its compiled version is in the graph cache; whether
    it was stored (a graph that cannot be, counted as ``bypassed``; never raises)."""
    try:
        with graph_cache.real_tensors():
            graph_key = graph_cache.key_for(trace.graph_module, list(trace.example_inputs), "inference",
                                            cache.generator)  # fmt: skip
            if graph_key is None:
                why = "the inference graph has no graph cache key"
            elif not (graph_cache.cache_dir() / f"{graph_key}.json").exists():
                why = "its compiled graph is not in the graph cache"
            else:
                records, tensors = fx_serial.to_records(trace.graph_module)
                entry = {
                    "kind": "inference",
                    "generator": cache.generator,
                    "environment": aot_cache.environment(),
                    "inference": {"graph": records, "key": graph_key},
                }
                return graph_cache.store(key, entry, tensors, directory=aot_cache.cache_dir(),
                                         tally=aot_cache.count, fmt=aot_cache.FORMAT)  # fmt: skip
    except Exception as exc:  # whatever this did not expect: not cached
        why = f"{type(exc).__name__}: {exc}"
    _bypass(why)
    return False
