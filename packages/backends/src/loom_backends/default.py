"""The ``default`` backend: the code generator for the graph's device, as torch.compile's default picks
inductor's C++ or Triton by device.

It looks at the devices of the graph's example inputs (else of the values its nodes computed) when the
graph is compiled and hands the graph to the backend :data:`DEVICE_BACKENDS` names for that device type,
looked up by name in the registry at that moment (so a generator registered later is picked up):

- ``cpu`` → ``c`` (loom's C kernels with OpenMP), ``cuda`` → ``triton``;
- a graph on a device with no generator (``mps``, ``meta``, ...), on several device types at once, or
  with no tensor at all runs as captured (``eager``): correct, nothing generated;
- a generator that is not registered in this install: one :class:`~loom_backends.CompilerWarning` per
  missing name, and the graph runs as captured.

0-d CPU tensors next to tensors on another device do not count (they are scalars to every generator).
"""

from __future__ import annotations

import threading
import warnings
from typing import Any

from . import registry
from .diagnostics import CompilerWarning

#: Device type → the registered backend that generates code for it.
DEVICE_BACKENDS: dict[str, str] = {"cpu": "c", "cuda": "triton"}

#: What a graph runs with when no generator applies (see the module docstring).
NO_GENERATOR = "eager"

_warned: set[str] = set()
_lock = threading.Lock()


def default_backend(gm: Any, example_inputs: list[Any]) -> Any:
    """Compile ``gm`` with the backend :func:`backend_for` picks for ``example_inputs``."""
    name = backend_for(gm, example_inputs)
    return registry.get(name)(gm, example_inputs)


def default_reload(key: str) -> Any:
    """The compiled function the ``default`` backend returned with ``cache_key`` ``key``: what the first of
    the :data:`DEVICE_BACKENDS` with a reloader gives back for it (the key names its generator's entry),
    else None."""
    for name in dict.fromkeys(DEVICE_BACKENDS.values()):
        if name in registry.names():  # a backend without a reloader gives None
            found = registry.reload(name, key)
            if found is not None:
                return found
    return None


def backend_for(gm: Any, example_inputs: list[Any]) -> str:
    """The registered backend name the ``default`` backend uses for this graph (see the module docstring)."""
    device_types = graph_device_types(gm, example_inputs)
    if len(device_types) != 1:
        return NO_GENERATOR
    (device_type,) = device_types
    name = DEVICE_BACKENDS.get(device_type)
    if name is None:
        return NO_GENERATOR
    if name not in registry.names():
        _warn_missing(name, device_type)
        return NO_GENERATOR
    return name


def graph_device_types(gm: Any, example_inputs: list[Any]) -> set[str]:
    """Device types of the graph's tensors: its inputs' (FakeTensors included), else the ``val`` its nodes
    recorded (a graph that only creates tensors); a 0-d CPU tensor counts only if nothing else does."""
    import torch

    tensors = [value for value in example_inputs if isinstance(value, torch.Tensor)]
    if not tensors:
        graph = getattr(gm, "graph", None)
        for node in getattr(graph, "nodes", ()):
            value = node.meta.get("val")
            values = value if isinstance(value, (list, tuple)) else (value,)
            tensors.extend(v for v in values if isinstance(v, torch.Tensor))
    types = {t.device.type for t in tensors}
    if len(types) > 1 and "cpu" in types and all(t.device.type != "cpu" or t.dim() == 0 for t in tensors):
        types.discard("cpu")
    return types


def _warn_missing(name: str, device_type: str) -> None:
    with _lock:
        if name in _warned:
            return
        _warned.add(name)
    warnings.warn(
        f"loom's default backend compiles {device_type} graphs with backend {name!r}, which is not registered "
        f"in this install; they run as captured (backend {NO_GENERATOR!r}): correct, not faster",
        CompilerWarning,
        stacklevel=3,
    )
