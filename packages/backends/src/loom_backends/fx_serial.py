"""ATen FX graphs as JSON records and back, for the disk caches: no pickle, nothing imported by name but
ATen ops (through ``torch.ops``) and ``operator``/``builtins`` functions.

:func:`to_records` writes one record per node (op, name, target, arguments); tensor constants
(``get_attr`` nodes) go to a list of tensors the caller saves beside the records. :func:`from_records`
rebuilds a ``GraphModule`` with the same nodes, names, targets and arguments, so the graph cache's key of
the rebuilt graph is the key of the original. What a record cannot describe exactly — a sub-graph, a
call to any other Python function, an argument of another type — raises
:class:`~loom_backends.graph_cache.Uncacheable` when writing; a record that does not rebuild raises
:class:`ValueError` when reading.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch.fx.immutable_collections import immutable_list

from .graph_cache import _PLAIN_CALLABLES, Uncacheable, object_name, resolve_object

_DTYPES = {str(d).removeprefix("torch."): d for d in vars(torch).values() if isinstance(d, torch.dtype)}
_LAYOUTS = {str(v).removeprefix("torch."): v for v in vars(torch).values() if isinstance(v, torch.layout)}
_FORMATS = {
    str(v).removeprefix("torch."): v for v in vars(torch).values() if isinstance(v, torch.memory_format)
}


def to_records(gm: torch.fx.GraphModule) -> tuple[list[dict[str, Any]], list[torch.Tensor]]:
    """The nodes of ``gm`` as JSON-serialisable records, and the tensor constants they refer to."""
    records: list[dict[str, Any]] = []
    tensors: list[torch.Tensor] = []
    for node in gm.graph.nodes:
        record: dict[str, Any] = {"op": node.op, "name": node.name}
        if node.op == "get_attr":
            value = getattr(gm, node.target, None) if "." not in node.target else None
            if type(value) is not torch.Tensor or value.device.type != "cpu":
                raise Uncacheable(f"an attribute {node.target!r} that is not a CPU tensor")
            record["target"] = node.target
            record["tensor"] = len(tensors)
            tensors.append(value.detach())
        elif node.op == "call_function":
            record["target"] = _target_record(node.target)
        elif node.op in ("placeholder", "output"):
            record["target"] = node.target
        else:
            raise Uncacheable(f"a {node.op} node")
        record["args"] = _value_record(node.args)
        record["kwargs"] = _value_record(node.kwargs)
        records.append(record)
    return records, tensors


def from_records(records: list[dict[str, Any]], tensors: list[torch.Tensor]) -> torch.fx.GraphModule:
    """The ``GraphModule`` :func:`to_records` described."""
    graph = torch.fx.Graph()
    root = torch.nn.Module()
    env: dict[str, torch.fx.Node] = {}
    for record in records:
        op, name = record["op"], record["name"]
        if op == "call_function":
            target: Any = _target_from(record["target"])
        elif op in ("placeholder", "output", "get_attr"):
            target = record["target"]
            if not isinstance(target, str):
                raise ValueError(f"a {op} node's target {target!r}")
        else:
            raise ValueError(f"a {op!r} node")
        if op == "get_attr":
            if "." in target:
                raise ValueError(f"an attribute name {target!r}")
            setattr(root, target, tensors[record["tensor"]])
        args = _value_from(record["args"], env)
        kwargs = _value_from(record["kwargs"], env)
        node = graph.create_node(op, target, tuple(args), dict(kwargs), name=name)
        if node.name != name:
            raise ValueError(f"node {name!r} was named {node.name!r}")
        env[name] = node
    gm = torch.fx.GraphModule(root, graph)
    return gm


def _target_record(target: Any) -> str:
    if isinstance(target, torch._ops.OpOverload):
        namespace, name = target._schema.name.split("::")
        text = f"op:{namespace}::{name}.{target._overloadname}"
        if _op_from(text[3:]) is not target:
            raise Uncacheable(f"an op {target} that torch.ops does not give back")
        return text
    if id(target) in _PLAIN_CALLABLES and (named := object_name(target)) is not None:
        return f"fn:{named}"
    raise Uncacheable(f"a call to {target!r}")


def _target_from(text: str) -> Any:
    if text.startswith("op:"):
        return _op_from(text[3:])
    if text.startswith("fn:"):
        if text[3:].split(":")[0] not in ("_operator", "operator", "builtins"):
            raise ValueError(f"{text!r} is not an operator or builtins function")  # imports nothing else
        value = resolve_object(text[3:])
        if id(value) not in _PLAIN_CALLABLES:
            raise ValueError(f"{text!r} is not an operator or builtins function")
        return value
    raise ValueError(f"a call target {text!r}")


def _op_from(text: str) -> Any:
    qualified, overload = text.rsplit(".", 1)
    namespace, name = qualified.split("::")
    return getattr(getattr(getattr(torch.ops, namespace), name), overload)


def _value_record(value: Any) -> Any:
    if isinstance(value, torch.fx.Node):
        return {"node": value.name}
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        return {"float": repr(value)}  # exact, -0.0, inf and nan included
    if type(value) is list or type(value) is immutable_list:
        return [_value_record(v) for v in value]
    if type(value) is tuple:
        return {"tuple": [_value_record(v) for v in value]}
    if isinstance(value, dict):
        if not all(type(k) is str for k in value):
            raise Uncacheable("a dict with keys other than str")
        return {"dict": [[k, _value_record(v)] for k, v in value.items()]}
    if isinstance(value, torch.dtype):
        return {"dtype": str(value).removeprefix("torch.")}
    if isinstance(value, torch.device):
        return {"device": str(value)}
    if isinstance(value, torch.layout):
        return {"layout": str(value).removeprefix("torch.")}
    if isinstance(value, torch.memory_format):
        return {"memory_format": str(value).removeprefix("torch.")}
    if isinstance(value, slice):
        return {"slice": [_value_record(value.start), _value_record(value.stop), _value_record(value.step)]}
    raise Uncacheable(f"an argument of type {type(value).__name__}")


def _value_from(record: Any, env: dict[str, torch.fx.Node]) -> Any:
    if record is None or type(record) in (bool, int, str):
        return record
    if type(record) is list:
        return [_value_from(v, env) for v in record]
    if type(record) is not dict or len(record) != 1:
        raise ValueError(f"a value record {record!r}")
    ((tag, body),) = record.items()
    if tag == "node":
        return env[body]
    if tag == "float":
        value = float(body)
        if repr(value) != body and not math.isnan(value):
            raise ValueError(f"a float {body!r}")
        return value
    if tag == "tuple":
        return tuple(_value_from(v, env) for v in body)
    if tag == "dict":
        return {k: _value_from(v, env) for k, v in body}
    if tag == "dtype":
        return _DTYPES[body]
    if tag == "device":
        return torch.device(body)
    if tag == "layout":
        return _LAYOUTS[body]
    if tag == "memory_format":
        return _FORMATS[body]
    if tag == "slice":
        return slice(*(_value_from(v, env) for v in body))
    raise ValueError(f"a value tag {tag!r}")
