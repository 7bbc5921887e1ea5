"""loom: a just-in-time compiler for PyTorch programs.

::

    import torch, loom

    @loom.compile
    def f(x):
        return torch.sin(x) + 1

    f(torch.randn(8))                       # captured, compiled, cached under guards
    print(loom.explain(f)(torch.randn(8)))  # what loom did: graphs, breaks, guards, times

``loom.compile`` captures Python functions and ``nn.Module`` calls into FX graphs through a PEP 523
frame hook (``loom_framehook``), a symbolic bytecode translator (``loom_symbolic``) and guards
(``loom_guards``), and runs them with a backend (``loom_backends``): by default ``default``, which
generates kernels for each graph's device (``c`` on CPU, ``triton`` on CUDA); ``backend="eager"`` runs
the captured graphs as they are, ``aot_eager`` through AOTAutograd. Logs: ``LOOM_LOGS=graph,guards,recompiles,graph_breaks,bytecode,output_code`` or
:func:`set_logs`.
"""

from . import logs as _logs
from .api import compile, reset, stats
from .controls import allow_in_graph, disable, graph_break
from .dynamic import mark_dynamic, mark_static
from .errors import (
    BackendCompilerFailed,
    GlobalStateChanged,
    InternalError,
    RecompileLimitError,
    RecompileLimitWarning,
    Unsupported,
)
from .explain import ExplainReport, explain
from .logs import set_logs
from .module import CompiledModule
from .versions import UnsupportedPythonWarning

__all__ = [
    "BackendCompilerFailed",
    "CompiledModule",
    "ExplainReport",
    "GlobalStateChanged",
    "InternalError",
    "RecompileLimitError",
    "RecompileLimitWarning",
    "Unsupported",
    "UnsupportedPythonWarning",
    "allow_in_graph",
    "compile",
    "disable",
    "explain",
    "graph_break",
    "mark_dynamic",
    "mark_static",
    "reset",
    "set_logs",
    "stats",
]
__version__ = "0.1.0"

_logs.init_from_env()
