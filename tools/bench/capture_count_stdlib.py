"""Issue 29's last break causes, one small program each, for ``capture_count.py``: logging, warnings,
weak references, iterators passed in, generators closed inside ``try``, ``.data`` assignment,
``set_default_dtype``, ``str()`` of a dataclass, ``mappingproxy.keys()`` and ``odict_keys``.

A construct that takes more than ``x`` names the rest in ``extra_args`` (made afresh for each run).
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import warnings
import weakref

import torch

_LOG = logging.getLogger("loom.bench.capture")
_LOG.addHandler(logging.NullHandler())
_LOG.propagate = False


def c_logging(x):
    _LOG.info("start %d", x.shape[0])
    y = x + 1
    _LOG.warning("done")
    return y


def c_warnings_catch(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = x + 1
    return y


def c_warnings_warn(x):
    warnings.warn("shown once", stacklevel=1)
    return x + 1


class _Holder:
    def __init__(self, t):
        self.t = t


_HELD = _Holder(torch.ones(3))
_REF = weakref.ref(_HELD)


def c_weakref_call(x):
    made = _Holder(x)
    return x + _REF().t + weakref.ref(made)().t


def c_iterator_arguments(x, numbers, pairs, names):
    out = x + next(numbers)
    for v in numbers:
        out = out + v
    for a, b in pairs:
        out = out + a * b
    for name in names:
        out = out + len(name)
    return out


c_iterator_arguments.extra_args = lambda: (iter([1, 2]), iter(((1, 2),)), iter({"a": 1}))


def _guarded(log):
    try:
        yield 1
        yield 2
    finally:
        log.append("closed")


def c_generator_close_in_try(x):
    log = []
    gen = _guarded(log)
    y = x + next(gen)
    try:
        gen.close()
    except RuntimeError:
        y = y * 0
    return y + len(log)


def c_tensor_data_assign(x, p):
    p.data = x * 2
    return p + 1


c_tensor_data_assign.extra_args = lambda: (torch.nn.Parameter(torch.ones(3)),)


def c_set_default_dtype(x):
    y = x * 2
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    z = torch.ones(3) + y
    torch.set_default_dtype(old)
    return z


@dataclasses.dataclass
class _Config:
    size: int
    name: str = "c"


def c_str_of_dataclass(x):
    return x + len(str(_Config(3)))


def _processor(attn, hidden_states, encoder_hidden_states=None):
    return hidden_states


class _Marked:
    marker = 1


def c_mappingproxy_keys(x):
    n = 0
    for name in inspect.signature(_processor).parameters.keys():
        n += len(name)
    return x + n + ("marker" in _Marked.__dict__.keys()) + len(_Marked.__dict__.values())


CONSTRUCTS = [c_logging, c_warnings_catch, c_warnings_warn, c_weakref_call, c_iterator_arguments,
              c_generator_close_in_try, c_tensor_data_assign, c_set_default_dtype, c_str_of_dataclass,
              c_mappingproxy_keys]
