"""Small helpers on the FX graphs backends receive: argument checks and output normalisation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def check_backend_args(gm: Any, example_inputs: Any) -> None:
    """Raise :class:`TypeError` unless ``gm`` is a GraphModule and ``example_inputs`` a list or tuple."""
    import torch.fx

    if not isinstance(gm, torch.fx.GraphModule):
        raise TypeError(f"a backend takes a torch.fx.GraphModule, got {type(gm).__name__}")
    if not isinstance(example_inputs, (list, tuple)):
        raise TypeError(f"example_inputs must be a list, got {type(example_inputs).__name__}")
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(example_inputs):
        raise TypeError(f"the graph has {len(placeholders)} inputs but {len(example_inputs)} example inputs were given")


def with_flat_tuple_output(gm: Any) -> tuple[Any, Callable[[Any], Any] | None]:
    """``(gm', unflatten)``: ``gm'`` returns a flat tuple of leaves; ``unflatten`` rebuilds ``gm``'s output.

    AOTAutograd only takes graphs that return a tuple. When ``gm`` already does, it is returned unchanged
    with ``unflatten=None``; otherwise a copy returns the pytree leaves and ``unflatten`` puts them back.
    A node the capture marked ``meta["checks_values"]`` that nothing reads (an unused ``gather`` or
    ``one_hot``, which raises in eager on a bad index) is returned too, after the leaves, so that the
    functional trace keeps it; ``unflatten`` drops it.
    """
    import torch.fx
    from torch.utils import _pytree as pytree

    output = next(n for n in reversed(gm.graph.nodes) if n.op == "output")
    (result,) = output.args
    checks = [n for n in gm.graph.nodes if n.meta.get("checks_values") and not n.users]
    if not checks and isinstance(result, tuple) and all(not isinstance(r, (list, tuple, dict)) for r in result):
        return gm, None
    leaves, spec = pytree.tree_flatten(result)
    graph = torch.fx.Graph()
    env: dict[Any, Any] = {}
    for node in gm.graph.nodes:
        if node.op == "output":
            kept = [env[leaf] if isinstance(leaf, torch.fx.Node) else leaf for leaf in leaves]
            graph.output(tuple(kept + [env[n] for n in checks]))
        else:
            env[node] = graph.node_copy(node, lambda n: env[n])
    new_gm = torch.fx.GraphModule(gm, graph)

    def unflatten(flat: Any) -> Any:
        return pytree.tree_unflatten(list(flat)[: len(leaves)], spec)

    return new_gm, unflatten


#: In-place ops that give a tensor other storage (``t.set_(s)``, which ``t.data = s`` records) or resize it.
_STORAGE_REPLACING = frozenset({"set_", "resize_", "resize_as_"})


def replaces_storage(gm: Any) -> bool:
    """Whether ``gm`` calls ``set_`` or ``resize_`` (as a method, a ``torch.Tensor`` function or an ATen op).

    AOTAutograd accepts such a call on a graph input only when it keeps input mutations in the graph
    (``keep_inference_input_mutations``); otherwise it refuses the whole graph."""
    return next(_storage_replacing_calls(gm), None) is not None


def _storage_replacing_calls(gm: Any) -> Any:
    """The nodes of ``gm`` that call ``set_``, ``resize_`` or ``resize_as_``."""
    for node in gm.graph.nodes:
        if node.op == "call_method":
            name = node.target
        elif node.op == "call_function":
            # torch.Tensor.set_ and the ATen packet are named "set_", an overload "set_.source_Tensor"
            name = getattr(node.target, "__name__", "").split(".")[0]
        else:
            continue
        if name in _STORAGE_REPLACING:
            yield node


def returns_view_of_replaced_input(gm: Any, example_inputs: list[Any]) -> bool:
    """Whether ``gm`` returns a view of a tensor taken before a ``set_``/``resize_`` gave that tensor other
    storage (``v = p.view(2, 2); p.data = t; return v``).

    In eager ``v`` keeps viewing ``p``'s old storage. AOTAutograd rebuilds every output that aliases an
    input from that input after the graph ran, so it would return a view of ``p``'s new storage: such a
    graph must run as captured. Call it only on graphs that :func:`replaces_storage`: it may run ``gm``
    on fake tensors."""
    values = _fake_values(gm, example_inputs)
    position = {node: index for index, node in enumerate(gm.graph.nodes)}
    replaced_at: dict[int, int] = {}  # id of the replaced tensor's fake -> position of its last set_/resize_
    for node in _storage_replacing_calls(gm):
        fake = values.get(node.args[0]) if node.args else None
        if fake is not None:
            replaced_at[id(fake)] = position[node]
    output = next(node for node in reversed(gm.graph.nodes) if node.op == "output")
    for leaf in output.all_input_nodes:
        base = getattr(values.get(leaf), "_base", None)
        for candidate in (base, getattr(base, "_base", None)):
            if candidate is not None and position[leaf] < replaced_at.get(id(candidate), -1):
                return True
    return False


def replaces_a_storage_it_handed_on(gm: Any) -> bool:
    """Whether ``gm`` gives a tensor the storage of a graph input (``x.set_(y)``, which ``x.data = y`` records)
    and later replaces that input's storage (``y.set_(z)``): eager's ``x`` keeps ``y``'s old storage.

    AOTAutograd replays the inputs' storage changes after the graph, input by input: with ``y`` before ``x``,
    ``x`` would get ``y``'s new storage. Such a graph must run as captured. Found on the graph's structure (the
    placeholders each value comes from), so a graph that merely could is run as captured too."""
    from torch.fx import Node

    calls = list(_storage_replacing_calls(gm))
    handed_on: set[Any] = set()
    for node in calls:
        target = node.args[0] if node.args else None
        if isinstance(target, Node) and _placeholders_of(target) & handed_on:
            return True
        if len(node.args) > 1 and isinstance(node.args[1], Node):
            handed_on |= _placeholders_of(node.args[1])
    return False


def resizes_an_input(gm: Any) -> bool:
    """Whether ``gm`` resizes a graph input (``resize_``, ``resize_as_``, or an ``out=`` op's resize, which the
    capture records as a ``resize_``): AOTAutograd replays the input's new values after the graph onto the old
    storage (a size mismatch, or an out-of-bounds view of an empty one), so such a graph must run as captured."""
    for node in _storage_replacing_calls(gm):
        name = node.target if node.op == "call_method" else getattr(node.target, "__name__", "")
        if name.split(".")[0] != "set_" and node.args and _placeholders_of(node.args[0]):
            return True
    return False


def _placeholders_of(node: Any) -> set[Any]:
    """The placeholders ``node`` is computed from (itself, if it is one)."""
    seen, todo, found = set(), [node], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if current.op == "placeholder":
            found.add(current)
        todo.extend(current.all_input_nodes)
    return found


def _fake_values(gm: Any, example_inputs: list[Any]) -> dict[Any, Any]:
    """Each node's fake value: the capture's own (``meta["val"]`` / ``meta["example_value"]``) when its
    placeholders have them (a capture records every value), else from running ``gm`` on fakes of ``example_inputs``."""
    import torch
    from torch.fx import Interpreter

    recorded = {node: node.meta.get("val", node.meta.get("example_value")) for node in gm.graph.nodes}
    if all(recorded[node] is not None for node in gm.graph.nodes if node.op == "placeholder"):
        return recorded
    from torch._subclasses.fake_tensor import FakeTensorMode

    values: dict[Any, Any] = {}

    class _Recording(Interpreter):
        def run_node(self, node: Any) -> Any:
            values[node] = result = super().run_node(node)
            return result

    mode = FakeTensorMode(allow_non_fake_inputs=True)
    fakes = [mode.from_tensor(x) if isinstance(x, torch.Tensor) else x for x in example_inputs]
    with mode:
        _Recording(gm).run(*fakes)
    return values


def frees_history_it_returns(gm: Any) -> bool:
    """Whether ``gm`` runs a backward (``torch.autograd.grad``, which a ``loss.backward()`` in the frame
    records) that frees the autograd graph it walks, and returns a tensor that requires grad (the loss
    itself, say): in eager, a later backward through that tensor fails ("backward through the graph a
    second time"). AOTAutograd would give it a fresh autograd node that succeeds, and its own trace would
    need the freed graph, so such a graph runs as captured: eager's autograd, exactly."""
    import torch

    calls = [n for n in gm.graph.nodes if n.op == "call_function" and n.target is torch.autograd.grad]
    if all(n.kwargs.get("retain_graph") is True for n in calls):
        return False
    output = next(n for n in reversed(gm.graph.nodes) if n.op == "output")
    # (a value with no fake example might require grad: counted as one that does)
    return any(getattr(n.meta.get("val", n), "requires_grad", True) for n in output.all_input_nodes)
