"""loom: a just-in-time compiler for PyTorch programs.

::

    import torch, loom

    @loom.compile
    def f(x):
        return torch.sin(x) + 1

``loom.compile`` captures Python functions and ``nn.Module`` forwards into FX graphs through a
PEP 523 frame hook (``loom_framehook``), a symbolic bytecode translator (``loom_symbolic``) and
guards (``loom_guards``), and runs them with a backend (``loom_backends``: ``eager``, ``aot_eager``,
``triton``).
"""

from .api import allow_in_graph, compile, disable, reset, stats
from .errors import InternalError, Unsupported
from .frame_compiler import RecompileLimitWarning

__all__ = [
    "InternalError",
    "RecompileLimitWarning",
    "Unsupported",
    "allow_in_graph",
    "compile",
    "disable",
    "reset",
    "stats",
]
__version__ = "0.1.0"
