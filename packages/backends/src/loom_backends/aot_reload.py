"""A compiled function rebuilt from its AOTAutograd cache key alone, in any process: what a kernel backend's
reloader (:func:`loom_backends.reload`) does with the ``cache_key`` its compile returned.

The key names an entry of :mod:`loom_backends.aot_cache` (a training graph: the forward and backward
replayed in a ``torch.autograd.Function``) or of :mod:`loom_backends.aot_inference_cache` (an inference
graph, run with grad mode off). Rebuilding it needs neither the captured graph nor its inputs: the entry
holds the ATen graphs, and their compiled versions come from the graph cache. Nothing here fakes a
tensor or traces a graph, so ``torch._dynamo`` is not imported.

The key was computed in the process that compiled the graph, over the versions and configs it ran with;
an entry whose recorded environment (:func:`loom_backends.aot_cache.environment`) or generator differs
from this process's is ignored, as is one that does not parse or whose compiled graphs are gone.
"""

from __future__ import annotations

import re

from . import aot_cache, aot_inference_cache, graph_cache
from .aot_cache import AotCache, Replayed

#: What a key looks like (:func:`loom_backends.graph_cache.digest`): it becomes a file name.
_KEY = re.compile(r"[0-9a-f]{40}")


def check_key(key: object) -> str:
    """``key`` when it is a cache key; TypeError for a non-str, ValueError for any other string."""
    if not isinstance(key, str):
        raise TypeError(f"a cache key must be a str, got {type(key).__name__}")
    if not _KEY.fullmatch(key):
        raise ValueError(f"not a loom cache key: {key!r}")
    return key


def reload(key: str, cache: AotCache) -> Replayed | None:
    """The compiled function of the entry under ``key`` for the generator of ``cache``; None when the
    cache is off, the entry is missing (counted as ``misses``), or it does not parse, was written for
    another generator or environment, or names a compiled graph that is gone (``ignored``)."""
    check_key(key)
    if not aot_cache.enabled():
        return None
    with graph_cache.real_tensors():
        found = aot_cache.read_entry(key)
        if found is None:
            return None
        entry, tensors = found
        kind = entry.get("kind")
        if entry.get("generator") != cache.generator:
            why = f"an entry of generator {entry.get('generator')!r}"
        elif entry.get("environment") != aot_cache.environment():
            why = "written by other versions or configs"
        elif kind == "training":
            return aot_cache.replay(key, entry, tensors, cache)
        elif kind == "inference":
            return aot_inference_cache.rebuild(key, entry, tensors, cache)
        else:
            why = f"an entry of kind {kind!r}"
    graph_cache.ignore(key, why, aot_cache.count)
    return None
