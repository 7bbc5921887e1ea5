"""Functions compiled by TorchScript (``torch.jit.script(f)``, ``torch.jit.trace(f, example)``) from outside the
frame: a call traces the Python function they were made from, as dynamo inlines it, and joins the caller's
graph instead of breaking it at an opaque C callable.

Both record that function in the ``_torchdynamo_inline`` attribute of the ``torch._C.ScriptFunction`` they
return (torch's ``jit/_script.py`` and ``jit/_trace.py`` set it for dynamo's sake). The script function is
guarded by identity; the Python function is wrapped from ``<source>._torchdynamo_inline`` (its code guarded as
any function's). Everything else (being returned, stored, compared, its other attributes) sees the real
script function, as an opaque object.
"""

from __future__ import annotations

import inspect
import types
from typing import Any

import torch

from loom_guards import Attr

from . import registry
from .real_objects import UserObjectVariable
from .wrap_rules import _object_variable, _remember


def _inlined(value: Any) -> Any:
    """The plain Python function ``value`` (a ScriptFunction) was compiled from, or None."""
    try:
        original = inspect.getattr_static(value, "_torchdynamo_inline", None)
    except Exception:
        return None
    return original if isinstance(original, types.FunctionType) else None


class ScriptFunctionVariable(UserObjectVariable):
    """A real ``torch._C.ScriptFunction`` whose call traces the Python function it was compiled from."""

    def call(self, tx, args: list, kwargs: dict) -> Any:
        original = _inlined(self.value)
        source = Attr(self.source, "_torchdynamo_inline") if self.source is not None else None
        return registry.wrap(tx, original, source).call(tx, args, kwargs)


def _wrap_script_function(tx, value: Any, source: Any) -> Any:
    if tx is None or source is None or _inlined(value) is None:
        return _remember(tx, value, source, lambda: _object_variable(tx, value, source))

    def make() -> Any:
        tx.output.guards.add("identity", source, value)
        return ScriptFunctionVariable(value, source)

    return _remember(tx, value, source, make)


# before the builtin callables' rule (210)
registry.add_rule(204, lambda v: type(v) is torch._C.ScriptFunction, _wrap_script_function)
registry.add_exact_type(torch._C.ScriptFunction, _wrap_script_function)
