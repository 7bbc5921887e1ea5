"""Functions that read process state the program may change, but no graph does: answered while tracing and
guarded by asking again.

``torch.autograd._is_checkpoint_valid()`` is False inside a backward asked for some inputs only
(``torch.autograd.grad(out, inputs)`` running a checkpoint's recomputation), ``torch.initial_seed()`` is the seed
``manual_seed`` set last. Inlined, each reaches a method of a C object (``Variable._execution_engine``,
``default_generator``), a graph break. ``sys.getrecursionlimit()`` is the limit ``sys.setrecursionlimit`` set
last: a C function of ``sys``, whose calls are otherwise breaks (:data:`..policy.OPAQUE_MODULES`), that only
reads. As :mod:`.folded_queries` guards torch's C queries, the answer is a constant of the trace guarded by
``ConstantMatch(Called(Const(fn)), answer)``: the entry is reused while the function answers the same
(torch.compile folds ``_is_checkpoint_valid`` and ``getrecursionlimit`` without a guard). ``initial_seed()``
after the trace seeded torch's RNG itself (:mod:`.torch_rng_calls`) is a break: the answer would be that seed.
"""

from __future__ import annotations

import sys

import torch

from loom_guards import Called, Const

from ..errors import Unsupported
from .builtins import FOLDED_LIBRARY_FUNCTIONS, builtin
from .constant import ConstantVariable
from .torch_rng_calls import changes_torch_rng

#: The queries answered here.
QUERIES = (torch.autograd._is_checkpoint_valid, torch.random.initial_seed, sys.getrecursionlimit)


def _handler(fn):
    """The builtin handler of query ``fn``."""

    def answer(tx, args, kwargs):
        if args or kwargs:
            return None
        if fn is torch.random.initial_seed and changes_torch_rng(tx.output):
            raise Unsupported("torch.initial_seed()", "the program seeded torch's RNG earlier in this frame",
                              hint="it runs as ordinary Python between graphs")
        tx.output.guards.add("asked", Called(Const(fn)), None)  # asked again at every call
        return ConstantVariable(fn())

    answer.__doc__ = f"``{fn.__module__}.{fn.__name__}()``: its answer now, guarded by asking again."
    return answer


for _fn in QUERIES:
    builtin(_fn)(_handler(_fn))
FOLDED_LIBRARY_FUNCTIONS.update(QUERIES)
