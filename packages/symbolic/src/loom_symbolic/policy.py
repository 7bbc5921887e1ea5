"""What the translator must not trace into, and what it must record as a single graph op.

The facade fills these registries (``loom.disable``, ``loom.allow_in_graph``); other tools reusing the
translator can too. Code objects are held in sets of their own (code objects are immutable, and the
registries are small, so a set lookup on a rare path is fine).
"""

from __future__ import annotations

import types
import weakref
from typing import Any

_skipped_codes: set[types.CodeType] = set()
#: Resume functions whose frames run as they are (weakly held: resume codes are cached on their origin).
_as_is_codes: weakref.WeakSet = weakref.WeakSet()
_allowed_functions: dict[int, Any] = {}


class ModuleFamilies:
    """A set of top-level module names, matched by a module name that is one of them or inside one
    (``"os.path"`` is in ``os``). Answers are cached per module name: they are asked on every inlined
    call and attribute read."""

    def __init__(self, *names: str) -> None:
        self.names = names
        self._found: dict[str, str | None] = {}

    def family_of(self, module: str) -> str | None:
        """The name in the set that ``module`` belongs to, or None."""
        try:
            return self._found[module]
        except KeyError:
            found = next((name for name in self.names if module == name or module.startswith(name + ".")), None)
            self._found[module] = found
            return found


#: Standard-library modules whose functions do I/O, locking or process-level work: calls into them
#: are not traced but run as ordinary Python (a graph break at the call).
OPAQUE_MODULES = ModuleFamilies(
    "logging", "threading", "warnings", "_warnings", "io", "os", "subprocess", "socket", "sys", "time", "random", "pdb",
    "traceback", "multiprocessing", "concurrent", "asyncio", "queue",
    # torch.func's machinery pushes functorch interpreter levels: the transforms loom captures are
    # higher-order calls (variables/func_transforms.py); a call to any other is one graph break
    "torch._functorch", "torch.func",
)

#: Libraries whose module attributes, function globals and classes are treated as fixed (not guarded
#: per read).
TRUSTED_MODULES = ModuleFamilies(
    "torch", "math", "operator", "builtins", "functools", "itertools", "collections", "typing",
    "numbers", "enum", "dataclasses", "abc", "types", "warnings", "numpy", "heapq", "copy", "copyreg",
    "loom_symbolic.polyfills",  # the Python versions of C builtins traced in their place
)


_FUNCTORCH_REASON = ("this torch.func function is not captured (grad, grad_and_value, vmap, jacrev, jacfwd, hessian, "
                     "jvp, vjp and functional_call are, also by their functorch names; it pushes functorch interpreter "
                     "levels)")

#: Why calls into an opaque family are not traced, where it is not I/O or process state.
_OPAQUE_REASONS = {
    "_warnings": "warnings does I/O or keeps process state (filters, the registry of shown warnings)",
    "torch._functorch": _FUNCTORCH_REASON,
    "torch.func": _FUNCTORCH_REASON,
}


#: Classes of opaque modules that are plain data, traced like any other (``traceback.FrameSummary``: a
#: record of a frame's place; reading a line it was not given still goes through linecache, and breaks there).
_DATA_CLASSES_OF_OPAQUE = {"traceback": ("FrameSummary.",)}


def opaque_module(fn: Any) -> str | None:
    """The opaque library module ``fn`` belongs to, if any: by its ``__module__``, or by the module whose
    globals it uses (a wrapper made by ``functools.wraps`` claims its wrapped function's module)."""
    found = OPAQUE_MODULES.family_of(getattr(fn, "__module__", None) or "")
    if found is None:
        defined_in = (getattr(fn, "__globals__", None) or {}).get("__name__")
        if isinstance(defined_in, str):
            found = OPAQUE_MODULES.family_of(defined_in)
    if found in _DATA_CLASSES_OF_OPAQUE and (getattr(fn, "__qualname__", None) or "").startswith(
            _DATA_CLASSES_OF_OPAQUE[found]):
        return None
    return found


def opaque_reason(family: str) -> str:
    """Why calls into the opaque ``family`` run as ordinary Python."""
    return _OPAQUE_REASONS.get(family, f"{family} does I/O or keeps process state")


def trusted_module_name(name: str) -> bool:
    """Whether module ``name`` belongs to :data:`TRUSTED_MODULES`."""
    return TRUSTED_MODULES.family_of(name) is not None


def run_rest_as_is(code: types.CodeType) -> None:
    """Never translate ``code``, a resume function whose frame runs the rest of its function as it is."""
    _as_is_codes.add(code)


def runs_as_is(code: types.CodeType) -> bool:
    """Whether :func:`run_rest_as_is` marked ``code``."""
    return code in _as_is_codes


def skip_code(code: types.CodeType) -> None:
    """Never inline ``code``: a call to it ends the graph (a graph break) or runs outside it."""
    if not isinstance(code, types.CodeType):
        raise TypeError(f"skip_code() expects a code object, got {type(code).__name__}")
    _skipped_codes.add(code)


def unskip_code(code: types.CodeType) -> None:
    """Undo :func:`skip_code`."""
    _skipped_codes.discard(code)


def is_skipped(code: types.CodeType) -> bool:
    """Whether calls to ``code`` must not be inlined."""
    return code in _skipped_codes


def allow_in_graph(fn: Any) -> None:
    """Record calls to ``fn`` as one graph op instead of inlining it (it must be traceable by FakeTensor)."""
    if not callable(fn):
        raise TypeError(f"allow_in_graph() expects a callable, got {type(fn).__name__}")
    _allowed_functions[id(fn)] = fn


def allowed_in_graph(fn: Any) -> bool:
    """Whether ``fn`` was registered with :func:`allow_in_graph`."""
    return _allowed_functions.get(id(fn)) is fn


def _call_directly(fn: Any, *args: Any) -> Any:
    return fn(*args)


#: How graph code calls user Python it must not compile (a custom autograd Function's ``apply``); the
#: facade installs one that turns its frame hook off around the call.
_native_caller: Any = _call_directly


def set_native_caller(caller: Any) -> None:
    """Install ``caller(fn, *args)``, which runs ``fn(*args)`` with no frame compiled on the way."""
    global _native_caller
    if not callable(caller):
        raise TypeError(f"set_native_caller() expects a callable, got {type(caller).__name__}")
    _native_caller = caller


def call_natively(fn: Any, *args: Any) -> Any:
    """``fn(*args)`` run as ordinary Python, through the caller :func:`set_native_caller` installed."""
    return _native_caller(fn, *args)


def clear() -> None:
    """Forget every registration."""
    _skipped_codes.clear()
    _allowed_functions.clear()
