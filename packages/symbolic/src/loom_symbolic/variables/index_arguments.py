"""Builtins that read each int argument through ``__index__``: ``math.comb``, ``math.perm``, ``math.gcd``,
``math.lcm``, ``math.factorial``, ``math.isqrt``, ``range`` and ``chr``.

C converts such an argument with ``PyNumber_Index``, so an object whose class writes ``__index__`` in Python
counts as the int it gives. Each such argument's ``__index__`` is traced, left to right as C converts them,
and the call goes on with the ints: folded, as a call on constants is. An ``__index__`` that does not give an
int known while tracing is a break (:func:`.container_tables.user_index`). ``bin``, ``hex``, ``oct`` and
``operator.index`` do the same in :mod:`.operator_builtins`.
"""

from __future__ import annotations

import math
from typing import Any

from .builtins import HANDLERS, Handler, call_builtin
from .constant import ConstantVariable
from .container_tables import user_index, writes_index

#: The builtins answered here (each takes its arguments by position only).
READ_BY_INDEX = (math.comb, math.perm, math.gcd, math.lcm, math.factorial, math.isqrt, range, chr)


def _through_index(fn: Any) -> Handler:
    """The handler of ``fn``: its arguments with ``__index__`` written in Python made ints, then the call."""

    def handler(tx, args, kwargs):
        if kwargs or not any(writes_index(a) for a in args):
            return None  # folded, or its own break, as before
        converted = [ConstantVariable(user_index(tx, a)) if writes_index(a) else a for a in args]
        return call_builtin(tx, fn, converted, kwargs)

    handler.__doc__ = f"``{fn.__name__}(...)`` with an argument whose class writes ``__index__`` in Python."
    return handler


for _fn in READ_BY_INDEX:
    HANDLERS.setdefault(_fn, _through_index(_fn))
