"""Issue 29's last break causes, one small program each, for ``capture_count.py``: logging, warnings,
weak references, iterators passed in, generators closed inside ``try``, ``.data`` assignment,
``set_default_dtype``, ``str()`` of a dataclass, ``mappingproxy.keys()`` and ``odict_keys``; writes to a
``BaseOutput``-style dict subclass from outside, ``str()`` of an object showing its address, ``next()`` on
an iterator passed in at another position on each call, a side effect in a generator's ``finally``, and
a list holding itself across a break.

A construct that takes more than ``x`` names the rest in ``extra_args`` (made afresh for each run); one
run ``calls`` times (default 1) gets the same arguments on each call (an iterator passed in moves).
"""

from __future__ import annotations

import collections
import dataclasses
import inspect
import io
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


class _BaseOutput(collections.OrderedDict):
    """diffusers' ``BaseOutput``: an ``OrderedDict`` dataclass whose overrides call ``super()``."""

    def __post_init__(self):
        for field in dataclasses.fields(self):
            if getattr(self, field.name) is not None:
                self[field.name] = getattr(self, field.name)

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)

    def __setattr__(self, name, value):
        if name in self.keys() and value is not None:
            super().__setitem__(name, value)
        super().__setattr__(name, value)

    def __getitem__(self, key):
        return dict(self.items())[key] if isinstance(key, str) else self.to_tuple()[key]

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


@dataclasses.dataclass
class _SampleOutput(_BaseOutput):
    sample: torch.Tensor = None


_MODULE_OUTPUT = _SampleOutput(sample=torch.zeros(3))


def c_base_output_writes(x, out):
    out["sample"] = x + 1
    out.sample = out.sample * 2
    _MODULE_OUTPUT["sample"] = x - 1
    _MODULE_OUTPUT.sample = _MODULE_OUTPUT.sample * 3
    return out.to_tuple()[0] + _MODULE_OUTPUT.sample, list(dict.items(out)), out.sample, _MODULE_OUTPUT.sample


c_base_output_writes.extra_args = lambda: (_SampleOutput(sample=torch.zeros(3)),)


class _Anonymous:
    pass


_ANONYMOUS = _Anonymous()


def c_str_of_address_objects(x):
    return x + len(str(_Anonymous())), str(_ANONYMOUS), repr(_ANONYMOUS)


def c_next_on_moving_iterator(x, numbers):
    return x + next(numbers)


c_next_on_moving_iterator.extra_args = lambda: (iter([10, 11, 12, 13, 14, 15]),)
c_next_on_moving_iterator.calls = 5

_SINK = io.StringIO()


def _closing_with_a_print(log):
    try:
        yield 1
        yield 2
    finally:
        print("closed", file=_SINK)
        log.append("closed")


def c_print_in_generator_finally(x):
    log = []
    gen = _closing_with_a_print(log)
    out = x + next(gen)
    gen.close()
    return out, log


def c_list_holding_itself_break(x):
    items = [x * 2]
    items.append(items)
    print("break", file=_SINK)
    items.append(x + 1)
    return items[1][2] + items[0], items[1] is items, len(items)


CONSTRUCTS = [c_logging, c_warnings_catch, c_warnings_warn, c_weakref_call, c_iterator_arguments,
              c_generator_close_in_try, c_tensor_data_assign, c_set_default_dtype, c_str_of_dataclass,
              c_mappingproxy_keys, c_base_output_writes, c_str_of_address_objects, c_next_on_moving_iterator,
              c_print_in_generator_finally, c_list_holding_itself_break]
