"""Imports of modules already imported: the ``IMPORT_NAME`` opcode and the ``__import__`` builtin.

An import statement and ``__import__(name, globals, locals, fromlist, level)`` answer from ``sys.modules``
when the module (and any from-name submodule) is loaded already: nothing runs, the module object is the
answer. A module not loaded yet would run its code, a graph break. The module pushed is its own source, so
reading a member guards it there, as for a module global.
"""

from __future__ import annotations

import builtins
import importlib.util
import sys
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const

from ..errors import Unsupported, UserError
from ..versions import current as version
from .builtins import builtin
from .registry import wrap

if TYPE_CHECKING:
    from .base import Variable


def imported_module(tx: Any, name: str, fromlist: Any, level: int, f_globals: dict) -> Variable:
    """What importing ``name`` gives (``import a.b`` binds ``a``; a fromlist gives ``a.b`` itself), from
    ``sys.modules``; a module or from-name submodule not imported yet is a break."""
    if level != 0:
        name = _absolute_name(name, level, f_globals)
    module = sys.modules.get(name)
    if module is None and _not_found(name):
        # no finder knows it (asking runs no module's code): Python's ModuleNotFoundError, which an ``except``
        # may catch; the trace holds while the name stays out of sys.modules
        tx.output.guards.add("absent_key", Attr(Const(sys), "modules"), name)
        message = f"No module named {name!r}"
        raise UserError(f"importing {name}", message, exc_type=ModuleNotFoundError, exc_args=(message,),
                        exc_attrs={"name": name, "path": None})
    if module is None:
        raise Unsupported(f"importing {name}", "the module is not imported yet: importing runs its code",
                          hint="import it at the top of the file")
    if fromlist and hasattr(module, "__path__"):
        # A package imports each from-name that is not yet an attribute: a submodule import runs its code.
        missing = [item for item in fromlist if item != "*" and not hasattr(module, item)]
        if missing:
            raise Unsupported(f"from {name} import {missing[0]}", "a submodule not imported yet: importing runs its code",
                              hint="import it at the top of the file")
    if not fromlist:
        # ``import a.b.c`` binds ``a``; a relative form always has a fromlist.
        module = sys.modules.get(name.partition(".")[0], module)
    return wrap(tx, module, Const(module))


def _not_found(name: str) -> bool:
    """Whether no finder can load module ``name``: a top-level name, or one whose parent package is loaded
    (finding a submodule of a package not loaded yet would import the package)."""
    parent = name.rpartition(".")[0]
    if parent and getattr(sys.modules.get(parent), "__path__", None) is None:
        return False
    try:
        return importlib.util.find_spec(name) is None
    except (ImportError, ValueError):
        return False


def _absolute_name(name: str, level: int, f_globals: dict) -> str:
    """The module a relative import names, resolved against the importing function's package as
    ``__import__`` does (``__package__``, else ``__spec__.parent``, else from ``__name__``)."""
    package = f_globals.get("__package__")
    if package is None:
        spec = f_globals.get("__spec__")
        if spec is not None:
            package = spec.parent
        else:
            module_name = f_globals.get("__name__", "")
            package = module_name if "__path__" in f_globals else module_name.rpartition(".")[0]
    if not package:
        raise Unsupported("a relative import outside a package", "Python raises ImportError here")
    try:
        return importlib.util.resolve_name("." * level + name, package)
    except ImportError:
        raise Unsupported("a relative import beyond the top-level package", "Python raises ImportError here") from None


_IMPORT_PARAMETERS = ("name", "globals", "locals", "fromlist", "level")


@builtin(builtins.__import__)
def builtin_import(tx, args, kwargs):
    """``__import__("math")``, ``__import__("os.path", fromlist=["join"])``: the import statement's answer.
    Only an absolute import (level 0, which reads neither ``globals`` nor ``locals``) of constant names is
    answered here; a relative one needs the globals passed, and is left to run as ordinary Python."""
    if len(args) > len(_IMPORT_PARAMETERS) or any(k not in _IMPORT_PARAMETERS for k in kwargs):
        return None
    bound = dict(zip(_IMPORT_PARAMETERS, args))
    if any(k in bound for k in kwargs):
        return None
    bound.update(kwargs)
    if "name" not in bound:
        return None
    constant = {k: bound[k] for k in ("name", "fromlist", "level") if k in bound}
    if not all(v.is_python_constant() for v in constant.values()):
        return None
    name = constant["name"].as_python_constant()
    fromlist = constant["fromlist"].as_python_constant() if "fromlist" in constant else ()
    level = constant["level"].as_python_constant() if "level" in constant else 0
    if not isinstance(name, str) or not name or level != 0 or not isinstance(fromlist, (tuple, list)):
        return None  # ValueError, TypeError or a relative import: run as Python
    if not all(isinstance(item, str) for item in fromlist or ()):
        return None
    return imported_module(tx, name, fromlist, level, {})


def from_import_failure(tx: Any, module: Variable, name: str) -> Unsupported:
    """What ``from module import name`` raises where ``name`` is not an attribute of the loaded ``module``.

    CPython's IMPORT_FROM then looks for a submodule ``module.name`` in ``sys.modules`` (a circular import
    still running) and else raises ImportError. Its message and attributes differ by version (3.12 added
    ``name_from`` and a "partially initialized" wording), so the trace raises what the interpreter itself
    raises for this module and name; the trace holds while the submodule stays out of ``sys.modules``.
    """
    value = getattr(module, "value", None)
    package = getattr(value, "__name__", None)
    if not isinstance(package, str) or module.source is None:
        return Unsupported(f"from-import of {name}", "not found as an attribute of a module the trace can name")
    if f"{package}.{name}" in sys.modules:
        return Unsupported(f"from {package} import {name}", "a submodule still being imported (a circular import)")
    error = _real_from_import_error(value, name)
    if error is None:
        return Unsupported(f"from {package} import {name}", "the attribute appeared when read again")
    tx.output.guards.add("absent_key", Attr(Const(sys), "modules"), f"{package}.{name}")
    attributes = {key: getattr(error, key) for key in version.IMPORT_ERROR_KEYWORDS}
    return UserError(f"from {package} import {name}", str(error), exc_type=type(error), exc_args=error.args,
                     exc_attrs=attributes)


def _real_from_import_error(module: Any, name: str) -> ImportError | None:
    """The ImportError the interpreter's own IMPORT_FROM raises for ``module`` and ``name`` (None if it finds
    it after all): an import statement run where ``__import__`` hands back ``module`` itself."""
    namespace = {"__builtins__": {"__import__": lambda *args: module}}
    try:
        exec(f"from _ import {name}", namespace)  # name is an identifier from co_names
    except ImportError as error:
        return error
    return None
