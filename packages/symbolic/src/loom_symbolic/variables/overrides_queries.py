"""``torch.overrides``' queries about torch's own functions, folded on a constant argument.

``is_tensor_method_or_property(func)`` looks ``func`` up in ``get_testing_overrides()``, a table of lambdas built
on each call inside a ``warnings.catch_warnings`` block (a break when inlined); its answer depends on ``func``
alone, so a constant ``func`` (a function or method of torch's, read from the frame or a module) is answered here.
"""

from __future__ import annotations

import torch

from .builtins import FOLDED_LIBRARY_FUNCTIONS, builtin
from .constant import ConstantVariable

#: The queries answered here.
QUERIES = (torch.overrides.is_tensor_method_or_property,)


def _handler(fn):
    def handler(tx, args, kwargs):
        if kwargs or len(args) != 1 or not args[0].is_python_constant():
            return None  # inlined as the library's own code
        return ConstantVariable(fn(args[0].as_python_constant()))

    return handler


for _fn in QUERIES:
    builtin(_fn)(_handler(_fn))
FOLDED_LIBRARY_FUNCTIONS.update(QUERIES)
