"""``warnings.warn(...)`` with fixed arguments: made by the rewritten code after the graph, as eager makes it.

A warning is process state (the filters, the registry of warnings already shown) and output (stderr, or
the list a ``catch_warnings(record=True)`` block collects), so it is not traced; a graph break at each
one (torch.compile's answer) splits the graph around every deprecation warning in a model. What eager
does with a warning is fixed by its message, its category and the frame ``stacklevel`` names (file,
line, module globals and their ``__warningregistry__``). Frames inside the trace are known while tracing,
so the call is recorded with that frame's place and made by the rewritten code through
``warnings.warn_explicit``, in program order with the other side effects: the filters, the "once" and
"default" registries and ``showwarning`` are consulted then, at run time, as in eager.

Made after the graph, a warning must change nothing the trace saw or did, so it is deferred only while
(a fact guarded on every call, :class:`WarningRoute`):

- the filters do not turn it into an exception (an "error" action would raise after the graph ran);
- it goes to ``showwarning``'s own output (a stream) or to a ``catch_warnings(record=True)`` list. Such
  a list is withheld from the trace (``AliasTracker.withhold``): a later read of it breaks the graph
  there, after the warning is made, and another list the trace reads is guarded to be distinct from it.
"""

from __future__ import annotations

import inspect
import warnings
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const
from loom_guards.sources import _Chained, _check_base, _set_chained

from ..errors import Unsupported
from .builtins import builtin
from .constant import ConstantVariable
from .warnings_blocks import open_steps, simulated_filters

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_SHOW_ORIGINAL = warnings._showwarnmsg
_SHOW_IMPL_ORIGINAL = warnings._showwarnmsg_impl
_WARNINGS = Const(warnings, "warnings")
_RESUMABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
#: The list a ``catch_warnings(record=True)`` block collects into (its ``append`` is the handler).
_RECORD_LIST = Attr(Attr(_WARNINGS, "_showwarnmsg_impl"), "__self__")


def action_for(category: type, text: str, module: str, lineno: int, filters: list | None = None) -> str:
    """The action the warnings filters (``filters``, else ``warnings.filters``) give a warning, as
    ``warn_explicit`` finds it (first match wins)."""
    for action, message, cat, mod, line in warnings.filters if filters is None else filters:
        if (_matches(message, text) and issubclass(category, cat)
                and _matches(mod, module) and (line == 0 or lineno == line)):
            return action
    return warnings.defaultaction


def _matches(pattern: Any, text: str) -> bool:
    """A filter's message or module test as CPython's ``_warnings`` makes it: None matches anything, a plain
    string (what some tools put in ``warnings.filters`` directly) only itself, else the regex's ``match``."""
    if pattern is None:
        return True
    if isinstance(pattern, str):
        return pattern == text
    return pattern.match(text) is not None


def _record_list(handler: Any) -> list | None:
    owner = getattr(handler, "__self__", None)
    if type(owner) is list and getattr(handler, "__name__", None) == "append":
        return owner
    return None


def route(category: type, text: str, module: str, lineno: int, steps: tuple = ()) -> str | None:
    """Where a warning made now goes: ``"ignored"`` (an "ignore" filter drops it), ``"stream"`` (showwarning's
    own output), ``"record"`` (a ``catch_warnings(record=True)`` list), or None (it raises, or a function of
    the program's handles it). ``steps``: those of the traced ``catch_warnings`` blocks open around it
    (:mod:`.warnings_blocks`), made after the graph, applied to the filters first."""
    filters = simulated_filters(warnings.filters, steps) if steps else None
    action = action_for(category, text, module, lineno, filters)
    if action == "error":
        return None
    if action == "ignore":
        return "ignored"
    if warnings._showwarnmsg is not _SHOW_ORIGINAL or warnings.showwarning is not warnings._showwarning_orig:
        return None
    handler = warnings._showwarnmsg_impl
    if handler is _SHOW_IMPL_ORIGINAL:
        return "stream"
    return "record" if _record_list(handler) is not None else None


