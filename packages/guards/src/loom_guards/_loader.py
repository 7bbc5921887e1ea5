"""Finding the C++ accelerator at import: the installed one, else one built for this torch and cached.

``LOOM_GUARDS_ACCEL`` decides what happens when there is none:

* unset / ``auto``: build it into the cache (``_cache.py``); when that cannot work, warn once with an
  :class:`AcceleratorWarning` naming the reason and the fix, and use the pure-Python guards;
* ``required``: raise ``RuntimeError`` instead of warning;
* ``off``: do not look for it at all (pure Python, no warning).
"""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType

import torch

from . import _cache
from ._build import BuildProblem

__all__ = ["AcceleratorWarning", "load"]


class AcceleratorWarning(RuntimeWarning):
    """loom-guards runs its guards in pure Python because the C++ accelerator could not be had.

    Issued at most once per process, at ``import loom_guards``; ``loom_guards.accelerator_error()``
    returns the reason afterwards. ``LOOM_GUARDS_ACCEL=off`` silences it.
    """


def mode() -> str:
    """``LOOM_GUARDS_ACCEL``, lower-cased: ``off``, ``required`` or ``auto`` (anything else)."""
    value = os.environ.get("LOOM_GUARDS_ACCEL", "auto").strip().lower()
    return value if value in ("off", "required") else "auto"


def load() -> tuple[ModuleType | None, str | None]:
    """``(accelerator, None)``, or ``(None, why not)`` after warning (or raising, when required)."""
    if mode() == "off":
        return None, "disabled by LOOM_GUARDS_ACCEL=off"
    installed, why_not = _installed()
    if installed is not None:
        return installed, None
    try:
        module = _cache.load_or_build()
        if getattr(module, "TORCH_VERSION", None) != torch.__version__:
            raise BuildProblem(
                f"the cached build {module.__file__} is for torch {getattr(module, 'TORCH_VERSION', None)}",
                f"delete {os.path.dirname(module.__file__ or '.')} and import again",
            )
        return module, None
    except BuildProblem as problem:
        reason, fix = problem.reason, problem.fix
    except Exception as exc:  # never let the accelerator break `import loom_guards`
        reason, fix = f"{type(exc).__name__}: {exc}", "report this to loom's developers"
    if why_not:  # an installed accelerator exists, for another torch: say so too
        reason = f"{reason}; {why_not}"
    if mode() == "required":
        raise RuntimeError(f"loom_guards: LOOM_GUARDS_ACCEL=required, but the C++ guard accelerator is "
                           f"unavailable: {reason}. To fix it: {fix}.")
    warnings.warn(
        AcceleratorWarning(
            f"loom_guards: the C++ guard accelerator is unavailable, so guards run in pure Python (several "
            f"times slower per call): {reason}. To fix it: {fix}. Set LOOM_GUARDS_ACCEL=off to silence "
            "this warning."
        ),
        stacklevel=2,
    )
    return None, reason


def _installed() -> tuple[ModuleType | None, str | None]:
    """The accelerator installed in the package (built with the wheel), if it is for this torch.

    ``(None, None)`` when there is none (an index install), ``(None, why)`` when it is unusable.
    """
    try:
        module = importlib.import_module(_cache.MODULE_NAME)
    except ModuleNotFoundError as exc:
        if exc.name == _cache.MODULE_NAME:
            return None, None
        return None, f"the installed accelerator does not load ({exc})"
    except ImportError as exc:
        return None, f"the installed accelerator does not load ({exc})"
    built_for = getattr(module, "TORCH_VERSION", None)
    if built_for != torch.__version__:
        # Built against another torch: its view of torch's C++ objects would be wrong. Never use it.
        return None, f"the installed accelerator was built for torch {built_for}, this is torch {torch.__version__}"
    return module, None
