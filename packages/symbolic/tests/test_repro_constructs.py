"""Constructs from Dynamo's repro and higher-order-op tests (issue 29's second hidden set), each
captured with eager's answer: module containers holding parameters (``ParameterDict`` subscripts and
iteration, ``len()`` of parameter containers), ``dataclasses.asdict``/``astuple`` (``copy.deepcopy`` and
``hasattr`` on builtin types from a library's globals), ``copy.copy`` of builtin containers, ``wrap`` of a
function that changes Python state (traced as the plain call it is in eager)."""

import copy
import dataclasses

import pytest
import torch
from harness import CaseRegistry, check
from torch._higher_order_ops.wrap import wrap

CASES = CaseRegistry(default_graphs=1)
case = CASES

X = torch.arange(3.0)


class _Parameters(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pd = torch.nn.ParameterDict({"a": torch.nn.Parameter(torch.ones(3)),
                                          "bb": torch.nn.Parameter(torch.full((3,), 2.0))})
        self.pl = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(3))])


_PARAMETERS = _Parameters().requires_grad_(False)


@case(X)
def parameter_container_lengths(x):
    # len() of a ParameterList/ParameterDict counts its parameters (they have no submodules)
    return x + len(_PARAMETERS.pd) + 10 * len(_PARAMETERS.pl)


@case(X)
def parameter_dict_subscript_and_iteration(x):
    pd = _PARAMETERS.pd
    out = x * pd["a"] + pd.bb
    for key, value in pd.items():
        out = out + value * len(key)
    for key in pd:
        out = out + pd[key]
    for value in pd.values():
        out = out + value
    return out + 100 * ("a" in pd) + 1000 * ("z" in pd)


@dataclasses.dataclass
class _Config:
    hidden: int = 3
    scale: float = 2.0
    names: list = dataclasses.field(default_factory=list)


@case(X)
def dataclass_asdict_astuple(x):
    cfg = _Config(scale=0.5)
    cfg.names.append("a")
    as_dict = dataclasses.asdict(cfg)  # copy.deepcopy of each field's value, from dataclasses' own globals
    return x * as_dict["scale"] + len(as_dict["names"]), as_dict, dataclasses.astuple(cfg)


@case(X)
def builtin_types_lack_attributes(x):
    return x + hasattr(int, "__dataclass_fields__") + 2 * hasattr(dict, "keys") + 4 * hasattr(str, "nope")


@case(X)
def shallow_copies(x):
    spec = {"dims": [1, 2], "name": "a"}
    shallow = copy.copy(spec)
    shallow["dims"].append(3)  # shared with spec: a shallow copy
    shallow["name"] = "b"
    items = copy.copy([1, 2])
    items.append(3)
    return x + len(spec["dims"]) + len(items), spec, shallow, copy.copy({1, 2}), copy.copy((1, 2)), copy.copy(2.5)


SEEN = []
COUNTS = {"calls": 0}


class _Box:
    value = 0


BOX = _Box()


@case(X)
def wrap_body_changing_python_state(x):
    # eager's wrap is a plain call: a body with side effects is traced as that call, in one graph
    kept = []

    def body(t):
        SEEN.append(t.shape[0])
        COUNTS["calls"] += 1
        BOX.value = BOX.value + 1
        kept.append(t)
        return t * 2

    return wrap(body, x) + len(SEEN) + BOX.value, len(kept), COUNTS["calls"]


@case(X)
def wrap_body_changing_a_tensor_in_place(x):
    def body(t, out):
        out.add_(t)
        return {"sum": out + 1}

    buffer = torch.zeros(3)
    return wrap(body, x, buffer)["sum"] + buffer


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_captured_with_eager_answer(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
