"""``functorch.vmap``, ``functorch.grad`` and the other names of the ``functorch`` package shipped with
torch: thin wrappers (``torch._functorch.deprecated``) that warn, then call their ``torch.func``
counterpart. Each is an alias of its counterpart in the table of higher-order functions
(:func:`.higher_order.alias`), so it is captured exactly as that one is (a transform the translator does
not capture, ``functionalize``, breaks as its counterpart does); its ``FutureWarning`` is issued once per
compile of the call, at the user's line, as under torch.compile (the warnings filters decide, as for
eager's)."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import torch
from torch._functorch import deprecated as _deprecated

from . import func_transforms, functional_call  # noqa: F401  (their handlers are the counterparts')
from .higher_order import HANDLERS, alias

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: legacy name → (its counterpart, the name its warning recommends when not ``torch.func.<name>``).
_COUNTERPARTS = {
    "vmap": (torch.vmap, "torch.vmap"),
    **{name: (getattr(torch.func, name), None)
       for name in ("grad", "grad_and_value", "jacrev", "jacfwd", "hessian", "jvp", "vjp", "functionalize")},
}


#: The registry of warnings shown (what ``__warningregistry__`` is to a module): under the default filter
#: each is shown once per line, as eager's are, however often the line is compiled.
_SHOWN: dict = {}


def _warns(name: str, new_name: str | None):
    """Issue the legacy wrapper's own ``FutureWarning``, at the user's line of the call."""
    def warn(tx: InstructionTranslator) -> None:
        where = tx.location()
        warnings.warn_explicit(_deprecated.get_warning(name, new_name, replace_newlines=True), FutureWarning,
                               where.filename, where.lineno or 0, registry=_SHOWN)
    return warn


for _name, (_target, _new_name) in _COUNTERPARTS.items():
    _legacy = getattr(_deprecated, _name, None)
    if _legacy is not None and _target in HANDLERS:
        alias(_legacy, _target, before=_warns(_name, _new_name))
