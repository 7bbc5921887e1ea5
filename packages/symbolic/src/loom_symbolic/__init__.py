"""loom_symbolic: the instruction translator.

Walks a function's CPython bytecode with symbolic values, records tensor work into a ``torch.fx``
graph with FakeTensor metadata, and emits rewritten bytecode that calls the compiled graph, together
with the guards under which that is right. Usable without the frame hook::

    from loom_symbolic import translate_function
    t = translate_function(fn, x)
    print(t.dump())
"""

from .api import new_graph_name, translate, translate_function
from .bytecode_helpers import run_resume
from .errors import Location, Reason, Unsupported, UserError
from .policy import allow_in_graph, is_skipped, set_native_caller, skip_code
from .provenance import Provenance
from .results import CapturedGraph, GraphBreak, Translation
from .resume import resume_point

__all__ = [
    "CapturedGraph",
    "GraphBreak",
    "Location",
    "Provenance",
    "Reason",
    "Translation",
    "Unsupported",
    "UserError",
    "allow_in_graph",
    "is_skipped",
    "new_graph_name",
    "resume_point",
    "run_resume",
    "set_native_caller",
    "skip_code",
    "translate",
    "translate_function",
]
__version__ = "0.1.0"
