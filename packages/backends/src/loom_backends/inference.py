"""The inference graph in one trace: what AOTAutograd builds for a graph that needs no autograd, without
its metadata pass.

AOTAutograd traces every graph twice. The first trace collects metadata (which inputs are mutated, which
outputs alias what, whether any output requires grad); the second builds the ATen graph with it. For a
graph that needs no backward and mutates none of its inputs, that metadata changes nothing: the second
trace alone is the graph. :func:`trace_inference` runs it alone, with AOTAutograd's own machinery (fake
inputs, ``FunctionalTensorMode``, the Python dispatcher, the backend's decompositions, dead-code
elimination), so the graph compiler receives the graph AOTAutograd would have handed it; it costs about
half of the two traces. Whenever the graph turns out to need more (it mutates an input, turns grad mode
on, calls a higher-order op or an op outside ``aten``/``prims``, the trace fails), it returns None and the
caller takes AOTAutograd's full path, which handles every case.

"Needs no backward" is AOTAutograd's own first test: grad mode is off, or no tensor input requires grad.
The compiled graph runs with grad mode off, as AOTAutograd runs an inference graph.
"""

from __future__ import annotations

import contextlib
import logging
import operator
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("loom_backends.inference")

#: Namespaces of the ops an inference graph may hold (AOTAutograd's full path takes any other graph).
_PLAIN_NAMESPACES = frozenset({"aten", "prims"})


@dataclass
class InferenceTrace:
    """A functional ATen graph of a graph that needs no autograd, and the fake inputs it was traced with."""

    graph_module: Any  # torch.fx.GraphModule
    example_inputs: list[Any]


def trace_inference(
    gm: Any, example_inputs: list[Any], decompositions: Mapping[Any, Callable[..., Any]] | None = None
) -> InferenceTrace | None:
    """The inference graph of ``gm`` (which returns a flat tuple) in one trace, or None when ``gm`` needs
    AOTAutograd's full path (see the module docstring)."""
    if not may_skip_metadata(gm, example_inputs):
        return None
    try:
        traced, fakes = _trace(gm, example_inputs, decompositions)
    except Exception as exc:  # whatever the one trace cannot do, AOTAutograd's full path does
        log.debug("one-trace inference path declined: %s: %s", type(exc).__name__, exc)
        return None
    unusual = _first_unusual_node(traced)
    if unusual is not None:
        log.debug("one-trace inference path declined: the graph calls %s", unusual)
        return None
    return InferenceTrace(traced, fakes)


def run_without_grad(compiled: Callable[..., Any]) -> Callable[..., Any]:
    """``compiled`` called with grad mode off, as AOTAutograd calls an inference graph."""
    import torch

    set_grad_enabled = torch._C._set_grad_enabled
    is_grad_enabled = torch.is_grad_enabled

    def run_inference_graph(*args: Any) -> Any:
        if not is_grad_enabled():
            return compiled(*args)
        set_grad_enabled(False)
        try:
            outputs = compiled(*args)
        finally:
            set_grad_enabled(True)
        return _views_made_with_grad(outputs)

    return run_inference_graph


def _views_made_with_grad(outputs: Any) -> Any:
    """``outputs`` with each view among them made again, now that grad mode is back on: a view made under
    ``no_grad`` is marked so, and autograd refuses to use it once its base is changed in place, which eager's
    view (made with grad mode on) allows (``c = x.clone(); v = c[:2]; c.requires_grad_(); c.mul_(10)`` under
    ``no_grad``, then ``v * 1``)."""
    import torch

    def is_view(o: Any) -> bool:
        # a view of another dtype (c.real, view_as_real) is left as made: as_strided cannot change dtype
        return isinstance(o, torch.Tensor) and o._is_view() and o.dtype == o._base.dtype

    if not isinstance(outputs, (list, tuple)) or not any(is_view(o) for o in outputs):
        return outputs
    made = [o._base.as_strided(o.size(), o.stride(), o.storage_offset()) if is_view(o) else o for o in outputs]
    return type(outputs)(made) if isinstance(outputs, tuple) else made


