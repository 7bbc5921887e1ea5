"""Patterns on what a torch program matches (CPython's test_patma as PyTorch's Dynamo suite runs it,
``test/dynamo/cpython/3_13/``), for ``capture_count.py --only grammar14``: a dtype or device value pattern, a
module, parameter or tensor class pattern with keyword sub-patterns, a global object, dict, ``**kwargs`` or
list argument as the subject, ``str.split()`` command parsing, nested mapping and sequence patterns.
"""

from __future__ import annotations

import collections

import torch
import torch.nn as nn


class _Cfg:
    __match_args__ = ("mode", "k")

    def __init__(self, mode, k):
        self.mode = mode
        self.k = k


_CFG = _Cfg("scale", 3)
_LIN = nn.Linear(3, 2)
_OPTS = {"act": "relu", "n": 2}


def c_grammar14_pat_dtype(x):
    match x.dtype:
        case torch.float32:
            return x + 1
        case torch.int64:
            return x - 1
    return x


def c_grammar14_pat_device(x):
    match x.device.type:
        case "cpu":
            return x * 2
        case _:
            return x


def c_grammar14_pat_global_obj(x):
    match _CFG:
        case _Cfg("scale", k):
            return x * k
        case _Cfg(mode="shift", k=k):
            return x + k
    return x


def c_grammar14_pat_module(x):
    match _LIN:
        case nn.Linear(in_features=i, out_features=o):
            return _LIN(x) + i + o
        case nn.Module():
            return x
    return x


def c_grammar14_pat_global_dict(x):
    match _OPTS:
        case {"act": "relu", "n": n}:
            return torch.relu(x) * n
        case {"act": _}:
            return x
    return x


def c_grammar14_pat_kwargs(x, **kw):
    match kw:
        case {"scale": s, **rest}:
            return x * s, sorted(rest)
    return x, []


def c_grammar14_pat_kwargs_call(x):
    return c_grammar14_pat_kwargs(x, scale=2, other=1)


def c_grammar14_pat_shape_int(x):
    match x.shape[0]:
        case int(n) if n > 2:
            return x * n
        case 0:
            return x
    return x - 1


def c_grammar14_pat_tensor_class(x):
    out = []
    for v in (x, 1, [x]):
        match v:
            case torch.Tensor(ndim=1):
                out.append(v.sum())
            case [torch.Tensor() as t]:
                out.append(t.mean())
            case _:
                out.append(torch.tensor(0.0))
    return sum(out)


def c_grammar14_pat_param(x):
    match _LIN.weight:
        case nn.Parameter(shape=(o, i)):
            return x.sum() + o * i
    return x


def c_grammar14_pat_str_split(x):
    cmd = "scale 3"
    match cmd.split():
        case ["scale", amount]:
            return x * int(amount)
        case ["shift", amount]:
            return x + int(amount)
    return x


def c_grammar14_pat_list_arg(x, items):
    match items:
        case [a, b, *rest]:
            return x * a + b + len(rest)
        case []:
            return x
    return x


def c_grammar14_pat_list_arg_call(x):
    return c_grammar14_pat_list_arg(x, [2, 3, 4])


def c_grammar14_pat_namedtuple_star(x):
    P = collections.namedtuple("P", "a b c")
    match P(1, x, 3):
        case (1, t, *_):
            return t + 1
    return x


def c_grammar14_pat_nested_class_and_mapping(x):
    data = {"layers": [{"kind": "lin", "w": 2}, {"kind": "act"}]}
    total = x
    match data:
        case {"layers": [*layers]}:
            for layer in layers:
                match layer:
                    case {"kind": "lin", "w": w}:
                        total = total * w
                    case {"kind": "act"}:
                        total = torch.relu(total)
    return total


CONSTRUCTS = [c_grammar14_pat_dtype, c_grammar14_pat_device, c_grammar14_pat_global_obj, c_grammar14_pat_module,
              c_grammar14_pat_global_dict, c_grammar14_pat_kwargs_call, c_grammar14_pat_shape_int,
              c_grammar14_pat_tensor_class, c_grammar14_pat_param, c_grammar14_pat_str_split,
              c_grammar14_pat_list_arg_call, c_grammar14_pat_namedtuple_star,
              c_grammar14_pat_nested_class_and_mapping]
