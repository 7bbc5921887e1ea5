"""``functools.wraps(torch.cos)`` in traced code: ``update_wrapper`` reads the torch function's names,
``__doc__``, ``__annotations__`` and ``__dict__``. The names and docstring are fixed by the function's
identity; a torch function written in Python reads the rest as any function does; a C one lacks them, which
``update_wrapper`` takes as AttributeError. Before, the ``__doc__`` read was a graph break."""

import functools

import torch
import torch.nn.functional as F

import loom


def wraps_torch_functions(x):
    a = functools.wraps(torch.cos)(lambda t: t * 2)
    b = functools.wraps(F.relu)(lambda t: t + 1)
    return (a(x), b(x), a.__name__, b.__name__, a.__doc__ == torch.cos.__doc__, b.__wrapped__ is F.relu,
            hasattr(torch.sin, "not_there"), torch.sin.__doc__ is not None)


def test_functools_wraps_over_torch_functions_is_traced():
    expected = wraps_torch_functions(torch.ones(2))
    loom.reset()
    result = loom.compile(wraps_torch_functions, backend="eager", options={"strict": True})(torch.ones(2))
    torch.testing.assert_close(result[:2], expected[:2])
    assert result[2:] == expected[2:] == ("cos", "relu", True, True, False, True)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