class WarningRoute(_Chained):
    """:func:`route` of one warning: guarded equal to the route the trace relied on."""

    __slots__ = ("_steps", "_warning")
    fetch_cost = 6

    def __init__(self, base: Any, warning: tuple, steps: tuple = ()) -> None:
        _set_chained(self, _check_base("WarningRoute", base))
        object.__setattr__(self, "_warning", warning)
        object.__setattr__(self, "_steps", steps)

    def _key(self) -> tuple:
        return (self._base, self._warning, self._steps)

    def _args(self) -> tuple:
        return (self._base, self._warning, self._steps)

    def read_from(self, base_value: Any) -> str | None:
        return route(*self._warning, self._steps)

    def __str__(self) -> str:
        category, text, module, lineno = self._warning
        return f"<where {category.__name__}({text!r}) from {module}:{lineno} goes>"


class WarningSite:
    """A ``warnings.warn`` call made by the rewritten code: the warning, and the frame it names."""

    __slots__ = ("__qualname__", "category", "filename", "globals", "lineno", "message")

    def __init__(self, message: str, category: type, filename: str, lineno: int, f_globals: dict) -> None:
        self.message, self.category = message, category
        self.filename, self.lineno, self.globals = filename, lineno, f_globals
        self.__qualname__ = "warnings.warn"  # how explain describes the replayed call

    def __call__(self) -> None:
        # as warn()'s C setup_context finds them for a frame: its module name and (made if absent) registry
        registry = self.globals.get("__warningregistry__")
        if registry is None:
            registry = self.globals["__warningregistry__"] = {}
        warnings.warn_explicit(self.message, self.category, self.filename, self.lineno,
                               self.globals.get("__name__", "<string>"), registry)


def _constant(value: Variable | None, default: Any) -> Any:
    if value is None:
        return default
    if not isinstance(value, ConstantVariable) and not value.is_python_constant():
        raise Unsupported("warnings.warn()", "an argument known only at run time",
                          hint="it runs as ordinary Python between graphs")
    return value.as_python_constant()


def _named_frame(tx: InstructionTranslator, stacklevel: int) -> InstructionTranslator | None:
    """The traced frame ``stacklevel`` names (1: the caller of warn), or None if it is outside the trace
    or warn would skip one of them (importlib's internal frames)."""
    frame = tx
    for _ in range(stacklevel - 1):
        name = frame.code.co_filename
        if "importlib" in name and "_bootstrap" in name:
            return None
        if frame.code.co_flags & _RESUMABLE:  # its caller is whoever resumes it, not the frame that made it
            return None
        frame = frame.parent
        if frame is None:
            return None
    return frame


@builtin(warnings.warn)
def builtin_warn(tx, args, kwargs):
    """``warnings.warn(message, category=None, stacklevel=1)`` with constant arguments: made after the graph."""
    names = ("message", "category", "stacklevel")
    if len(args) > len(names) or set(kwargs) - set(names):
        return None  # ``source``, ``skip_file_prefixes``: left to a graph break
    bound = dict(zip(names, args), **kwargs)
    message = _constant(bound.get("message"), None)
    category = _constant(bound.get("category"), None) or UserWarning
    stacklevel = _constant(bound.get("stacklevel"), 1)
    if type(message) is not str or not (isinstance(category, type) and issubclass(category, Warning)):
        return None
    frame = _named_frame(tx, stacklevel) if type(stacklevel) is int and stacklevel >= 1 else None
    if frame is None:
        return None
    location = frame.location()
    if location.lineno is None:
        return None
    module = frame.f_globals.get("__name__", "<string>")
    warning = (category, message, module, location.lineno)
    steps = open_steps(tx.output)
    where = route(*warning)  # the trace's real filters are its open blocks' (the guard replays their steps)
    if where is None:
        return None
    if where == "record" and not tx.output.withhold(_record_list(warnings._showwarnmsg_impl), _RECORD_LIST,
                                                   "the list a catch_warnings(record=True) block collects into, "
                                                   "which gets a warning made after the graph"):
        return None  # the trace read that list already: it would not see the warning
    tx.output.guards.add("constant", WarningRoute(_WARNINGS, warning, steps), where)
    site = WarningSite(message, category, location.filename, location.lineno, frame.f_globals)
    tx.output.side_effects.deferred_call(site, [], {}, tx.root().location().lineno)
    return ConstantVariable(None)