def may_skip_metadata(gm: Any, example_inputs: list[Any]) -> bool:
    """Whether ``gm`` may take the one trace, as far as can be told before tracing: plain dense real
    tensors in, no autograd needed, no autocast, no sub-graphs or tensor attributes, no grad-mode switch
    inside that could make outputs require grad (also what the AOTAutograd cache's inference entries
    require, :mod:`loom_backends.aot_inference_cache`)."""
    import torch

    tensors = []
    for value in example_inputs:
        if type(value) is not torch.Tensor and type(value) is not torch.nn.Parameter:
            return False  # fakes and SymInts (dynamic shapes), numbers, subclasses: the full path
        if value.layout is not torch.strided or value.is_quantized or value.is_nested:
            return False
        tensors.append(value)
    if torch._C._is_any_autocast_enabled():
        return False  # AOTAutograd turns autocast off around a graph traced under it
    requires_grad = any(t.requires_grad for t in tensors)
    if requires_grad and torch.is_grad_enabled():
        return False
    if any(True for _ in gm.parameters()) or any(True for _ in gm.buffers()):
        return False
    for node in gm.graph.nodes:
        if node.op == "get_attr" or node.op == "call_module":
            return False
        if node.op == "call_function":
            if isinstance(node.target, torch._ops.HigherOrderOperator):
                return False
            if requires_grad and node.target is torch._C._set_grad_enabled:
                return False  # outputs may require grad: a training graph
    return True


def _trace(
    gm: Any, example_inputs: list[Any], decompositions: Mapping[Any, Callable[..., Any]] | None
) -> tuple[Any, list[Any]]:
    """Fake the inputs, then trace ``gm`` functionalised to ATen, as AOTAutograd's graph trace does."""
    from torch._dispatch.python import enable_python_dispatcher
    from torch._functorch._aot_autograd.functional_utils import from_fun, to_fun
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch._subclasses.functional_tensor import FunctionalTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx

    fake_mode, fakes = _traced_fakes(gm, example_inputs)
    if fake_mode is None:
        fake_mode = FakeTensorMode()
        fakes = [fake_mode.from_tensor(value, static_shapes=True) for value in example_inputs]

    def functional(*args: Any) -> list[Any]:
        inputs = [to_fun(arg) for arg in args]
        outputs = gm(*inputs)
        for value in inputs:
            _raise_if_mutated(value)
        return [from_fun(out) for out in outputs]

    with _rng_state_kept(), fake_mode, enable_python_dispatcher(), FunctionalTensorMode():
        traced = make_fx(functional, decomposition_table=dict(decompositions or {}))(*fakes)
    traced.graph.eliminate_dead_code()
    traced.recompile()
    return traced, fakes


def _traced_fakes(gm: Any, example_inputs: list[Any]) -> tuple[Any, list[Any]]:
    """The fake mode and fakes the graph's placeholders recorded (``meta["val"]``) when the capture left
    them and they describe ``example_inputs`` exactly (as Dynamo hands AOTAutograd its own fakes); else
    ``(None, [])``. Reusing them spares faking every input again, and a capture's mode may answer common
    ops faster than a fresh one."""
    from torch._subclasses.fake_tensor import FakeTensor

    placeholders = [node for node in gm.graph.nodes if node.op == "placeholder"]
    fakes = [node.meta.get("val") for node in placeholders]
    if len(fakes) != len(example_inputs) or not fakes:
        return None, []
    mode = getattr(fakes[0], "fake_mode", None)
    if mode is None or mode.shape_env is not None:
        return None, []
    for fake, real in zip(fakes, example_inputs):
        if not isinstance(fake, FakeTensor) or fake.fake_mode is not mode or not _same_metadata(fake, real):
            return None, []
    return mode, fakes


def _same_metadata(fake: Any, real: Any) -> bool:
    return (fake.shape == real.shape and fake.stride() == real.stride()
            and fake.storage_offset() == real.storage_offset() and fake.dtype == real.dtype
            and fake.device == real.device and fake.requires_grad == real.requires_grad
            and fake.layout == real.layout)


class _InputMutated(Exception):
    """The graph writes one of its inputs (data, metadata or storage): AOTAutograd's full path handles it."""


def _raise_if_mutated(value: Any) -> None:
    import torch
    from torch._functorch._aot_autograd.functional_utils import sync_functional_tensor

    sync_functional_tensor(value)
    inner = value.elem
    if (torch._functionalize_has_data_mutation(inner) or torch._functionalize_has_metadata_mutation(inner)
            or torch._functionalize_was_storage_changed(inner)):
        raise _InputMutated("the graph mutates an input")


def _first_unusual_node(traced: Any) -> str | None:
    """The first node AOTAutograd's full path would treat specially (a mutating op, an op outside
    ``aten``/``prims``: effects, streams, custom ops), else None."""
    import torch

    for node in traced.graph.nodes:
        if node.op != "call_function" or node.target is operator.getitem:
            continue
        target = node.target
        if not isinstance(target, torch._ops.OpOverload) or target.namespace not in _PLAIN_NAMESPACES:
            return str(target)
        if target._schema.is_mutable:
            return str(target)
    return None


@contextlib.contextmanager
def _rng_state_kept() -> Iterator[None]:
    """Random generators' states as they were (fake ops draw nothing; a decomposition might)."""
    import torch

    cpu = torch.random.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
    try:
        yield
    finally:
        torch.random.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)
